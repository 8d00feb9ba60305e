package kgqa

import (
	"context"
	"slices"
	"sync"
)

// Transcript is every model call of one question with its full messages
// and raw reply, and every SPARQL query sent to the KG, each next to the
// stage, subgoal and round it served. The engine keeps one only when asked
// (engine.trace_prompts, --trace-prompts): it is the largest part of a trace.
type Transcript struct {
	// Calls are the model calls, grouped by subgoal in plan order (calls
	// outside any subgoal, such as planning and linking, first), in the
	// order they were made within a subgoal.
	Calls []Exchange `json:"calls"`
	// Queries are the SPARQL queries sent to the KG backend, grouped like
	// Calls. A primitive answered from the KG cache sends none.
	Queries []KGQuery `json:"queries"`
}

// Exchange is one model call on record.
type Exchange struct {
	// Step is the subgoal and round the call served.
	Step
	// Role that served the call.
	Role Role `json:"role"`
	// Stage the call belongs to.
	Stage Stage `json:"stage"`
	// Messages are the messages sent, in order, repair turns included.
	Messages []Message `json:"messages"`
	// Reply is the model's raw reply text ("" when the call failed).
	Reply string `json:"reply"`
	// Error is the error text when the call failed.
	Error string `json:"error,omitempty"`
}

// KGQuery is one SPARQL query sent to the KG.
type KGQuery struct {
	// Step is the subgoal and round the query served.
	Step
	// SPARQL is the query text as sent.
	SPARQL string `json:"sparql"`
}

// Step names where in a run a call or query was made.
type Step struct {
	// Subgoal is the id of the subgoal ("" for planning, linking and the
	// final answer).
	Subgoal string `json:"subgoal,omitempty"`
	// Round is the exploration round (from 1) of a find subgoal; 0 for a
	// call made before exploration (the tentative answer) or outside one.
	Round int `json:"round,omitempty"`
}

type stepKey struct{}

// WithStep returns a context whose calls and queries are recorded as made
// for step s.
func WithStep(ctx context.Context, s Step) context.Context {
	return context.WithValue(ctx, stepKey{}, s)
}

// StepFrom returns the step of ctx (zero when none was set).
func StepFrom(ctx context.Context) Step {
	s, _ := ctx.Value(stepKey{}).(Step)
	return s
}

// Recorder collects a Transcript; it is safe for concurrent use, and a nil
// *Recorder records nothing.
type Recorder struct {
	mu sync.Mutex
	t  Transcript
}

type recorderKey struct{}

// WithRecorder returns a context whose calls and queries are recorded in r.
func WithRecorder(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// RecorderFrom returns the recorder of ctx, or nil when there is none (a
// nil recorder is safe to use).
func RecorderFrom(ctx context.Context) *Recorder {
	r, _ := ctx.Value(recorderKey{}).(*Recorder)
	return r
}

// AddCall records a model call made under ctx.
func (r *Recorder) AddCall(ctx context.Context, e Exchange) {
	if r == nil {
		return
	}
	e.Step = StepFrom(ctx)
	e.Messages = slices.Clone(e.Messages)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t.Calls = append(r.t.Calls, e)
}

// AddQuery records a SPARQL query sent under ctx.
func (r *Recorder) AddQuery(ctx context.Context, sparql string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t.Queries = append(r.t.Queries, KGQuery{Step: StepFrom(ctx), SPARQL: sparql})
}

// Transcript returns what was recorded, grouped by subgoal in the order
// pos gives (pos maps a subgoal id to its plan index; calls outside a
// subgoal come first), so that subgoals that ran at once do not
// interleave.
func (r *Recorder) Transcript(pos func(subgoal string) int) *Transcript {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := func(s Step) int {
		if s.Subgoal == "" {
			return -1
		}
		return pos(s.Subgoal)
	}
	t := Transcript{Calls: slices.Clone(r.t.Calls), Queries: slices.Clone(r.t.Queries)}
	slices.SortStableFunc(t.Calls, func(a, b Exchange) int { return key(a.Step) - key(b.Step) })
	slices.SortStableFunc(t.Queries, func(a, b KGQuery) int { return key(a.Step) - key(b.Step) })
	if t.Calls == nil {
		t.Calls = []Exchange{}
	}
	if t.Queries == nil {
		t.Queries = []KGQuery{}
	}
	return &t
}
