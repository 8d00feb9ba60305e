package generate

import (
	"context"
	"slices"

	"github.com/parog/parog-go/kgqa"
)

// The benchmark forms: shapes made only when asked for by name (or all of
// them by the word "forms"), so that the shapes of Shapes keep their
// draws for a seed. Each is a form the benchmarks' questions have:
// compositions of two and three hops with and without a mediator,
// worded apart from the relation ids with varied templates; a chain
// through a set of middles; a chain constrained on its middle or its end;
// and a conjunction of three branches.
const (
	// Chain2: a plain two-hop chain with a named middle, T r1 ?c . ?c r2
	// ?x ("What is the X of the Y of Z?"), the middle one entity.
	Chain2 Shape = "chain2"
	// Chain3: a plain three-hop chain through two named middles, T r1 ?c
	// . ?c r2 ?d . ?d r3 ?x, each middle one entity.
	Chain3 Shape = "chain3"
	// MediatorChain2: a hop through a mediator, then a plain hop, T r1 ?y
	// . ?y r2 ?c . ?c r3 ?x (?y a nameless CVT node).
	MediatorChain2 Shape = "mediator-chain2"
	// MediatorChain3: a plain hop, a hop through a mediator, then a plain
	// hop, T r1 ?c . ?c r2 ?y . ?y r3 ?d . ?d r4 ?x.
	MediatorChain3 Shape = "mediator-chain3"
	// SetChain: a chain whose middle is a set of several entities, T r1
	// ?c . ?c r2 ?x, the answer the union over the middles (at least two
	// of them contribute).
	SetChain Shape = "set-chain"
	// MiddleFilter: a chain whose middle set is constrained, by a fact
	// with a given entity or by a date or number beyond a constant, T r1
	// ?c . ?c rf E . ?c r2 ?x; the constraint changes the answer.
	MiddleFilter Shape = "middle-filter"
	// EndFilter: a chain whose end is constrained the same ways, T r1 ?c
	// . ?c r2 ?x . ?x rf E; the answers a strict part of the chain's.
	EndFilter Shape = "end-filter"
	// Conjunction3: a conjunction of three branches, T r1 ?x . ?x r2 E1 .
	// ?x r3 E2, each of the two facts cutting the set.
	Conjunction3 Shape = "conjunction3"
)

// Forms lists the benchmark forms, in generation order. A form's draws
// depend on the seed and the form alone, never on which other shapes or
// forms are made with it.
var Forms = []Shape{Chain2, Chain3, MediatorChain2, MediatorChain3, SetChain, MiddleFilter, EndFilter, Conjunction3}

// formAttempts multiplies a form's tries per question wanted: its walks
// need more of the world to fit (two middles sharing a relation, a
// condition some of them meet) and fit less often than a shape's.
const formAttempts = 4

// formStream is the first random stream of the forms: the shapes of
// Shapes take the streams 1 to 7 by their place among those made.
const formStream = 1000

// streams returns the random streams of each shape of shapes: the shapes
// of Shapes numbered by their place among them (as before the forms
// existed, so their questions are unchanged), each form by its place in
// Forms.
func streams(shapes []Shape) []uint64 {
	out := make([]uint64, len(shapes))
	n := 0
	for i, sh := range shapes {
		if f := slices.Index(Forms, sh); f >= 0 {
			out[i] = formStream + uint64(f)
			continue
		}
		n++
		out[i] = uint64(n)
	}
	return out
}

// makeForm tries once to make a question of form sh from topic t; ok is
// false when sh is no form or the walk found nothing that fits.
func (m *maker) makeForm(ctx context.Context, sh Shape, t kgqa.Entity) (Question, bool, error) {
	switch sh {
	case Chain2:
		return m.chain(ctx, t, 2)
	case Chain3:
		return m.chain(ctx, t, 3)
	case MediatorChain2:
		return m.mediatorChain2(ctx, t)
	case MediatorChain3:
		return m.mediatorChain3(ctx, t)
	case SetChain:
		return m.setChain(ctx, t)
	case MiddleFilter:
		return m.middleFilter(ctx, t)
	case EndFilter:
		return m.endFilter(ctx, t)
	case Conjunction3:
		return m.conjunction3(ctx, t)
	}
	return Question{}, false, nil
}

// plainHop draws a relation of entity id, other than those in not, whose
// values are all named entities outside exclude, between lo and hi of
// them, and returns it with its values. A few relations are read at most.
func (m *maker) plainHop(ctx context.Context, id string, lo, hi int, exclude, not []string) (string, []value, bool, error) {
	rels, err := m.r.relations(ctx, id)
	if err != nil {
		return "", nil, false, err
	}
	tried := 0
	for _, i := range m.rng.Perm(len(rels)) {
		rc := rels[i]
		if rc.n < lo || rc.n > hi || slices.Contains(not, rc.rel) || tried >= 8 {
			continue
		}
		tried++
		vals, err := m.r.values(ctx, id, rc.rel)
		if err != nil {
			return "", nil, false, err
		}
		named := namedValues(vals, exclude...)
		if len(named) == len(vals) && len(named) >= lo && len(named) <= hi {
			return rc.rel, named, true, nil
		}
	}
	return "", nil, false, nil
}

// hopFrom reads rel from each of the nodes and returns the values per
// node (as the gold query's join reads them) and their union; ok is false
// when a value is not a named entity, or is the topic: the gold query
// would leave it out, so the answer would hang on that convention (and
// a relation leading back to the topic, "the aboriginal groups of T's
// reserves", asks nothing).
func (m *maker) hopFrom(ctx context.Context, nodes []value, rel, topic string) (map[string][]value, []value, bool, error) {
	per := map[string][]value{}
	seen := map[string]bool{}
	var union []value
	for _, n := range nodes {
		vals, err := m.r.values(ctx, n.id, rel)
		if err != nil {
			return nil, nil, false, err
		}
		named := namedValues(vals)
		if len(named) != len(vals) {
			return nil, nil, false, nil
		}
		for _, v := range named {
			if v.id == topic {
				return nil, nil, false, nil
			}
			per[n.id] = append(per[n.id], v)
			if !seen[v.id] {
				seen[v.id] = true
				union = append(union, v)
			}
		}
	}
	return per, union, true, nil
}

// ids is the set of the values' ids.
func ids(vs []value) map[string]bool {
	out := make(map[string]bool, len(vs))
	for _, v := range vs {
		out[v.id] = true
	}
	return out
}

// sameAnswers reports whether the gold query's result is exactly the
// values the walk expects: a store that joins or compares otherwise than
// the values read say is no ground for a gold answer.
func sameAnswers(got []kgqa.Term, want map[string]bool) bool {
	if len(got) != len(want) {
		return false
	}
	for _, t := range got {
		if !want[t.ID] {
			return false
		}
	}
	return true
}

// answerClasses names the answer's type from the relation that reaches
// it, when the schema says.
func (m *maker) answerClasses(rel string) []string {
	if c := m.ranges[rel]; c != "" {
		return []string{c}
	}
	return nil
}
