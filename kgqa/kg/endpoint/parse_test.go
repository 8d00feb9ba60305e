package endpoint

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// resultsJSON is a SPARQL 1.1 JSON result of n rows binding an IRI, a
// typed literal, a language-tagged literal and a blank node.
func resultsJSON(n int) []byte {
	type term map[string]string
	rows := make([]map[string]term, n)
	for i := range rows {
		rows[i] = map[string]term{
			"e": {"type": "uri", "value": fmt.Sprintf("http://rdf.freebase.com/ns/m.0b%05d", i)},
			"n": {"type": "literal", "value": fmt.Sprint(i), "datatype": "http://www.w3.org/2001/XMLSchema#integer"},
			"l": {"type": "literal", "value": fmt.Sprintf("name %d", i), "xml:lang": "en"},
			"b": {"type": "bnode", "value": fmt.Sprintf("b%d", i)},
		}
	}
	b, _ := json.Marshal(map[string]any{
		"head":    map[string]any{"vars": []string{"e", "n", "l", "b"}},
		"results": map[string]any{"bindings": rows},
	})
	return b
}

func TestParseResultsJSON(t *testing.T) {
	tab, err := parseResultsJSON(resultsJSON(3))
	require.NoError(t, err)
	assert.Equal(t, []string{"e", "n", "l", "b"}, tab.Vars)
	require.Len(t, tab.Rows, 3)
	assert.Equal(t, backend.Node{Kind: backend.NodeIRI, Value: "http://rdf.freebase.com/ns/m.0b00002"}, tab.Rows[2]["e"])
	assert.Equal(t, backend.Node{Kind: backend.NodeLiteral, Value: "2", Datatype: "http://www.w3.org/2001/XMLSchema#integer"}, tab.Rows[2]["n"])
	assert.Equal(t, backend.Node{Kind: backend.NodeLiteral, Value: "name 2", Lang: "en"}, tab.Rows[2]["l"])
	assert.Equal(t, backend.NodeBlank, tab.Rows[2]["b"].Kind)
	// Terms knakk/rdf refuses keep the endpoint's reading.
	tab, err = parseResultsJSON([]byte(`{"head": {"vars": ["l", "e"]}, "results": {"bindings": [
		{"l": {"type": "literal", "value": "Minsk", "xml:lang": "be-x-old"}, "e": {"type": "uri", "value": "http://x/a b"}}]}}`))
	require.NoError(t, err)
	assert.Equal(t, backend.Node{Kind: backend.NodeLiteral, Value: "Minsk", Lang: "be-x-old"}, tab.Rows[0]["l"])
	assert.Equal(t, backend.Node{Kind: backend.NodeIRI, Value: "http://x/a b"}, tab.Rows[0]["e"])
	for _, bad := range []string{`<html>`, `{"head": {"vars": []}}`, `{"head": `, `{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "weird", "value": "v"}}]}}`} {
		_, err := parseResultsJSON([]byte(bad))
		assert.ErrorIs(t, err, backend.ErrBadResponse, bad)
	}
}

// BenchmarkParseResults parses a 10,000-row result (four terms a row).
func BenchmarkParseResults(b *testing.B) {
	body := resultsJSON(10_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseResultsJSON(body); err != nil {
			b.Fatal(err)
		}
	}
}
