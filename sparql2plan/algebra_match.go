package sparql2plan

import (
	"slices"
	"strings"
)

// maxMatchSteps bounds the search for a variable mapping between two
// conjuncts; a pair that needs more is reported as too large to compare.
const maxMatchSteps = 200_000

// SameAlgebra compares a compiled query with a gold one in normal form
// and returns "" when they are the same algebra, else the cause of the
// difference (a class, never a per-query detail, so causes group).
func SameAlgebra(gold, compiled string) string {
	norm, _ := Normalize(gold)
	g, err := normalForm(norm)
	if err != nil {
		return "gold does not normalise"
	}
	c, err := normalForm(compiled)
	if err != nil {
		return "compiled query does not normalise"
	}
	return compareAlgebra(g, c)
}

func compareAlgebra(g, c *algebra) string {
	switch {
	case len(g.opaque) > 0:
		return "gold holds " + g.opaque[0]
	case len(c.opaque) > 0:
		return "compiled holds " + c.opaque[0]
	case g.count != c.count:
		return "count differs"
	case g.order != c.order:
		return "superlative order differs"
	case len(g.branches) != len(c.branches):
		return "union branches differ"
	}
	used := make([]bool, len(c.branches))
	for _, gb := range g.branches {
		found, cause := false, ""
		for i, cb := range c.branches {
			if used[i] {
				continue
			}
			if why := matchConjunct(gb, cb); why == "" {
				used[i], found = true, true
				break
			} else if cause == "" {
				cause = why
			}
		}
		if !found {
			return cause
		}
	}
	return ""
}

// matchConjunct looks for a one-to-one renaming of c's variables onto
// g's (the distinguished ones fixed) under which both have the same
// triples, comparisons and VALUES sets; it returns "" when there is one,
// else the cause.
func matchConjunct(g, c *conjunct) string {
	switch {
	case len(c.triples) < len(g.triples):
		return "compiled has fewer triple patterns"
	case len(c.triples) > len(g.triples):
		return "compiled has more triple patterns"
	}
	if !slices.Equal(predicates(g), predicates(c)) {
		return "different relations"
	}
	if !slices.Equal(constants(g), constants(c)) {
		return "different constants (entities or values)"
	}
	m := &matcher{g: g, c: c, fwd: map[string]string{}, back: map[string]string{}, used: make([]bool, len(c.triples))}
	order := slices.Clone(g.triples)
	slices.SortStableFunc(order, func(a, b [3]string) int { return vars(a) - vars(b) })
	m.order = order
	if m.triples(0) {
		return ""
	}
	switch {
	case m.steps > maxMatchSteps:
		return "too large to compare"
	case m.triplesOK:
		return m.rest
	}
	return "same relations, different joins or directions"
}

func predicates(c *conjunct) []string {
	var ps []string
	for _, t := range c.triples {
		ps = append(ps, t[1])
	}
	slices.Sort(ps)
	return ps
}

// constants are the subject and object constants of c's triples.
func constants(c *conjunct) []string {
	var cs []string
	for _, t := range c.triples {
		for _, x := range []string{t[0], t[2]} {
			if !strings.HasPrefix(x, "?") {
				cs = append(cs, x)
			}
		}
	}
	slices.Sort(cs)
	return cs
}

func vars(t [3]string) int {
	n := 0
	for _, x := range t {
		if isFreeVar(x) {
			n++
		}
	}
	return n
}

// isFreeVar reports whether x is a variable a renaming may move.
func isFreeVar(x string) bool { return strings.HasPrefix(x, "?") && x != ansVar && x != ordVar }

type matcher struct {
	g, c      *conjunct
	order     [][3]string
	fwd, back map[string]string // gold variable <-> compiled variable
	used      []bool
	steps     int
	triplesOK bool   // some mapping matched every triple
	rest      string // why the comparisons or VALUES then differed
}

// triples maps the gold triples from i on onto unused compiled ones.
func (m *matcher) triples(i int) bool {
	m.steps++
	if m.steps > maxMatchSteps {
		return false
	}
	if i == len(m.order) {
		m.triplesOK = true
		if why := m.others(); why != "" {
			m.rest = why
			return false
		}
		return true
	}
	gt := m.order[i]
	for j, ct := range m.c.triples {
		if m.used[j] {
			continue
		}
		var added []string
		ok := true
		for k := 0; k < 3 && ok; k++ {
			ok, added = m.bind(gt[k], ct[k], added)
		}
		if ok {
			m.used[j] = true
			if m.triples(i + 1) {
				return true
			}
			m.used[j] = false
		}
		for _, v := range added {
			delete(m.back, m.fwd[v])
			delete(m.fwd, v)
		}
	}
	return false
}

// bind maps gold term a onto compiled term b, recording new bindings.
func (m *matcher) bind(a, b string, added []string) (bool, []string) {
	if !isFreeVar(a) || !isFreeVar(b) {
		return a == b, added
	}
	if x, ok := m.fwd[a]; ok {
		return x == b, added
	}
	if _, ok := m.back[b]; ok {
		return false, added
	}
	m.fwd[a], m.back[b] = b, a
	return true, append(added, a)
}

// others checks comparisons and VALUES under the current mapping.
func (m *matcher) others() string {
	mapped := func(x string) string {
		if y, ok := m.fwd[x]; ok {
			return y
		}
		return x
	}
	var gf [][3]string
	for _, f := range m.g.filters {
		gf = append(gf, [3]string{mapped(f[0]), f[1], mapped(f[2])})
	}
	slices.SortFunc(gf, func(a, b [3]string) int { return strings.Compare(strings.Join(a[:], " "), strings.Join(b[:], " ")) })
	if !slices.Equal(gf, m.c.filters) {
		return "comparisons differ"
	}
	if len(m.g.values) != len(m.c.values) {
		return "VALUES sets differ"
	}
	for k, v := range m.g.values {
		if m.c.values[mapped(k)] != v {
			return "VALUES sets differ"
		}
	}
	return ""
}
