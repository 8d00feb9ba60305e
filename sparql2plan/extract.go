package sparql2plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
)

// Reasons a query fails to convert; reports count failures by them.
var (
	// ErrParse: the normalised query still does not parse.
	ErrParse = errors.New("sparql2plan: parse")
	// ErrUnsupported: the query uses a construct with no plan operation.
	ErrUnsupported = errors.New("sparql2plan: unsupported")
	// ErrShape: the query graph has a shape the builder cannot root at the
	// answer (disconnected, cyclic, no anchor).
	ErrShape = errors.New("sparql2plan: shape")
)

func unsupported(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, a...))
}

type extractor struct {
	g     *queryGraph
	subst map[string]term
	// ignored are variables that only an ignored OPTIONAL part or a BIND
	// binds, with what bound them ("OPTIONAL", "BIND").
	ignored map[string]string
	// fresh numbers the variables a property path's expansion adds.
	fresh int
}

// extract walks a parsed query into a query graph.
func extract(pq *sparqlsyntax.Query) (*queryGraph, error) {
	if pq.Form != "SELECT" {
		return nil, unsupported("%s query", pq.Form)
	}
	x := &extractor{g: newGraph(), subst: map[string]term{}, ignored: map[string]string{}}
	if err := x.query(pq, true); err != nil {
		return nil, err
	}
	x.applySubst()
	if err := x.checkIgnored(); err != nil {
		return nil, err
	}
	return x.g, nil
}

// query reads projection, WHERE and modifiers; top is false for nested
// plain sub-selects, whose projection must agree with the outer one.
func (x *extractor) query(pq *sparqlsyntax.Query, top bool) error {
	if x.g.answer == "" {
		if err := x.projection(pq); err != nil {
			return err
		}
	}
	if err := x.pattern(whereOf(pq)); err != nil {
		return err
	}
	return x.modifiers(pq)
}

func (x *extractor) projection(pq *sparqlsyntax.Query) error {
	if bound := pq.Bound(); len(bound) > 0 {
		switch e := bound[0].Expr.(type) {
		case *sparqlsyntax.VarExpr:
			x.g.answer = e.Name
			return nil
		case *sparqlsyntax.CallExpr:
			if strings.EqualFold(e.Name, "COUNT") && len(e.Args) == 1 {
				if v, ok := e.Args[0].(*sparqlsyntax.VarExpr); ok {
					x.g.answer, x.g.count = v.Name, true
					return nil
				}
			}
			return unsupported("projection %s(...)", e.Name)
		}
		return unsupported("projection expression %s", exprKind(bound[0].Expr))
	}
	if len(pq.Projection) == 0 {
		return unsupported("SELECT * has no answer variable")
	}
	x.g.answer = pq.Projection[0].Var
	return nil
}

func (x *extractor) modifiers(pq *sparqlsyntax.Query) error {
	if len(pq.OrderBy) == 0 {
		return nil
	}
	if pq.Limit <= 0 {
		x.g.notes = append(x.g.notes, "order-without-limit")
		return nil
	}
	v, ok := unwrapVar(pq.OrderBy[0].Expr)
	if !ok {
		return unsupported("ORDER BY on an expression")
	}
	order := "min"
	if pq.OrderBy[0].Desc {
		order = "max"
	}
	if pq.Offset > 0 {
		x.g.notes = append(x.g.notes, "offset")
	}
	x.g.attr(v).order = order
	return nil
}

func (x *extractor) pattern(p sparqlsyntax.Pattern) error {
	switch p := p.(type) {
	case nil:
		return nil
	case *sparqlsyntax.BGP:
		return x.bgp(p)
	case *sparqlsyntax.Join:
		if err := x.pattern(p.Left); err != nil {
			return err
		}
		return x.pattern(p.Right)
	case *sparqlsyntax.Filter:
		if err := x.pattern(p.Pattern); err != nil {
			return err
		}
		return x.filter(p.Expr)
	case *sparqlsyntax.LeftJoin:
		// OPTIONAL never removes a solution of its main pattern, so
		// dropping it keeps the answer set; checkIgnored refuses queries
		// whose answer or constraints need what only it binds.
		x.g.notes = append(x.g.notes, "optional-ignored")
		for _, v := range patternVars(p.Optional) {
			x.ignored[v] = "OPTIONAL"
		}
		return x.pattern(p.Main)
	case *sparqlsyntax.Extend:
		x.g.notes = append(x.g.notes, "bind-ignored")
		x.ignored[p.Var] = "BIND"
		return x.pattern(p.Pattern)
	case *sparqlsyntax.Values:
		return x.values(p)
	case *sparqlsyntax.Union:
		return x.union(p)
	case *sparqlsyntax.SubSelect:
		return x.subquery(p.Query)
	}
	return unsupported("pattern %s", patternKind(p))
}

// whereOf is a query's WHERE pattern joined with the VALUES block after
// its modifiers, which constrains its solutions alike.
func whereOf(q *sparqlsyntax.Query) sparqlsyntax.Pattern {
	if q.Values == nil {
		return q.Where
	}
	return &sparqlsyntax.Join{Left: q.Where, Right: q.Values}
}

// patternKind names a pattern kind that has no plan operation (MINUS,
// GRAPH, SERVICE) for a refusal.
func patternKind(p sparqlsyntax.Pattern) string {
	switch p.(type) {
	case *sparqlsyntax.Minus:
		return "MINUS"
	case *sparqlsyntax.Graph:
		return "GRAPH"
	case *sparqlsyntax.Service:
		return "SERVICE"
	case *sparqlsyntax.LeftJoin:
		return "OPTIONAL"
	case *sparqlsyntax.Extend:
		return "BIND"
	case *sparqlsyntax.SubSelect:
		return "sub-select"
	}
	return fmt.Sprintf("%T", p)
}

func (x *extractor) bgp(b *sparqlsyntax.BGP) error {
	var triples []sparqlsyntax.Triple
	for _, t := range b.Triples {
		if t.Path == nil {
			triples = append(triples, t)
			continue
		}
		chain, err := x.sequence(t)
		if err != nil {
			return err
		}
		triples = append(triples, chain...)
	}
	for _, t := range triples {
		s, p, o := resolve(t.Subject), resolve(t.Predicate), resolve(t.Object)
		if p.kind != kindEntity {
			return unsupported("variable predicate")
		}
		if statementEdge(p.value) {
			return unsupported("Wikidata statement node: p: ps: pq: with qualifiers, which no plan operation reads")
		}
		switch {
		case (p.value == "type.object.type" || p.value == rdfType) && o.kind == kindEntity:
			x.g.types[s.key()] = append(x.g.types[s.key()], o.value)
			continue
		case p.value == "common.topic.notable_types" && o.kind == kindEntity:
			x.g.types[s.key()] = append(x.g.types[s.key()], notablePrefix+o.value)
			continue
		}
		x.g.edges = append(x.g.edges, edge{s: s, rel: p.value, o: o})
	}
	return nil
}

// sequence expands a triple whose predicate is a sequence path of plain
// IRIs (p1/p2/p3, as Wikidata's wdt:P1830/wdt:P452 or p:P6/ps:P6 through a
// statement node) into the chain of triples it abbreviates, through fresh
// variables: the same solutions, so the same plan. Any other path (p*, p+,
// p?, ^p, p|q, !p) has no plan operation and is refused by its kind.
func (x *extractor) sequence(t sparqlsyntax.Triple) ([]sparqlsyntax.Triple, error) {
	seq, ok := t.Path.(*sparqlsyntax.PathSequence)
	if !ok {
		return nil, unsupported("property path with %s", pathKind(t.Path))
	}
	iris, err := sequenceIRIs(seq)
	if err != nil {
		return nil, err
	}
	// p:P/ps:P through a Wikidata statement node is the property's value,
	// what wdt:P gives for the best-ranked statements: one edge.
	if len(iris) == 2 && strings.HasPrefix(iris[0], wikidataProp) && strings.HasPrefix(iris[1], wikidataStatement) &&
		strings.TrimPrefix(iris[0], wikidataProp) == strings.TrimPrefix(iris[1], wikidataStatement) {
		iris = []string{wikidataDirect + strings.TrimPrefix(iris[0], wikidataProp)}
	}
	out := make([]sparqlsyntax.Triple, len(iris))
	subj := t.Subject
	for i, iri := range iris {
		obj := t.Object
		if i < len(iris)-1 {
			x.fresh++
			obj = sparqlsyntax.Term{Kind: sparqlsyntax.KindVar, Value: fmt.Sprintf("path_step_%d", x.fresh)}
		}
		out[i] = sparqlsyntax.Triple{Subject: subj, Predicate: sparqlsyntax.Term{Kind: sparqlsyntax.KindIRI, Value: iri}, Object: obj}
		subj = obj
	}
	return out, nil
}

// sequenceIRIs lists the IRIs of a sequence path (the parser flattens
// nested sequences: (p1/p2)/p3 is p1/p2/p3).
func sequenceIRIs(seq *sparqlsyntax.PathSequence) ([]string, error) {
	var out []string
	for _, a := range seq.Steps {
		switch a := a.(type) {
		case *sparqlsyntax.PathIRI:
			out = append(out, a.IRI)
		default:
			return nil, unsupported("property path with %s", pathKind(a))
		}
	}
	return out, nil
}

// pathKind names a property path's kind for a refusal (no "?", quote or
// parenthesis: FailureReason keeps the text before those).
func pathKind(p sparqlsyntax.Path) string {
	switch p.(type) {
	case *sparqlsyntax.PathRepeat:
		return "a repeated or optional step, a transitive closure like wdt:P31/wdt:P279*"
	case *sparqlsyntax.PathInverse:
		return "an inverse step ^p"
	case *sparqlsyntax.PathAlternative:
		return "an alternative p|q"
	case *sparqlsyntax.PathNegated:
		return "a negated step !p"
	}
	return fmt.Sprintf("%T", p)
}

// Wikidata's property namespaces: p: (to a statement node), ps: (the
// statement's value) and wdt: (the direct, truthy value).
const (
	wikidataProp      = "http://www.wikidata.org/prop/"
	wikidataStatement = "http://www.wikidata.org/prop/statement/"
	wikidataDirect    = "http://www.wikidata.org/prop/direct/"
)

// statementEdge reports whether rel leads to or from a Wikidata statement
// node (p:, ps:, pq:, and the other prop/ namespaces but wdt:). A
// statement's qualifiers (a start time on "position held") qualify the
// statement, not its subject: a plan that hops through the node as
// through an entity would ask for the start time of the person. Such
// queries are refused rather than converted wrongly; p:P/ps:P alone is
// collapsed to wdt:P before this check (see sequence).
func statementEdge(rel string) bool {
	return strings.HasPrefix(rel, wikidataProp) && !strings.HasPrefix(rel, wikidataDirect)
}

const (
	rdfType       = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	notablePrefix = "notable:"
)

// values binds a VALUES variable. One row makes the variable that
// constant. Several rows of entities make it a set of anchors, which the
// builder starts one find from ("Find the films of A or B"); several
// literal rows, or several variables, have no plan operation.
func (x *extractor) values(v *sparqlsyntax.Values) error {
	if len(v.Vars) != 1 || len(v.Rows) == 0 {
		return unsupported("VALUES with %d variables and %d rows", len(v.Vars), len(v.Rows))
	}
	name := v.Vars[0]
	var ts []term
	for _, row := range v.Rows {
		if len(row) != 1 || row[0] == nil {
			return unsupported("VALUES row with an UNDEF or several terms")
		}
		t, ok := valueTerm(row[0])
		if !ok {
			return unsupported("VALUES term")
		}
		ts = append(ts, t)
	}
	if len(ts) == 1 {
		x.subst[name] = ts[0]
		return nil
	}
	ids := make([]string, len(ts))
	for i, t := range ts {
		if t.kind != kindEntity {
			return unsupported("VALUES with several literal rows")
		}
		ids[i] = t.value
	}
	x.g.anchorSets[name] = dedupe(ids)
	return nil
}

// checkIgnored refuses a query whose answer, compared or ordered values,
// or triples use a variable that only an ignored OPTIONAL part or a BIND
// binds: dropping those parts would then change the answer. A variable
// of an OPTIONAL part that the main pattern also binds is fine (the main
// pattern binds it anyway).
func (x *extractor) checkIgnored() error {
	if len(x.ignored) == 0 {
		return nil
	}
	inTriples := map[string]bool{}
	for _, e := range x.g.edges {
		for _, t := range []term{e.s, e.o} {
			if t.kind == kindVar {
				inTriples[t.value] = true
			}
		}
	}
	for _, v := range sortedKeys(x.ignored) {
		by := x.ignored[v]
		if by == "OPTIONAL" && inTriples[v] {
			continue
		}
		switch {
		case v == x.g.answer:
			return unsupported("answer bound only by %s", by)
		case x.g.attrs[v] != nil:
			return unsupported("constraint on a value bound only by %s", by)
		case by == "BIND" && inTriples[v]:
			return unsupported("BIND value joined in a triple")
		}
	}
	return nil
}

// patternVars lists the variables of the triples in p.
func patternVars(p sparqlsyntax.Pattern) []string {
	var out []string
	add := func(t sparqlsyntax.Term) {
		if t.Kind == sparqlsyntax.KindVar {
			out = append(out, t.Value)
		}
	}
	var walk func(p sparqlsyntax.Pattern)
	walk = func(p sparqlsyntax.Pattern) {
		switch p := p.(type) {
		case *sparqlsyntax.BGP:
			for _, t := range p.Triples {
				add(t.Subject)
				add(t.Object)
			}
		case *sparqlsyntax.Join:
			walk(p.Left)
			walk(p.Right)
		case *sparqlsyntax.Filter:
			walk(p.Pattern)
		case *sparqlsyntax.LeftJoin:
			walk(p.Main)
			walk(p.Optional)
		case *sparqlsyntax.Union:
			walk(p.Left)
			walk(p.Right)
		case *sparqlsyntax.Extend:
			walk(p.Pattern)
			out = append(out, p.Var)
		}
	}
	walk(p)
	return out
}

func (x *extractor) union(u *sparqlsyntax.Union) error {
	var branches []sparqlsyntax.Pattern
	var flat func(p sparqlsyntax.Pattern)
	flat = func(p sparqlsyntax.Pattern) {
		if q, ok := p.(*sparqlsyntax.Union); ok {
			flat(q.Left)
			flat(q.Right)
			return
		}
		branches = append(branches, p)
	}
	flat(u)
	var un union
	for _, b := range branches {
		sub := &extractor{g: newGraph(), subst: map[string]term{}, ignored: x.ignored}
		sub.g.answer = x.g.answer
		if err := sub.pattern(b); err != nil {
			return err
		}
		sub.applySubst()
		if len(sub.g.attrs) > 0 || len(sub.g.unions) > 0 {
			return unsupported("constraint inside a UNION branch")
		}
		un.branches = append(un.branches, sub.g)
	}
	x.g.unions = append(x.g.unions, un)
	return nil
}

// subquery handles GrailQA's two nested SELECT forms: the plain wrapper
// around the real query, and the MAX/MIN aggregate that encodes argmax and
// argmin (its own pattern repeats the outer one and is not walked).
func (x *extractor) subquery(q *sparqlsyntax.Query) error {
	for _, pe := range q.Bound() {
		f, ok := pe.Expr.(*sparqlsyntax.CallExpr)
		if !ok {
			continue
		}
		switch strings.ToUpper(f.Name) {
		case "MAX":
			x.g.attr(pe.Var).order = "max"
			return nil
		case "MIN":
			x.g.attr(pe.Var).order = "min"
			return nil
		}
	}
	return x.query(q, false)
}

func (x *extractor) applySubst() {
	if len(x.subst) == 0 {
		return
	}
	sub := func(t term) term {
		if t.kind == kindVar {
			if c, ok := x.subst[t.value]; ok {
				return c
			}
		}
		return t
	}
	for i, e := range x.g.edges {
		x.g.edges[i].s, x.g.edges[i].o = sub(e.s), sub(e.o)
	}
	for v, c := range x.subst {
		k := "?" + v
		if ts, ok := x.g.types[k]; ok {
			x.g.types[c.key()] = append(x.g.types[c.key()], ts...)
			delete(x.g.types, k)
		}
		if cs, ok := x.g.cons[k]; ok {
			x.g.cons[c.key()] = append(x.g.cons[c.key()], cs...)
			delete(x.g.cons, k)
		}
		delete(x.g.attrs, v)
	}
}

// unwrapVar returns the variable under casts and str(): ?x,
// xsd:integer(?x), xsd:dateTime(?x), str(?x).
func unwrapVar(e sparqlsyntax.Expr) (string, bool) {
	for {
		switch f := e.(type) {
		case *sparqlsyntax.VarExpr:
			return f.Name, true
		case *sparqlsyntax.CallExpr:
			if c, ok := dateKeyOf(f); ok {
				e = c // the certificate compiler's date key of a value
				continue
			}
			if len(f.Args) != 1 || !isCastOrStr(f.Name) {
				return "", false
			}
			e = f.Args[0]
		default:
			return "", false
		}
	}
}

// dateKeyOf reads SUBSTR(CONCAT(x, "-01-01"), 1, 10), the key the
// certificate compiler compares dates of any precision by, as x.
func dateKeyOf(f *sparqlsyntax.CallExpr) (sparqlsyntax.Expr, bool) {
	if !strings.EqualFold(f.Name, "SUBSTR") || len(f.Args) != 3 {
		return nil, false
	}
	c, ok := f.Args[0].(*sparqlsyntax.CallExpr)
	if !ok || !strings.EqualFold(c.Name, "CONCAT") || len(c.Args) != 2 {
		return nil, false
	}
	return c.Args[0], true
}

func isCastOrStr(name string) bool {
	n := strings.ToLower(name)
	if n == "str" {
		return true
	}
	if i := strings.LastIndexAny(n, "#:"); i >= 0 {
		n = n[i+1:]
	}
	_, ok := xsdCasts[n]
	return ok && (strings.Contains(strings.ToLower(name), "xmlschema") || strings.HasPrefix(strings.ToLower(name), "xsd:"))
}
