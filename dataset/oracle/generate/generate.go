// Package generate makes benchmark questions of every plan shape over a
// Freebase-style KG: conjunctions, compositions through mediator nodes,
// comparatives, superlatives, counts, time-constrained questions and
// questions about a text value.
//
// Each shape is a gold-query form taken from the benchmarks' own gold
// SPARQL (ComplexWebQuestions, GrailQA, WebQSP train; see Shapes for the
// question each follows). A question is made by walking the KG from a
// topic entity to relations and values that fit the form, writing the gold
// query, and running it on the KG: its result is the gold answer set, and
// only questions whose set is non-empty and small are kept. The text is
// rendered from the relations' readable names by a template per relation
// family, never from their ids. The same KG, options and seed give the
// same questions.
package generate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
)

// Shape names a question shape.
type Shape string

// The shapes.
const (
	// Conjunction: the values of a relation of the topic entity that
	// also hold a second fact ("which of X's films was directed by Y?").
	Conjunction Shape = "conjunction"
	// Composition: a described entity followed through a mediator node
	// ("the team in the rosters of the spouse of X").
	Composition Shape = "composition"
	// Comparative: values whose date or number is beyond a constant.
	Comparative Shape = "comparative"
	// Superlative: the value with the latest, earliest, largest or
	// smallest date or number.
	Superlative Shape = "superlative"
	// Count: how many values a relation of the topic entity has.
	Count Shape = "count"
	// Time: a mediator fact valid in a given year.
	Time Shape = "time"
	// Text: values whose attribute has a given text ("which of X's
	// districts have "State" as their type?").
	Text Shape = "text"
)

// Shapes lists every shape, in generation order. Each follows a form of
// the benchmarks' gold SPARQL:
//   - conjunction: CWQ conjunction (T r1 ?x . ?x r2 E);
//   - composition: CWQ composition (T r1 ?c . ?c r2 ?y . ?y r3 ?x, ?y a
//     mediator);
//   - comparative: CWQ comparative (T r1 ?x . ?x r2 ?num . FILTER (?num <
//     v)), dates cast as CWQ writes them;
//   - superlative: CWQ superlative (ORDER BY DESC(xsd:datetime(?num))
//     LIMIT 1, or xsd:integer / xsd:float for numbers);
//   - count: GrailQA count (SELECT (COUNT(?x0) AS ?value) over a
//     DISTINCT sub-select);
//   - time: WebQSP's time validity of a mediator (NOT EXISTS {?y from ?d}
//     || EXISTS {?y from ?d . FILTER (xsd:datetime(?d) <= end)}, and the
//     same for its end);
//   - text: CWQ's text comparison (T r1 ?x . ?x r2 ?sk0 . FILTER
//     (str(?sk0) = "Country")).
//
// A shape's draws are its own (seeded by its place in the list), so that
// a shape added at the end changed no question of the others.
var Shapes = []Shape{Conjunction, Composition, Comparative, Superlative, Count, Time, Text}

// ParseShapes reads a comma-separated list of shape and form names;
// empty means every shape of Shapes, and the word "forms" stands for
// every form of Forms.
func ParseShapes(s string) ([]Shape, error) {
	if strings.TrimSpace(s) == "" {
		return Shapes, nil
	}
	var out []Shape
	seen := map[Shape]bool{}
	for _, f := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(f))
		names := []Shape{Shape(name)}
		if name == "forms" {
			names = Forms
		}
		for _, sh := range names {
			if !slices.Contains(Shapes, sh) && !slices.Contains(Forms, sh) {
				return nil, fmt.Errorf("generate: unknown shape %q (want %s, or forms for all of %s)", f, shapeList(Shapes), shapeList(Forms))
			}
			if !seen[sh] {
				seen[sh] = true
				out = append(out, sh)
			}
		}
	}
	return out, nil
}

// shapeList joins shape names with commas.
func shapeList(shapes []Shape) string {
	names := make([]string, len(shapes))
	for i, sh := range shapes {
		names[i] = string(sh)
	}
	return strings.Join(names, ", ")
}

// Options configure Generate.
type Options struct {
	// Shapes are the shapes made (default all).
	Shapes []Shape
	// PerShape is the number of questions wanted per shape (default 200).
	PerShape int
	// Seed makes the run; the same KG, options and seed give the same
	// questions.
	Seed uint64
	// MaxAnswers bounds a kept question's answer set (default 10); the
	// most values a count counts is MaxAnswers*5.
	MaxAnswers int
	// Attempts bounds the tries per question wanted (default 60); a form
	// of Forms, whose walks fit less often, has formAttempts times as
	// many.
	Attempts int
	// Ranges maps a relation id to its range type id (from the schema's
	// fb_roles), so that text can name what a relation's values are
	// ("the persons X is directed by"); without it they are "entities".
	Ranges map[string]string
	// Progress, when set, is told each question kept.
	Progress func(Shape, int)
}

// Question is one generated question.
type Question struct {
	// ID is "gen-<shape>-<n>".
	ID string `json:"id"`
	// Shape is the shape it was made as.
	Shape Shape `json:"shape"`
	// Text is the question as a person would ask it.
	Text string `json:"question"`
	// SPARQL is the gold query.
	SPARQL string `json:"sparql"`
	// Topics are the entities the question names.
	Topics []dataset.Entity `json:"topic_entities"`
	// Answers are what the gold query returns on the KG.
	Answers []dataset.Answer `json:"answers"`
	// Function is GrailQA's function label (none, count, argmax, argmin,
	// <, >).
	Function string `json:"function"`
	// Relations are the relation ids the gold query uses, in order.
	Relations []string `json:"relations"`
	// Classes are the types of the answer (GrailQA's question node), when
	// known.
	Classes []string `json:"classes,omitempty"`
}

// Report counts what Generate did.
type Report struct {
	// Made counts the questions kept per shape; Tried the attempts.
	Made  map[Shape]int `json:"made"`
	Tried map[Shape]int `json:"tried"`
	// Queries counts the SELECTs sent to the KG.
	Queries int `json:"queries"`
}

// Generate makes questions over the KG g.
func Generate(ctx context.Context, g Selector, o Options) ([]Question, *Report, error) {
	if len(o.Shapes) == 0 {
		o.Shapes = Shapes
	}
	if o.PerShape <= 0 {
		o.PerShape = 200
	}
	if o.MaxAnswers <= 0 {
		o.MaxAnswers = 10
	}
	if o.Attempts <= 0 {
		o.Attempts = 60
	}
	r := newReader(g)
	p, err := r.pool(ctx)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Made: map[Shape]int{}, Tried: map[Shape]int{}}
	var out []Question
	st := streams(o.Shapes)
	for i, sh := range o.Shapes {
		m := &maker{r: r, pool: p, rng: rand.New(rand.NewPCG(o.Seed, st[i])),
			sides: rand.New(rand.NewPCG(o.Seed, st[i]-1+1<<32)), maxAnswers: o.MaxAnswers, seen: map[string]bool{}, ranges: o.Ranges}
		made, tries := 0, o.PerShape*o.Attempts
		if slices.Contains(Forms, sh) {
			tries *= formAttempts
		}
		for try := 0; made < o.PerShape && try < tries; try++ {
			rep.Tried[sh]++
			q, ok, err := m.make(ctx, sh)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
			made++
			if rel := answerRelation(sh, q.Relations); m.ranges[rel] != "" {
				q.Classes = []string{m.ranges[rel]}
			}
			q.ID = fmt.Sprintf("gen-%s-%d", sh, made)
			q.Shape = sh
			out = append(out, q)
			if o.Progress != nil {
				o.Progress(sh, made)
			}
		}
		rep.Made[sh] = made
	}
	rep.Queries = r.queries
	return out, rep, nil
}

// maker makes the questions of one shape.
type maker struct {
	r    *reader
	pool []kgqa.Entity
	rng  *rand.Rand
	// sides draws the time questions' before and after conditions, apart
	// from rng, so that adding them changed no other question of a seed.
	sides      *rand.Rand
	maxAnswers int
	// seen holds the gold queries already kept, so none is made twice.
	seen map[string]bool
	// ranges maps relations to their range types.
	ranges map[string]string
}

// make tries once to make a question of shape sh; ok is false when the
// walk found nothing that fits.
func (m *maker) make(ctx context.Context, sh Shape) (Question, bool, error) {
	topic, err := m.topic(ctx)
	if err != nil || topic.ID == "" {
		return Question{}, false, err
	}
	var q Question
	var ok bool
	switch sh {
	case Conjunction:
		q, ok, err = m.conjunction(ctx, topic)
	case Composition:
		q, ok, err = m.composition(ctx, topic)
	case Comparative:
		q, ok, err = m.comparative(ctx, topic)
	case Superlative:
		q, ok, err = m.superlative(ctx, topic)
	case Count:
		q, ok, err = m.count(ctx, topic)
	case Time:
		q, ok, err = m.timed(ctx, topic)
	case Text:
		q, ok, err = m.textual(ctx, topic)
	default:
		q, ok, err = m.makeForm(ctx, sh, topic)
	}
	if err != nil || !ok {
		return Question{}, false, softError(ctx, err)
	}
	if m.seen[q.SPARQL] {
		return Question{}, false, nil
	}
	m.seen[q.SPARQL] = true
	return q, true, nil
}

// softError keeps a failed query from stopping the run (a hub whose
// relations exceed the store's scan budget is passed over), but not a
// cancelled context.
func softError(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// topic draws a named entity: one of the pool, or, half the time, a named
// neighbour of it, which leans the draw towards well-connected entities
// as benchmark topics are.
func (m *maker) topic(ctx context.Context) (kgqa.Entity, error) {
	e := m.pool[m.rng.IntN(len(m.pool))]
	if m.rng.IntN(2) == 0 {
		return e, nil
	}
	rels, err := m.r.relations(ctx, e.ID)
	if err != nil || len(rels) == 0 {
		return e, softError(ctx, err)
	}
	rc := rels[m.rng.IntN(len(rels))]
	vals, err := m.r.values(ctx, e.ID, rc.rel)
	if err != nil {
		return e, softError(ctx, err)
	}
	var named []value
	for _, v := range vals {
		if v.named() {
			named = append(named, v)
		}
	}
	if len(named) == 0 {
		return e, nil
	}
	v := named[m.rng.IntN(len(named))]
	return kgqa.Entity{ID: v.id, Name: v.name}, nil
}

// answerRelation is the relation whose values a question of shape sh
// asks for ("" for a count).
func answerRelation(sh Shape, rels []string) string {
	i := map[Shape]int{Conjunction: 0, Composition: 2, Comparative: 0, Superlative: 0, Time: 1, Text: 0}
	k, ok := i[sh]
	if !ok || k >= len(rels) {
		return ""
	}
	return rels[k]
}
