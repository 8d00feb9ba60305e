package densify

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

const typeProp = "type.object.type"

// generator makes the synthetic facts, one real entity at a time, in a
// fixed order, so that a seed gives the same world every time.
type generator struct {
	s    *Schema
	sl   *slice
	w    *shardWriter
	seed uint64
	// created marks the pool entities already written.
	created map[uint64]bool
	// incidental are the topic types a hub may take on beyond those its
	// real relations imply, as Freebase's hubs carry dozens of types.
	incidental []*Type

	fresh, synthetic, mediators, typeTriples int64
}

// candidate is a property a real entity may get facts of, out (the
// entity is the subject) or in (the object).
type candidate struct {
	p   *Property
	out bool
}

// tally counts a real entity's facts and distinct relations.
type tally struct {
	facts int64
	rels  map[string]bool
}

func (t *tally) add(rel string) { t.facts++; t.rels[rel] = true }

func newGenerator(s *Schema, sl *slice, w *shardWriter, seed uint64) *generator {
	g := &generator{s: s, sl: sl, w: w, seed: seed, created: map[uint64]bool{}}
	for _, t := range s.order {
		if !t.Mediator && !Skipped(t.ID) && t.Count > 0 && len(g.candidates([]*Type{t}, nil)) > 0 {
			g.incidental = append(g.incidental, t)
		}
	}
	return g
}

func iri(id string) string { return "<" + NS + id + ">" }

// closed reports whether p is a relation of the slice (or the reverse of
// one): real entities never get synthetic facts of those.
func (g *generator) closed(p *Property) bool {
	return g.sl.used[p.ID] || (p.Reverse != "" && g.sl.used[p.Reverse])
}

// objectType is the type of a property's entity values, or nil when they
// are literals or of a type densify does not make.
func (g *generator) objectType(id string) *Type {
	if Skipped(id) {
		return nil
	}
	return g.s.Types[id]
}

// candidates lists the properties open to an entity of the given types.
func (g *generator) candidates(types []*Type, seen map[string]bool) []candidate {
	var out []candidate
	add := func(c candidate, key string) {
		if seen != nil {
			if seen[key] {
				return
			}
			seen[key] = true
		}
		out = append(out, c)
	}
	for _, t := range types {
		for _, p := range t.Out {
			if Skipped(p.ID) || g.closed(p) || (!p.Literal() && g.objectType(p.Range) == nil) {
				continue
			}
			add(candidate{p, true}, "+"+p.ID)
		}
		for _, p := range t.In {
			if Skipped(p.ID) || g.closed(p) || g.objectType(p.Domain) == nil {
				continue
			}
			// (x, p, e) is (e, reverse, x): one candidate, not two,
			// or a single-valued reverse would get two values.
			key := "-" + p.ID
			if p.Reverse != "" {
				key = "+" + p.Reverse
			}
			add(candidate{p, false}, key)
		}
	}
	return out
}

// typesOf lists the known types an entity's real relations imply, with
// their supertypes, by id.
func (g *generator) typesOf(e *entity) []*Type {
	seen := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		t := g.s.Types[id]
		if seen[id] || t == nil {
			return
		}
		seen[id] = true
		for _, sup := range t.Super {
			walk(sup)
		}
	}
	for id := range e.types {
		walk(id)
	}
	var ts []*Type
	for id := range seen {
		if !Skipped(id) && !g.s.Types[id].Mediator {
			ts = append(ts, g.s.Types[id])
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].ID < ts[j].ID })
	return ts
}

// densify writes a real entity's types and about budget synthetic triples
// around it, and returns its tally.
func (g *generator) densify(e *entity, budget int64) (Hub, error) {
	r := newRand(g.seed, e.id)
	st := &tally{facts: int64(e.degree), rels: make(map[string]bool, len(e.rels))}
	for k := range e.rels {
		st.rels[k] = true
	}
	start := g.w.total
	types := g.typesOf(e)
	seen := map[string]bool{}
	cands := g.candidates(types, seen)
	want := int(min(max(budget/25, 3), 3000))
	if len(cands) < want && budget > 0 {
		extra, more := g.incidentalTypes(r, types, seen, want-len(cands))
		types, cands = append(types, extra...), append(cands, more...)
	}
	for _, t := range types {
		if err := g.w.triple(e.id, typeProp, iri(t.ID)); err != nil {
			return Hub{}, err
		}
		g.typeTriples++
	}
	if budget <= 0 {
		return Hub{ID: e.id, Relations: len(st.rels), Facts: st.facts}, nil
	}
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	chosen := cands[:min(want, len(cands))]
	picked := map[string]bool{}
	for _, c := range chosen {
		if err := g.fact(r, e, c, st, picked); err != nil {
			return Hub{}, err
		}
	}
	if err := g.fanOut(r, e, chosen, st, picked, start, budget); err != nil {
		return Hub{}, err
	}
	return Hub{ID: e.id, Relations: len(st.rels), Facts: st.facts}, nil
}

// incidentalTypes adds topic types to a hub until it has about n more
// open properties: types of its own domains first, then any.
func (g *generator) incidentalTypes(r *rand.Rand, have []*Type, seen map[string]bool, n int) ([]*Type, []candidate) {
	domains, has := map[string]bool{}, map[string]bool{}
	for _, t := range have {
		domains[strings.SplitN(t.ID, ".", 2)[0]] = true
		has[t.ID] = true
	}
	perm := r.Perm(len(g.incidental))
	var types []*Type
	var cands []candidate
	for pass := 0; pass < 2 && len(cands) < n; pass++ {
		for _, i := range perm {
			t := g.incidental[i]
			same := domains[strings.SplitN(t.ID, ".", 2)[0]]
			if has[t.ID] || same != (pass == 0) {
				continue
			}
			has[t.ID] = true
			types = append(types, t)
			cands = append(cands, g.candidates([]*Type{t}, seen)...)
			if len(cands) >= n {
				break
			}
		}
	}
	return types, cands
}

// single reports whether c may hold one fact at most at the real entity.
func (g *generator) single(c candidate) bool {
	if c.out {
		return c.p.Unique
	}
	rp := g.s.Props[c.p.Reverse]
	return rp != nil && rp.Unique
}

// fanOut spends the rest of the budget on the multi-valued candidates,
// in proportion to the size of the type at the other end (a country has
// far more cities than official languages) times a Pareto draw, so that
// a few relations carry most of the facts.
func (g *generator) fanOut(r *rand.Rand, e *entity, chosen []candidate, st *tally, picked map[string]bool, start, budget int64) error {
	spent := g.w.total - start
	if spent >= budget || len(chosen) == 0 {
		return nil
	}
	cost := max(float64(spent)/float64(len(chosen)), 1)
	var multi []candidate
	var weights []float64
	var sum float64
	for _, c := range chosen {
		if g.single(c) {
			continue
		}
		other := int64(10)
		if t := g.objectType(c.p.Range); c.out && t != nil {
			other = t.Count
		} else if !c.out {
			other = g.s.Types[c.p.Domain].Count
		}
		w := math.Log10(float64(other)+10) * min(math.Pow(1-r.Float64(), -1/1.2), 1000)
		multi, weights, sum = append(multi, c), append(weights, w), sum+w
	}
	// The cost of a fact falls as the pools fill, so spend in rounds
	// until the budget is met.
	for round := 0; round < 4; round++ {
		spent = g.w.total - start
		if spent >= budget {
			return nil
		}
		facts := float64(budget-spent) / cost
		for i, c := range multi {
			for n := int(facts * weights[i] / sum); n > 0; n-- {
				if g.w.total-start >= budget {
					return nil
				}
				if err := g.fact(r, e, c, st, picked); err != nil {
					return err
				}
			}
		}
		if done := g.w.total - start - spent; done > 0 && facts >= 1 {
			cost = max(float64(done)/facts, 1)
		} else {
			return nil
		}
	}
	return nil
}

// fact writes one synthetic fact of candidate c at real entity e, with
// its reverse and whatever new node it needs.
func (g *generator) fact(r *rand.Rand, e *entity, c candidate, st *tally, picked map[string]bool) error {
	p := c.p
	if c.out && p.Literal() {
		st.add("+" + p.ID)
		return g.w.triple(e.id, p.ID, literal(r, g.seed, p))
	}
	other, uniqueThere := p.Range, p.Reverse != "" && g.s.Props[p.Reverse].Unique
	if !c.out {
		other, uniqueThere = p.Domain, p.Unique
	}
	t := g.s.Types[other]
	var n string
	var err error
	switch {
	case t.Mediator:
		n, err = g.mediator(r, t, p.ID)
	default:
		n, err = g.pick(r, t, uniqueThere, p.ID, picked)
	}
	if err != nil {
		return err
	}
	s, o, fwd, back := e.id, n, "+", "-"
	if !c.out {
		s, o, fwd, back = n, e.id, "-", "+"
	}
	st.add(fwd + p.ID)
	if err := g.w.triple(s, p.ID, iri(o)); err != nil {
		return err
	}
	if p.Reverse == "" {
		return nil
	}
	st.add(back + p.Reverse)
	return g.w.triple(o, p.Reverse, iri(s))
}

// poolSize is how many distinct synthetic instances of t are drawn from:
// a share of its real instance count, so that a country's people are
// many and its languages few.
func poolSize(t *Type) int {
	return int(min(max(t.Count/40, 20), 150_000))
}

// pick returns a synthetic instance of t: a fresh one when the link must
// be its only one (a single-valued property on its side), else one of
// t's pool, the low ids likelier (a few synthetic entities are popular).
func (g *generator) pick(r *rand.Rand, t *Type, fresh bool, prop string, picked map[string]bool) (string, error) {
	if !fresh {
		size := poolSize(t)
		i := int(float64(size) * math.Pow(r.Float64(), 2.5))
		id := "m.dzp" + strconv.FormatInt(int64(t.index), 36) + "_" + strconv.FormatInt(int64(i), 36)
		if key := prop + " " + id; !picked[key] {
			picked[key] = true
			k := uint64(t.index)<<32 | uint64(i)
			if !g.created[k] {
				g.created[k] = true
				return id, g.entity(id, t)
			}
			return id, nil
		}
	}
	g.fresh++
	id := "m.dzf" + strconv.FormatInt(g.fresh, 36)
	return id, g.entity(id, t)
}

// entity writes a synthetic entity: its name, its type and up to two
// literal facts of the type, drawn from the entity's own id so that a
// pool entity is the same whoever meets it first.
func (g *generator) entity(id string, t *Type) error {
	g.synthetic++
	r := newRand(g.seed, id)
	if err := g.w.triple(id, nameProp, `"`+name(r, t.ID)+`"@en`); err != nil {
		return err
	}
	if err := g.w.triple(id, typeProp, iri(t.ID)); err != nil {
		return err
	}
	var lits []*Property
	for _, p := range t.Out {
		if p.Literal() && !Skipped(p.ID) {
			lits = append(lits, p)
		}
	}
	for _, i := range r.Perm(len(lits))[:min(2, len(lits))] {
		if err := g.w.triple(id, lits[i].ID, literal(r, g.seed, lits[i])); err != nil {
			return err
		}
	}
	return nil
}

// mediator writes a fresh mediator (CVT) node of type t, unnamed as in
// Freebase, with up to three of its other properties filled.
func (g *generator) mediator(r *rand.Rand, t *Type, via string) (string, error) {
	g.mediators++
	id := "m.dzc" + strconv.FormatInt(g.mediators, 36)
	if err := g.w.triple(id, typeProp, iri(t.ID)); err != nil {
		return "", err
	}
	skip := map[string]bool{via: true}
	if p := g.s.Props[via]; p != nil && p.Reverse != "" {
		skip[p.Reverse] = true
	}
	var props []*Property
	for _, q := range t.Out {
		if skip[q.ID] || Skipped(q.ID) {
			continue
		}
		if ot := g.objectType(q.Range); q.Literal() || (ot != nil && !ot.Mediator) {
			props = append(props, q)
		}
	}
	for _, i := range r.Perm(len(props))[:min(3, len(props))] {
		q := props[i]
		if q.Literal() {
			if err := g.w.triple(id, q.ID, literal(r, g.seed, q)); err != nil {
				return "", err
			}
			continue
		}
		rq := g.s.Props[q.Reverse]
		y, err := g.pick(r, g.s.Types[q.Range], rq != nil && rq.Unique, q.ID, map[string]bool{})
		if err != nil {
			return "", err
		}
		if err := g.w.triple(id, q.ID, iri(y)); err != nil {
			return "", err
		}
		if rq != nil {
			if err := g.w.triple(y, rq.ID, iri(id)); err != nil {
				return "", err
			}
		}
	}
	return id, nil
}
