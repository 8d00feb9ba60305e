package sparqlgate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/sparqlgate"
	"github.com/parog/parog-go/sparql2plan"
)

// concatChain is the probe's query that grew Virtuoso to 9.9 GB: n
// chained BIND(CONCAT(?vi, ?vi) AS ?vi+1), each doubling the string.
func concatChain(n int) string {
	var b strings.Builder
	b.WriteString(`SELECT ?v` + fmt.Sprint(n) + ` WHERE { BIND("aaaaaaaaaaaaaaaa" AS ?v0) `)
	for i := range n {
		fmt.Fprintf(&b, "BIND(CONCAT(?v%d, ?v%d) AS ?v%d) ", i, i, i+1)
	}
	b.WriteString("}")
	return b.String()
}

func nested(fn string, depth int) string {
	return strings.Repeat(fn+"(", depth) + "?o" + strings.Repeat(")", depth)
}

func TestParseRefusesCostlyExpressions(t *testing.T) {
	calls := make([]string, 100)
	for i := range calls {
		calls[i] = "STRLEN(?o) > " + fmt.Sprint(i)
	}
	bindChain := `SELECT * WHERE { ?s ?p ?b0 `
	for i := range 20 {
		bindChain += fmt.Sprintf("BIND(STRLEN(STR(?b%d)) AS ?b%d) ", i, i+1)
	}
	bindChain += "}"
	tests := []struct {
		name, in, why string
	}{
		{"the probe's CONCAT chain", concatChain(24), "longer"},
		{"a REPLACE that multiplies", `SELECT * WHERE { ?s ?p ?o BIND(REPLACE(REPLACE(REPLACE(?o, "", ?o), "", ?o), "", ?o) AS ?x) }`, "longer"},
		{"ENCODE_FOR_URI chain", `SELECT * WHERE { ?s ?p ?o BIND(` + nested("ENCODE_FOR_URI", 6) + ` AS ?x) }`, "longer"},
		{"one CONCAT of many copies", `SELECT * WHERE { ?s ?p ?o BIND(CONCAT(` + strings.Repeat("?o, ", 99) + `?o) AS ?x) }`, "longer"},
		{"deep nesting", `SELECT * WHERE { ?s ?p ?o FILTER(` + nested("ABS", 40) + ` > 1) }`, "nested"},
		{"many calls", `SELECT * WHERE { ?s ?p ?o FILTER(` + strings.Join(calls, " || ") + `) }`, "function calls"},
		{"a long BIND chain", bindChain, "BIND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := sparqlgate.Parse(tt.in)
			require.Error(t, err, "accepted as %v", q)
			assert.ErrorIs(t, err, sparqlgate.ErrRefused)
			assert.Contains(t, err.Error(), tt.why)
		})
	}
}

func TestParseAcceptsModestExpressions(t *testing.T) {
	for name, in := range map[string]string{
		"a short CONCAT chain": concatChain(3),
		"label filters":        `SELECT * WHERE { ?s ?p ?o FILTER(!isLiteral(?o) || lang(?o) = '' || langMatches(lang(?o), 'en')) BIND(CONCAT(STR(?s), " ", UCASE(?o)) AS ?x) }`,
		"a long IN list":       `SELECT * WHERE { ?s ?p ?o FILTER(?o IN (` + strings.TrimSuffix(strings.Repeat(`"a", `, 200), ", ") + `)) }`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sparqlgate.Parse(in)
			require.NoError(t, err)
		})
	}
}

// No gold query of the benchmarks is refused for its expressions.
func TestParseCapsSpareGoldQueries(t *testing.T) {
	dir := os.Getenv("PAROG_DATA")
	if dir == "" {
		dir = "../../../../shared/data"
	}
	files := []string{"cwq_sample.json", "grailqa_sample.json", "webqsp/WebQSP.train.json"}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Skipf("SKIPPED: gold queries need %s under PAROG_DATA (%s): %v", f, dir, err)
		}
		var v any
		require.NoError(t, json.Unmarshal(data, &v))
		for _, q := range goldQueries(v) {
			text, _ := sparql2plan.Normalize(q)
			_, err := sparqlgate.Parse(text)
			if err != nil {
				for _, why := range []string{"longer", "nested", "function calls", "BIND"} {
					assert.NotContains(t, err.Error(), why, "%s: %s", f, text)
				}
			}
			n++
		}
	}
	t.Logf("%d gold queries", n)
	require.Greater(t, n, 4000)
}

// goldQueries collects the strings under a "sparql" key, in any case.
func goldQueries(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && strings.EqualFold(k, "sparql") {
				out = append(out, s)
				continue
			}
			out = append(out, goldQueries(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, goldQueries(x)...)
		}
	}
	return out
}
