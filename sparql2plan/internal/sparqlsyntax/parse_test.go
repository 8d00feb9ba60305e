package sparqlsyntax

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	ns  = "http://rdf.freebase.com/ns/"
	xsd = "http://www.w3.org/2001/XMLSchema#"
	pfx = "PREFIX ns: <http://rdf.freebase.com/ns/> PREFIX : <http://rdf.freebase.com/ns/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
)

func v(name string) Term     { return Term{Kind: KindVar, Value: name} }
func iri(s string) Term      { return Term{Kind: KindIRI, Value: s} }
func str(s string) Term      { return Term{Kind: KindLiteral, Value: s, Datatype: XSDString} }
func num(s string) Term      { return Term{Kind: KindLiteral, Value: s, Datatype: XSDInteger} }
func tr(s, p, o Term) Triple { return Triple{Subject: s, Predicate: p, Object: o} }

func mustParse(t *testing.T, q string) *Query {
	t.Helper()
	got, err := Parse(q)
	require.NoError(t, err, q)
	return got
}

// A CWQ-style query: prefixes expanded, ; and , lists, a, DISTINCT, the
// language filter and a comparison, applied around the whole group in
// the order written.
func TestParseTriplesAndFilters(t *testing.T) {
	q := mustParse(t, pfx+`SELECT DISTINCT ?x WHERE {
  # a comment ?y ns:ignored ?z .
  ns:m.03_dwn ns:a.b ?y ; ns:c.d ?x , "Ohio"@en .
  ?x a ns:film.film .
  FILTER (?x != ns:m.03_dwn)
  FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en'))
}`)
	assert.Equal(t, "SELECT", q.Form)
	assert.True(t, q.Distinct)
	assert.Equal(t, []string{"x"}, q.Vars())
	assert.Equal(t, -1, q.Limit)
	assert.Equal(t, ns, q.Prefixes["ns"])
	langFilter := &BinaryExpr{Op: "||",
		Left: &BinaryExpr{Op: "||",
			Left:  &UnaryExpr{Op: "!", Arg: &CallExpr{Name: "ISLITERAL", Args: []Expr{&VarExpr{Name: "x"}}}},
			Right: &BinaryExpr{Op: "=", Left: &CallExpr{Name: "LANG", Args: []Expr{&VarExpr{Name: "x"}}}, Right: &LiteralExpr{Value: str("")}}},
		Right: &CallExpr{Name: "LANGMATCHES", Args: []Expr{&CallExpr{Name: "LANG", Args: []Expr{&VarExpr{Name: "x"}}}, &LiteralExpr{Value: str("en")}}}}
	want := &Filter{
		Pattern: &Filter{
			Pattern: &BGP{Triples: []Triple{
				tr(iri(ns+"m.03_dwn"), iri(ns+"a.b"), v("y")),
				tr(iri(ns+"m.03_dwn"), iri(ns+"c.d"), v("x")),
				tr(iri(ns+"m.03_dwn"), iri(ns+"c.d"), Term{Kind: KindLiteral, Value: "Ohio", Lang: "en", Datatype: RDFLangString}),
				tr(v("x"), iri(RDFType), iri(ns+"film.film")),
			}},
			Expr: &BinaryExpr{Op: "!=", Left: &VarExpr{Name: "x"}, Right: &IRIExpr{IRI: ns + "m.03_dwn"}},
		},
		Expr: langFilter,
	}
	assert.Equal(t, want, q.Where)
}

// Operators bind as SPARQL says: * over +, + over comparison, comparison
// over &&, && over ||; a leading minus is a unary operator.
func TestParseExpressionPrecedence(t *testing.T) {
	q := mustParse(t, `SELECT ?a WHERE { ?a <p> ?b FILTER (?a + 2 * ?b > -3 || ?a < 1 && ?b >= 2.5) }`)
	f := q.Where.(*Filter)
	x, b := &VarExpr{Name: "a"}, &VarExpr{Name: "b"}
	want := &BinaryExpr{Op: "||",
		Left: &BinaryExpr{Op: ">",
			Left:  &BinaryExpr{Op: "+", Left: x, Right: &BinaryExpr{Op: "*", Left: &LiteralExpr{Value: num("2")}, Right: b}},
			Right: &UnaryExpr{Op: "-", Arg: &LiteralExpr{Value: num("3")}}},
		Right: &BinaryExpr{Op: "&&",
			Left:  &BinaryExpr{Op: "<", Left: x, Right: &LiteralExpr{Value: num("1")}},
			Right: &BinaryExpr{Op: ">=", Left: b, Right: &LiteralExpr{Value: Term{Kind: KindLiteral, Value: "2.5", Datatype: XSDDecimal}}}}}
	assert.Equal(t, want, f.Expr)
}

// Literals: typed with a prefixed or full datatype, long strings,
// escapes, numbers of each kind, booleans, signed numbers in triples.
func TestParseLiterals(t *testing.T) {
	q := mustParse(t, pfx+`SELECT ?x WHERE {
  ?x ns:a "2009-08-11-08:00"^^xsd:dateTime , "7"^^<http://www.w3.org/2001/XMLSchema#int> ,
     """say "hi"
""" , 'tab\there \u00e9' , 1.5e3 , -4 , +0.5 , true .
}`)
	objs := []Term{}
	for _, tp := range q.Where.(*BGP).Triples {
		objs = append(objs, tp.Object)
	}
	assert.Equal(t, []Term{
		{Kind: KindLiteral, Value: "2009-08-11-08:00", Datatype: xsd + "dateTime", Typed: true},
		{Kind: KindLiteral, Value: "7", Datatype: xsd + "int", Typed: true},
		str("say \"hi\"\n"),
		str("tab\there é"),
		{Kind: KindLiteral, Value: "1.5e3", Datatype: XSDDouble},
		num("-4"),
		{Kind: KindLiteral, Value: "+0.5", Datatype: XSDDecimal},
		{Kind: KindLiteral, Value: "true", Datatype: XSDBoolean},
	}, objs)
}

// OPTIONAL is a LeftJoin of what precedes it, BIND an Extend of it,
// UNIONs nest to the left, and MINUS, VALUES join in order.
func TestParseGroupShape(t *testing.T) {
	q := mustParse(t, `SELECT ?x WHERE {
  OPTIONAL { ?x <p> ?o }
  ?x <q> ?y .
  { ?x <r> 1 } UNION { ?x <s> 2 } UNION { ?x <t> 3 }
  BIND (str(?y) AS ?name)
  VALUES ?x { <a> <b> }
  MINUS { ?x <u> ?z }
}`)
	one := func(p string, o Term) *BGP { return &BGP{Triples: []Triple{tr(v("x"), iri(p), o)}} }
	want := &Minus{
		Left: &Join{
			Left: &Extend{
				Pattern: &Join{
					Left:  &Join{Left: &LeftJoin{Main: &BGP{}, Optional: one("p", v("o"))}, Right: one("q", v("y"))},
					Right: &Union{Left: &Union{Left: one("r", num("1")), Right: one("s", num("2"))}, Right: one("t", num("3"))},
				},
				Expr: &CallExpr{Name: "STR", Args: []Expr{&VarExpr{Name: "y"}}}, Var: "name",
			},
			Right: &Values{Vars: []string{"x"}, Rows: [][]*Term{{ptr(iri("a"))}, {ptr(iri("b"))}}},
		},
		Right: one("u", v("z")),
	}
	assert.Equal(t, want, q.Where)
}

func ptr(t Term) *Term { return &t }

// GrailQA's argmax: a projection with AS, a sub-select with an
// aggregate, and the modifiers.
func TestParseSubSelectAndModifiers(t *testing.T) {
	q := mustParse(t, pfx+`SELECT (?x0 AS ?value) WHERE {
  SELECT DISTINCT ?x0 WHERE {
    ?x0 ns:a ?n .
    { SELECT (MAX(?n2) AS ?best) WHERE { ?y ns:a ?n2 } }
  }
  GROUP BY ?x0 HAVING (COUNT(DISTINCT ?n) > 1)
  ORDER BY DESC(?n) ?x0 ASC(xsd:integer(?n))
  LIMIT 5 OFFSET 10
}`)
	assert.Equal(t, []Projection{{Var: "value", Expr: &VarExpr{Name: "x0"}}}, q.Projection)
	inner := q.Where.(*SubSelect).Query
	assert.True(t, inner.Distinct)
	assert.Equal(t, 5, inner.Limit)
	assert.Equal(t, 10, inner.Offset)
	assert.Equal(t, []GroupKey{{Expr: &VarExpr{Name: "x0"}}}, inner.GroupBy)
	assert.Equal(t, []Expr{&BinaryExpr{Op: ">", Left: &CallExpr{Name: "COUNT", Distinct: true, Args: []Expr{&VarExpr{Name: "n"}}}, Right: &LiteralExpr{Value: num("1")}}}, inner.Having)
	assert.Equal(t, []OrderKey{
		{Expr: &VarExpr{Name: "n"}, Desc: true},
		{Expr: &VarExpr{Name: "x0"}},
		{Expr: &CallExpr{Name: xsd + "integer", Args: []Expr{&VarExpr{Name: "n"}}}},
	}, inner.OrderBy)
	join := inner.Where.(*Join)
	agg := join.Right.(*SubSelect).Query
	assert.Equal(t, []Projection{{Var: "best", Expr: &CallExpr{Name: "MAX", Args: []Expr{&VarExpr{Name: "n2"}}}}}, agg.Bound())
}

// Property paths: sequences flatten, operators nest, a single IRI is a
// plain predicate.
func TestParsePaths(t *testing.T) {
	q := mustParse(t, `PREFIX wdt: <http://www.wikidata.org/prop/direct/>
SELECT ?x WHERE { ?x wdt:P31/(wdt:P279/wdt:P1)* ?c ; ^wdt:P2|!(a|^wdt:P3) ?d ; (wdt:P4) ?e ; wdt:P5? ?f }`)
	w := "http://www.wikidata.org/prop/direct/"
	ts := q.Where.(*BGP).Triples
	require.Len(t, ts, 4)
	assert.Equal(t, &PathSequence{Steps: []Path{&PathIRI{IRI: w + "P31"}, &PathRepeat{Op: '*', Path: &PathSequence{Steps: []Path{&PathIRI{IRI: w + "P279"}, &PathIRI{IRI: w + "P1"}}}}}}, ts[0].Path)
	assert.Equal(t, &PathAlternative{Choices: []Path{&PathInverse{Path: &PathIRI{IRI: w + "P2"}}, &PathNegated{IRIs: []string{RDFType}, Inverse: []string{w + "P3"}}}}, ts[1].Path)
	assert.Nil(t, ts[2].Path)
	assert.Equal(t, iri(w+"P4"), ts[2].Predicate)
	assert.Equal(t, &PathRepeat{Op: '?', Path: &PathIRI{IRI: w + "P5"}}, ts[3].Path)
}

// EXISTS, NOT EXISTS, IN and NOT IN; COUNT(*); ASK; BASE; blank nodes;
// a trailing VALUES; FROM is skipped.
func TestParseMore(t *testing.T) {
	q := mustParse(t, `BASE <http://example.org/base/> SELECT (COUNT(*) AS ?n) FROM <http://g> WHERE {
  _:b <p> [ <q> ?x ] .
  FILTER NOT EXISTS { ?x <r> ?y }
  FILTER (EXISTS { ?x <s> ?y } && ?x IN (<a>, <b>) && ?x NOT IN ())
} VALUES (?x ?y) { (<c> UNDEF) }`)
	assert.Equal(t, "http://example.org/base/", q.Base)
	assert.Equal(t, []Projection{{Var: "n", Expr: &CallExpr{Name: "COUNT", Star: true}}}, q.Projection)
	f2 := q.Where.(*Filter)
	f1 := f2.Pattern.(*Filter)
	assert.Equal(t, &ExistsExpr{Not: true, Pattern: &BGP{Triples: []Triple{tr(v("x"), iri("http://example.org/base/r"), v("y"))}}}, f1.Expr)
	assert.Equal(t, &BGP{Triples: []Triple{
		tr(Term{Kind: KindBlank, Value: "#1"}, iri("http://example.org/base/q"), v("x")),
		tr(Term{Kind: KindBlank, Value: "b"}, iri("http://example.org/base/p"), Term{Kind: KindBlank, Value: "#1"}),
	}}, f1.Pattern)
	and := f2.Expr.(*BinaryExpr)
	assert.Equal(t, &InExpr{Expr: &VarExpr{Name: "x"}, Not: true}, and.Right)
	assert.Equal(t, &InExpr{Expr: &VarExpr{Name: "x"}, List: []Expr{&IRIExpr{IRI: "http://example.org/base/a"}, &IRIExpr{IRI: "http://example.org/base/b"}}}, and.Left.(*BinaryExpr).Right)
	assert.Equal(t, &Values{Vars: []string{"x", "y"}, Rows: [][]*Term{{ptr(iri("http://example.org/base/c")), nil}}}, q.Values)

	ask := mustParse(t, `ASK { <a> <b> "c" }`)
	assert.Equal(t, "ASK", ask.Form)
	assert.Empty(t, ask.Projection)
}

// WebQSP writes HAVING without brackets, as Virtuoso accepts.
func TestParseUnbracketedHaving(t *testing.T) {
	q := mustParse(t, `SELECT ?c WHERE { ?y <h> ?c } GROUP BY ?c Having COUNT(?c) = 2`)
	assert.Equal(t, []Expr{&BinaryExpr{Op: "=", Left: &CallExpr{Name: "COUNT", Args: []Expr{&VarExpr{Name: "c"}}}, Right: &LiteralExpr{Value: num("2")}}}, q.Having)
}

// BenchmarkParse parses a GrailQA-shaped argmax query (nested SELECT,
// VALUES, an aggregate) and a CWQ-shaped one with the language filter.
func BenchmarkParse(b *testing.B) {
	queries := []string{
		pfx + `SELECT (?x0 AS ?value) WHERE { SELECT DISTINCT ?x0 WHERE { ?x0 :type.object.type :film.film . VALUES ?x1 { :m.0abc } ?x0 :film.film.directed_by ?x1 . ?x0 :film.film.runtime ?y . { SELECT (MAX(?y2) AS ?best) WHERE { ?z :film.film.runtime ?y2 } } FILTER (?y = ?best) FILTER (?x0 != ?x1) } }`,
		pfx + `SELECT DISTINCT ?x WHERE { FILTER (?x != ?c) FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en')) ?c ns:sports.sports_team.team_mascot ns:m.03_dwn . ?c ns:sports.sports_team.championships ?x . ?x ns:time.event.start_date ?sk0 . } ORDER BY DESC(xsd:dateTime(?sk0)) LIMIT 1`,
	}
	for b.Loop() {
		for _, q := range queries {
			if _, err := Parse(q); err != nil {
				b.Fatal(err)
			}
		}
	}
}
