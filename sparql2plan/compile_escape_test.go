package sparql2plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
	"github.com/parog/parog-go/sparql2plan"
	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
)

// TestTextConstantsStayConstants: a text value, a literal anchor and a
// mediator's literal condition are printed escaped, so that what a model
// or a gold query wrote comes back from the parser as the one constant it
// was, with nothing added to the query; a datatype or language tag that
// fits no grammar is refused. (It lives here, not beside the compiler,
// because the parser is sparql2plan's own.)
func TestTextConstantsStayConstants(t *testing.T) {
	d := sparql2plan.Freebase
	hop := compile.Hop{Relation: "base.biblioness.bibs_location.loc_type", Dir: kgqa.Out}
	anchor := compile.Node{ID: "s1", Op: kgqa.OpFind, Anchors: []string{"m.03st9j"}, Paths: []compile.Path{{{Relation: "location.location.containedby", Dir: kgqa.Out}}}}
	for _, text := range []string{"Country", `Cou"ntry`, `a\b`, "two\nlines", `x") } SERVICE <http://evil> { ?s ?p ?o } FILTER("`, "Zürich"} {
		queries := map[string]*compile.Query{
			"text filter": {Answer: "s2", Nodes: []compile.Node{anchor,
				{ID: "s2", Op: kgqa.OpFilter, Needs: []string{"s1"}, Attribute: []compile.Path{{hop}}, Kind: compile.KindText, Cmp: "=", Value: text}}},
			"contains": {Answer: "s2", Nodes: []compile.Node{anchor,
				{ID: "s2", Op: kgqa.OpFilter, Needs: []string{"s1"}, Attribute: []compile.Path{{hop}}, Kind: compile.KindText, Cmp: compile.CmpContains, Value: text}}},
			"literal filter": {Answer: "s2", Nodes: []compile.Node{anchor,
				{ID: "s2", Op: kgqa.OpFilter, Needs: []string{"s1"}, Attribute: []compile.Path{{hop}}, Kind: compile.KindTerm, Datatype: "@en", Value: text}}},
			"literal anchor": {Answer: "s1", Nodes: []compile.Node{
				{ID: "s1", Op: kgqa.OpFind, Value: text, Kind: compile.KindText, Paths: []compile.Path{{{Relation: "common.topic.alias", Dir: kgqa.In}}}}}},
		}
		for name, q := range queries {
			t.Run(name, func(t *testing.T) {
				out, err := compile.Compile(q, d)
				require.NoError(t, err)
				pq, err := sparqlsyntax.Parse(out)
				require.NoError(t, err, out)
				assert.Equal(t, []string{text}, literals(pq.Where), out)
			})
		}
	}
	for _, dt := range []string{"en-", "@e n", "@en\"", "date time", "xsd:date"} {
		q := &compile.Query{Answer: "s2", Nodes: []compile.Node{anchor,
			{ID: "s2", Op: kgqa.OpFilter, Needs: []string{"s1"}, Attribute: []compile.Path{{hop}}, Kind: compile.KindTerm, Datatype: dt, Value: "x"}}}
		_, err := compile.Compile(q, d)
		assert.ErrorIs(t, err, compile.ErrInvalid, dt)
	}
}

// literals lists the literal constants of a pattern's filters and
// triples' objects that are not IRIs or variables.
func literals(p sparqlsyntax.Pattern) []string {
	var out []string
	var expr func(e sparqlsyntax.Expr)
	expr = func(e sparqlsyntax.Expr) {
		switch e := e.(type) {
		case *sparqlsyntax.LiteralExpr:
			out = append(out, e.Value.Value)
		case *sparqlsyntax.BinaryExpr:
			expr(e.Left)
			expr(e.Right)
		case *sparqlsyntax.CallExpr:
			for _, a := range e.Args {
				expr(a)
			}
		}
	}
	var walk func(p sparqlsyntax.Pattern)
	walk = func(p sparqlsyntax.Pattern) {
		switch p := p.(type) {
		case *sparqlsyntax.BGP:
			for _, t := range p.Triples {
				if t.Object.Kind == sparqlsyntax.KindLiteral {
					out = append(out, t.Object.Value)
				}
			}
		case *sparqlsyntax.Join:
			walk(p.Left)
			walk(p.Right)
		case *sparqlsyntax.Filter:
			walk(p.Pattern)
			expr(p.Expr)
		case *sparqlsyntax.Union:
			walk(p.Left)
			walk(p.Right)
		}
	}
	walk(p)
	return out
}
