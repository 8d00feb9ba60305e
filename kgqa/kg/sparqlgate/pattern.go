package sparqlgate

import (
	"fmt"

	"github.com/tggo/goRDFlib/paths"
	"github.com/tggo/goRDFlib/sparql"
)

// group writes a group graph pattern in braces.
func (w *writer) group(p sparql.Pattern) {
	w.str("{ ")
	w.elements(p)
	w.str("}")
}

// elements writes the contents of a group. The parser builds a group left
// to right: OPTIONAL, MINUS, BIND and joins take the group so far as their
// left side, and the group's FILTERs wrap the whole of it.
func (w *writer) elements(p sparql.Pattern) {
	if w.err != nil {
		return
	}
	switch p := p.(type) {
	case nil:
	case *sparql.BGP:
		for _, t := range connectedOrder(p.Triples, nil) {
			w.triple(t)
		}
	case *sparql.JoinPattern:
		if values, triples, ok := joinChain(p, nil, nil); ok {
			w.chain(values, triples)
			return
		}
		if _, ok := p.Left.(*sparql.FilterPattern); ok {
			// A FILTER that does not wrap the whole group came from a
			// nested group; keep its scope.
			w.group(p.Left)
			w.str(" ")
		} else {
			w.elements(p.Left)
		}
		w.joined(p.Right)
	case *sparql.OptionalPattern:
		w.leftThen(p.Main, "OPTIONAL ", p.Optional)
	case *sparql.MinusPattern:
		w.leftThen(p.Left, "MINUS ", p.Right)
	case *sparql.BindPattern:
		w.elements(p.Pattern)
		w.str("BIND(")
		w.expr(p.Expr)
		w.str(" AS ")
		w.variable(p.Var)
		w.str(") ")
	case *sparql.FilterPattern:
		w.elements(p.Pattern)
		w.str("FILTER(")
		w.expr(p.Expr)
		w.str(") ")
	default:
		w.joined(p)
	}
}

// leftThen writes the group so far, then keyword and a group.
func (w *writer) leftThen(left sparql.Pattern, keyword string, right sparql.Pattern) {
	w.elements(left)
	w.str(keyword)
	w.group(right)
	w.str(" ")
}

// joined writes a pattern that is joined to the group so far.
func (w *writer) joined(p sparql.Pattern) {
	switch p := p.(type) {
	case *sparql.BGP:
		w.elements(p)
	case *sparql.UnionPattern:
		w.union(p)
		w.str(" ")
	case *sparql.ValuesPattern:
		w.values(p)
	case *sparql.SubqueryPattern:
		w.str("{ ")
		w.query(p.Query, false)
		w.str(" } ")
	case *sparql.GraphPattern:
		w.str("GRAPH ")
		w.graphName(p.Name)
		w.str(" ")
		w.group(p.Pattern)
		w.str(" ")
	case *sparql.JoinPattern, *sparql.OptionalPattern, *sparql.MinusPattern,
		*sparql.BindPattern, *sparql.FilterPattern:
		w.group(p)
		w.str(" ")
	default:
		w.fail("unsupported pattern %T", p)
	}
}

func (w *writer) union(p *sparql.UnionPattern) {
	if l, ok := p.Left.(*sparql.UnionPattern); ok {
		w.union(l)
	} else {
		w.group(p.Left)
	}
	w.str(" UNION ")
	w.group(p.Right)
}

func (w *writer) graphName(name string) {
	t, err := w.token(name)
	if err != nil {
		w.fail("GRAPH %s: %v", name, err)
		return
	}
	if t[0] != '?' && t[0] != '<' {
		w.fail("GRAPH takes an IRI or a variable")
		return
	}
	w.str(t)
}

func (w *writer) values(p *sparql.ValuesPattern) {
	w.str("VALUES (")
	for i, v := range p.Vars {
		if i > 0 {
			w.str(" ")
		}
		w.variable(v)
	}
	w.str(") {")
	for _, row := range p.Values {
		if len(row) != len(p.Vars) {
			w.fail("a VALUES row has %d values for %d variables", len(row), len(p.Vars))
			return
		}
		w.str(" (")
		for i, t := range row {
			if i > 0 {
				w.str(" ")
			}
			if t == nil {
				w.str("UNDEF")
				continue
			}
			w.rdfTerm(t)
		}
		w.str(")")
	}
	w.str(" } ")
}

func (w *writer) triple(t sparql.Triple) {
	w.term(t.Subject)
	w.str(" ")
	switch {
	case t.PredicatePath != nil:
		w.path(t.PredicatePath)
	case t.Predicate == "":
		w.fail("a triple pattern has no predicate")
	default:
		w.term(t.Predicate)
	}
	w.str(" ")
	w.term(t.Object)
	w.str(" . ")
}

func (w *writer) term(tok string) {
	t, err := w.token(tok)
	if err != nil {
		w.fail("%v", err)
		return
	}
	w.str(t)
}

// path writes a property path, bracketing every compound part.
func (w *writer) path(p paths.Path) {
	switch p := p.(type) {
	case paths.URIRefPath:
		w.iri(p.URI.Value())
	case *paths.URIRefPath:
		w.iri(p.URI.Value())
	case *paths.InvPath:
		w.str("^(")
		w.path(p.Arg)
		w.str(")")
	case *paths.SequencePath:
		w.pathList(p.Args, "/")
	case *paths.AlternativePath:
		w.pathList(p.Args, "|")
	case *paths.MulPath:
		w.str("(")
		w.path(p.Path)
		w.str(")")
		switch {
		case p.Zero && p.More:
			w.str("*")
		case p.More:
			w.str("+")
		case p.Zero:
			w.str("?")
		}
	case *paths.NegatedPath:
		w.str("!(")
		for i, u := range p.Excluded {
			if i > 0 {
				w.str("|")
			}
			w.iri(u.Value())
		}
		w.str(")")
	default:
		w.fail("unsupported property path %s", fmt.Sprintf("%T", p))
	}
}

func (w *writer) pathList(ps []paths.Path, sep string) {
	if len(ps) == 0 {
		w.fail("an empty property path")
		return
	}
	w.str("(")
	for i, a := range ps {
		if i > 0 {
			w.str(sep)
		}
		w.path(a)
	}
	w.str(")")
}

// joinChain flattens a join of basic graph patterns, VALUES blocks and
// sub-SELECTs (the triples of a group with VALUES between them, as GrailQA
// writes its topic entities and its superlatives) into the blocks and
// sub-SELECTs, in their order, and the triples; ok is false when the join
// holds any other pattern.
func joinChain(p sparql.Pattern, heads []sparql.Pattern, triples []sparql.Triple) ([]sparql.Pattern, []sparql.Triple, bool) {
	switch p := p.(type) {
	case *sparql.BGP:
		return heads, append(triples, p.Triples...), true
	case *sparql.ValuesPattern, *sparql.SubqueryPattern:
		return append(heads, p), triples, true
	case *sparql.JoinPattern:
		heads, triples, ok := joinChain(p.Left, heads, triples)
		if !ok {
			return nil, nil, false
		}
		return joinChain(p.Right, heads, triples)
	}
	return nil, nil, false
}

// chain writes a flattened join: the VALUES blocks and sub-SELECTs first,
// then the triples in connected order from the variables those bind. Join
// is commutative and associative, and a basic graph pattern is a set of
// triples, so the order changes no answer; it changes how goRDFlib
// evaluates the group, left to right, each part with the bindings of those
// before it. Written as GrailQA writes it
// (?x0 type A . ?x1 type B . VALUES ?x2 {…} ?x0 r ?x1 . ?x1 s ?x2), the
// first two triples would pair every A with every B.
func (w *writer) chain(heads []sparql.Pattern, triples []sparql.Triple) {
	bound := map[string]bool{}
	for _, h := range heads {
		w.joined(h)
		vars(h, bound)
	}
	for _, t := range connectedOrder(triples, bound) {
		w.triple(t)
	}
}

// connectedOrder orders triples so that each shares a variable with those
// before it (or with bound) where any remaining one does: it takes the
// first remaining triple that does, or the first remaining one when none
// does. An order it made is kept as it is, so the canonical text reads
// back as itself.
func connectedOrder(triples []sparql.Triple, bound map[string]bool) []sparql.Triple {
	if len(triples) < 2 {
		return triples
	}
	seen := make(map[string]bool, len(bound))
	for v := range bound {
		seen[v] = true
	}
	rest := append([]sparql.Triple(nil), triples...)
	out := make([]sparql.Triple, 0, len(triples))
	for len(rest) > 0 {
		next := 0
		for i, t := range rest {
			if sharesVar(t, seen) {
				next = i
				break
			}
		}
		t := rest[next]
		out = append(out, t)
		rest = append(rest[:next], rest[next+1:]...)
		for _, v := range tripleVars(t) {
			seen[v] = true
		}
	}
	return out
}

func sharesVar(t sparql.Triple, seen map[string]bool) bool {
	for _, v := range tripleVars(t) {
		if seen[v] {
			return true
		}
	}
	return false
}
