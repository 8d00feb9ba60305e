package sparql2plan

// Pair is one benchmark question as sparql2plan takes it: the <question,
// SPARQL> pair, with what a record keeps of its source. The caller loads
// the benchmark file (parog sparql2plan reads it with package dataset) and
// hands its questions over as pairs, so that this package reads no file
// format and links no loader.
type Pair struct {
	// ID is the benchmark's own id of the question.
	ID string
	// Text is the question as asked.
	Text string
	// SPARQL is the gold query, as the benchmark writes it.
	SPARQL string
	// Source is the name of the benchmark's format, as package dataset
	// names it ("cwq", "grailqa", "webqsp", "demo", ...).
	Source string
	// Label is the benchmark's structure label (CWQ's
	// compositionality_type, GrailQA's function, the demo type); empty
	// when it has none.
	Label string
	// TopicEntities are the entities the question is about, in the
	// benchmark's order.
	TopicEntities []Entity
}

// Entity is a topic entity of a question: its id ("m.03_dwn", "Q42") and
// the name the benchmark gives it (may be empty).
type Entity struct {
	ID   string
	Name string
}

// The formats whose structure labels LabelAgrees compares with a plan, by
// the names package dataset gives them (a test checks that they agree).
const (
	sourceCWQ     = "cwq"
	sourceGrailQA = "grailqa"
	sourceDemo    = "demo"
)
