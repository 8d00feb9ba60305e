package sparqlgate_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/sparql"

	"github.com/parog/parog-go/kgqa/kg/sparqlgate"
)

// rows runs query on g and renders its rows, sorted, so that two queries
// can be compared as multisets of answers.
func rows(t *testing.T, g *rdflibgo.Graph, query string) []string {
	t.Helper()
	res, err := sparql.Query(g, query)
	require.NoError(t, err, query)
	var out []string
	for _, b := range res.Bindings {
		var cells []string
		for _, v := range res.Vars {
			if val, ok := b[v]; ok {
				cells = append(cells, v+"="+val.String())
			}
		}
		out = append(out, strings.Join(cells, " "))
	}
	slices.Sort(out)
	return out
}

// The canonical text reorders a group (VALUES and sub-SELECTs first, then
// the triples in connected order); run on one graph, it answers as the
// query as written.
func TestCanonicalOrderAnswersAsWritten(t *testing.T) {
	g := rdflibgo.NewGraph()
	x := func(s string) rdflibgo.URIRef { return rdflibgo.NewURIRefUnsafe("http://x/" + s) }
	typ := x("type")
	for i := range 6 {
		u, s := x(fmt.Sprintf("unit%d", i)), x(fmt.Sprintf("system%d", i%3))
		g.Add(u, typ, x("A"))
		g.Add(s, typ, x("B"))
		g.Add(u, x("system"), s)
		g.Add(u, x("released"), rdflibgo.NewLiteral(fmt.Sprint(2000+i)))
		g.Add(s, x("weight"), x(fmt.Sprintf("gram%d", i%2)))
	}
	g.Add(x("A"), x("label"), rdflibgo.NewLiteral("units"))
	for name, query := range map[string]string{
		"GrailQA's shape":          `SELECT DISTINCT ?x0 WHERE { ?x0 <http://x/type> <http://x/A> . ?x1 <http://x/type> <http://x/B> . VALUES ?x2 { <http://x/gram1> } ?x0 <http://x/system> ?x1 . ?x1 <http://x/weight> ?x2 . FILTER(?x0 != ?x1) }`,
		"two VALUES":               `SELECT * WHERE { ?x0 <http://x/type> <http://x/A> . VALUES ?x1 { <http://x/system2> } ?x2 <http://x/type> <http://x/B> . VALUES ?x3 { <http://x/gram0> } ?x0 <http://x/system> ?x1 . ?x1 <http://x/weight> ?x3 . ?x2 <http://x/weight> ?x3 }`,
		"a superlative sub-SELECT": `SELECT ?x0 WHERE { ?x0 <http://x/type> <http://x/A> . ?x1 <http://x/type> <http://x/B> . VALUES ?x2 { <http://x/gram0> } { SELECT (MAX(?y3) AS ?x3) WHERE { ?y0 <http://x/system> ?y1 . ?y1 <http://x/weight> <http://x/gram0> . ?y0 <http://x/released> ?y3 } } ?x0 <http://x/system> ?x1 . ?x1 <http://x/weight> ?x2 . ?x0 <http://x/released> ?x3 }`,
		"a triple joined late":     `SELECT * WHERE { ?u <http://x/released> ?d . ?t <http://x/label> ?l . ?u <http://x/type> ?t }`,
	} {
		t.Run(name, func(t *testing.T) {
			q, err := sparqlgate.Parse(query)
			require.NoError(t, err)
			require.NoError(t, q.Bounded())
			require.NotEqual(t, strings.Join(strings.Fields(query), " "), q.String(), "the group is reordered")
			want := rows(t, g, query)
			require.NotEmpty(t, want)
			assert.Equal(t, want, rows(t, g, q.String()))
		})
	}
}
