// Package oracle is a measuring instrument: a model that answers every
// prompt of the engine as a perfect model would, from the gold SPARQL of
// the question asked, and then, reproducibly, as imperfectly as real
// models do. It is served over HTTP as an OpenAI-compatible endpoint
// (cmd/oracle-llm, parog bench oracle), so that the engine meets it the
// way it meets any model: the engine knows nothing of it.
//
// The oracle reads each request the way the engine wrote it: it tells the
// prompt kind from the reply schema's name or, failing that, from the
// fixed wording of the prompt (stage.go), finds the question in its
// question file from the "Question:" line, and the current subgoal from
// the plan view. Its knowledge is the gold plan (sparql2plan's conversion
// of the gold query) and the gold answers; it never reads the KG, so what
// it can say about a subgoal comes from the evidence in the prompt.
package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/backoff"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/sparql2plan"
)

// Policy is how the oracle gives tentative answers.
type Policy struct {
	// Kind is "gold", "wrong", "none" or "mixed".
	Kind string
	// Wrong is the share of wrong tentative answers under "mixed".
	Wrong float64
}

// ParsePolicy reads gold, wrong, none or mixed:P (0 <= P <= 1).
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "gold", "wrong", "none":
		return Policy{Kind: s}, nil
	}
	if p, ok := strings.CutPrefix(s, "mixed:"); ok {
		var f float64
		if _, err := fmt.Sscanf(p, "%g", &f); err == nil && f >= 0 && f <= 1 {
			return Policy{Kind: "mixed", Wrong: f}, nil
		}
	}
	return Policy{}, fmt.Errorf("oracle: tentative policy %q: want gold, wrong, none or mixed:P with 0 <= P <= 1", s)
}

// String is the policy as ParsePolicy reads it.
func (p Policy) String() string {
	if p.Kind == "mixed" {
		return fmt.Sprintf("mixed:%g", p.Wrong)
	}
	return p.Kind
}

// Option configures a Model.
type Option func(*Model)

// WithTentative sets the tentative answer policy (default gold).
func WithTentative(p Policy) Option { return func(m *Model) { m.policy = p } }

// WithNoise corrupts replies: see Noise.
func WithNoise(n Noise) Option { return func(m *Model) { m.noise = n } }

// Model is the oracle. Safe for concurrent use.
type Model struct {
	byText  map[string]*question
	policy  Policy
	noise   Noise
	dialect kg.Dialect
	// sufficiency is SufficiencyStrict or SufficiencyNever.
	sufficiency string
	// wording is WordingGold or WordingQuestion.
	wording string
	// latency delays each reply (zero: none).
	latency Latency
	// pause waits out a delay or the request's end (sleep; tests record).
	pause func(context.Context, time.Duration) error

	mu       sync.Mutex
	attempts map[uint64]int // identical requests seen, for fresh noise draws
	stats    Stats
	perQ     map[string]*QuestionStats
}

// QuestionStats is what the oracle saw of one question.
type QuestionStats struct {
	// Calls is the number of requests about the question.
	Calls int `json:"calls"`
	// Facts is the number of evidence lines (facts and candidates) in
	// those requests.
	Facts int `json:"facts"`
	// Notes say where the engine did not give the oracle what a perfect
	// answer needs: a gold relation not offered, a gold answer not in the
	// evidence of the answer subgoal.
	Notes []string `json:"notes,omitempty"`
	// Noisy counts the replies about the question corrupted, by noise
	// kind: which errors a lost question met.
	Noisy map[string]int `json:"noisy,omitempty"`
}

// Stats counts what the oracle was asked and what it did.
type Stats struct {
	// Calls counts requests by prompt kind.
	Calls map[string]int `json:"calls"`
	// Unrecognised counts requests whose prompt kind it could not tell.
	Unrecognised int `json:"unrecognised"`
	// UnknownQuestion counts requests about a question not in its file.
	UnknownQuestion int `json:"unknown_question"`
	// Noisy counts corrupted replies by noise kind.
	Noisy map[string]int `json:"noisy"`
}

// question is one question the oracle knows the answer to.
type question struct {
	q     dataset.Question
	plan  json.RawMessage
	steps map[string]sparql2plan.Step
	// answer is the id of the subgoal whose result answers the question.
	answer string
}

// Skip is a question the oracle cannot answer perfectly: its gold query
// does not convert to a plan.
type Skip struct {
	// ID is the question's id.
	ID string `json:"id"`
	// Reason is sparql2plan's failure reason.
	Reason string `json:"reason"`
}

// New builds the oracle for qs. Questions whose gold SPARQL sparql2plan
// cannot convert are returned as skipped; the oracle then does not know
// them. When two questions have the same text the first one is kept.
func New(qs []dataset.Question, opts ...Option) (*Model, []Skip) {
	m := &Model{byText: map[string]*question{}, policy: Policy{Kind: "gold"}, sufficiency: SufficiencyStrict, wording: WordingGold, attempts: map[uint64]int{}, perQ: map[string]*QuestionStats{},
		dialect: kg.Freebase(kg.DialectOptions{}), pause: backoff.Sleep,
		stats: Stats{Calls: map[string]int{}, Noisy: map[string]int{}}}
	for _, o := range opts {
		o(m)
	}
	var skipped []Skip
	for _, q := range qs {
		c, err := sparql2plan.Convert(GoldPair(q))
		if err != nil {
			skipped = append(skipped, Skip{ID: q.ID, Reason: sparql2plan.FailureReason(err)})
			continue
		}
		gold := c.Plan
		if m.wording == WordingQuestion {
			gold = Reword(q, c)
		}
		plan, err := json.Marshal(gold)
		if err != nil {
			skipped = append(skipped, Skip{ID: q.ID, Reason: err.Error()})
			continue
		}
		k := textKey(q.Text)
		if _, dup := m.byText[k]; dup {
			continue
		}
		qq := &question{q: q, plan: plan, steps: map[string]sparql2plan.Step{}, answer: c.Plan.AnswerID()}
		for _, s := range c.Steps {
			qq.steps[s.ID] = s
		}
		m.byText[k] = qq
	}
	return m, skipped
}

// GoldPair is q as sparql2plan takes it: the question, its gold query,
// its source and label, and its topic entities. The oracle knows a
// question by sparql2plan's conversion of this pair, and parog sparql2plan
// hands its questions over the same way.
func GoldPair(q dataset.Question) sparql2plan.Pair {
	p := sparql2plan.Pair{ID: q.ID, Text: q.Text, SPARQL: q.SPARQL, Source: string(q.Source), Label: q.Label}
	for _, e := range q.TopicEntities {
		p.TopicEntities = append(p.TopicEntities, sparql2plan.Entity{ID: e.ID, Name: e.Name})
	}
	return p
}

// Stats returns a copy of the counts so far.
func (m *Model) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Stats{Calls: map[string]int{}, Noisy: map[string]int{}, Unrecognised: m.stats.Unrecognised, UnknownQuestion: m.stats.UnknownQuestion}
	for k, v := range m.stats.Calls {
		s.Calls[k] = v
	}
	for k, v := range m.stats.Noisy {
		s.Noisy[k] = v
	}
	return s
}

// textKey folds a question's text for lookup: the engine may trim it.
func textKey(s string) string { return strings.Join(strings.Fields(s), " ") }

// lookup finds the question a prompt is about.
func (m *Model) lookup(text string) *question { return m.byText[textKey(text)] }

// hash64 is a stable hash of the parts.
func hash64(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// Question returns what the oracle saw of question id (zero when nothing).
func (m *Model) Question(id string) QuestionStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.perQ[id]; s != nil {
		c := *s
		c.Notes = append([]string(nil), s.Notes...)
		c.Noisy = maps.Clone(s.Noisy)
		return c
	}
	return QuestionStats{}
}

// observe counts a request about q and the evidence lines it showed.
func (m *Model) observe(q *question, facts int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.entry(q)
	s.Calls++
	s.Facts += facts
}

// entry is q's stats, created when missing; m.mu is held.
func (m *Model) entry(q *question) *QuestionStats {
	s := m.perQ[q.q.ID]
	if s == nil {
		s = &QuestionStats{}
		m.perQ[q.q.ID] = s
	}
	return s
}

// note records, once, a place where the engine fell short of the gold path.
func (m *Model) note(q *question, msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.entry(q)
	if !slices.Contains(s.Notes, msg) {
		s.Notes = append(s.Notes, msg)
	}
}
