package server

// Demo describes a scripted model standing in for a language model (parog
// serve with no model configured, on the demo graph): the label /readyz
// and the viewer show, and the questions it answers, which the viewer
// lists to click.
type Demo struct {
	// Label names the model, e.g. "scripted demo model: answers the demo
	// questions".
	Label string
	// Questions are the questions it answers, in order.
	Questions []DemoQuestion
}

// DemoQuestion is one question the scripted model answers.
type DemoQuestion struct {
	// ID identifies the question in its file ("demo-01").
	ID string `json:"id"`
	// Question is its text.
	Question string `json:"question"`
}

// WithDemo says that the model behind the engine is the scripted demo
// model d, not a language model.
func WithDemo(d Demo) Option { return func(s *Server) { s.demo = d } }
