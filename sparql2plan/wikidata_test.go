package sparql2plan

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/realdata"
)

const wdPrefixes = "PREFIX wd: <http://www.wikidata.org/entity/> PREFIX wdt: <http://www.wikidata.org/prop/direct/> " +
	"PREFIX p: <http://www.wikidata.org/prop/> PREFIX ps: <http://www.wikidata.org/prop/statement/> PREFIX pq: <http://www.wikidata.org/prop/qualifier/> "

// QALD-10's Wikidata queries: a sequence path is the chain it abbreviates,
// p:P/ps:P is wdt:P, and what has no plan operation is refused by name.
func TestConvertWikidata(t *testing.T) {
	names := func(id string) string {
		return map[string]string{"http://www.wikidata.org/entity/Q170022": "Piranha Bytes", "http://www.wikidata.org/entity/Q794": "Iran"}[id]
	}
	seq, err := ConvertQuery(wdPrefixes+"SELECT DISTINCT ?result WHERE { wd:Q170022 wdt:P1830/wdt:P452 ?result }", names)
	require.NoError(t, err)
	chain, err := ConvertQuery(wdPrefixes+"SELECT DISTINCT ?result WHERE { wd:Q170022 wdt:P1830 ?x . ?x wdt:P452 ?result }", names)
	require.NoError(t, err)
	assert.Equal(t, chain.Plan, seq.Plan, "a sequence path converts as its chain")
	assert.Equal(t, "Find the P1830 of Piranha Bytes.", seq.Plan.Subgoals[0].Text)

	stmt, err := ConvertQuery(wdPrefixes+"SELECT DISTINCT ?result WHERE { wd:Q794 p:P35/ps:P35 ?result }", names)
	require.NoError(t, err)
	direct, err := ConvertQuery(wdPrefixes+"SELECT DISTINCT ?result WHERE { wd:Q794 wdt:P35 ?result }", names)
	require.NoError(t, err)
	assert.Equal(t, direct.Plan, stmt.Plan)
	assert.Len(t, stmt.Plan.Subgoals, 1)

	refused := []struct{ name, query, reason string }{
		{"closure", "SELECT ?x WHERE { ?x wdt:P31/wdt:P279* wd:Q5 . ?x wdt:P27 wd:Q794 }",
			"unsupported: property path with a repeated or optional step, a transitive closure like wdt:P31/wdt:P279*"},
		{"alternative", "SELECT ?x WHERE { wd:Q794 wdt:P35|wdt:P6 ?x }", "unsupported: property path with an alternative p|q"},
		{"qualifier", "SELECT ?d WHERE { wd:Q794 p:P35 ?s . ?s ps:P35 ?x . ?s pq:P580 ?d }",
			"unsupported: Wikidata statement node: p: ps: pq: with qualifiers, which no plan operation reads"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ConvertQuery(wdPrefixes+tc.query, nil)
			require.Error(t, err)
			assert.Equal(t, tc.reason, FailureReason(err))
		})
	}
}

// QALD-10 as ToG ships it: the share converted, and a reason for every
// question that is not. The rate is the one the README states.
func TestConvertQALD10(t *testing.T) {
	path := realdata.Path(t, "tog/qald_10-en.json")
	got, err := dataset.LoadFile(context.Background(), path, dataset.QALD)
	require.NoError(t, err)
	require.Len(t, got.Questions, 333)
	schema := planSchema(t)
	converted, reasons := 0, map[string]int{}
	for _, q := range got.Questions {
		c, err := Convert(pairOf(q))
		if err != nil {
			reasons[FailureReason(err)]++
			continue
		}
		converted++
		assert.NoError(t, schema.Validate(planJSON(t, c)), q.ID)
	}
	assert.Equal(t, 236, converted, "docs/evaluation.md: 236 of 333 (70.9%%); reasons %v", reasons)
	assert.Equal(t, 30, reasons["unsupported: answer bound only by BIND"])
	assert.Equal(t, 28, reasons["unsupported: property path with a repeated or optional step, a transitive closure like wdt:P31/wdt:P279*"])
}

// planJSON is a converted plan as a JSON schema instance.
func planJSON(t *testing.T, c *Conversion) any {
	t.Helper()
	b, err := json.Marshal(c.Plan)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	return inst
}
