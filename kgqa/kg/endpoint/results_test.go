package endpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

const (
	xsdInteger = "http://www.w3.org/2001/XMLSchema#integer"
	rdfsLabel  = "http://www.w3.org/2000/01/rdf-schema#label"
)

// oneBinding is a result of one row binding ?x to the JSON object term.
func oneBinding(term string) string {
	return `{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": ` + term + `}]}}`
}

// TestParseResultsOddBindings pins what an odd term means: a term
// knakk/rdf normalises or refuses, a document encoding/json reads
// leniently.
func TestParseResultsOddBindings(t *testing.T) {
	lit := func(v, dt, lang string) backend.Node {
		return backend.Node{Kind: backend.NodeLiteral, Value: v, Datatype: dt, Lang: lang}
	}
	tests := []struct {
		name string
		body string
		want backend.Node
	}{
		{"typed-literal xsd:string", oneBinding(`{"type": "typed-literal", "datatype": "` + xsdString + `", "value": "a"}`), lit("a", "", "")},
		{"literal xsd:string", oneBinding(`{"type": "literal", "datatype": "` + xsdString + `", "value": "a"}`), lit("a", "", "")},
		{"literal lang wins over datatype", oneBinding(`{"type": "literal", "datatype": "` + xsdInteger + `", "xml:lang": "en", "value": "1"}`), lit("1", "", "en")},
		{"lang with two dashes", oneBinding(`{"type": "literal", "xml:lang": "be-x-old", "value": "Minsk"}`), lit("Minsk", "", "be-x-old")},
		{"lang of digits only", oneBinding(`{"type": "literal", "xml:lang": "123", "value": "a"}`), lit("a", "", "123")},
		{"empty lang is none", oneBinding(`{"type": "literal", "xml:lang": "", "value": "a"}`), lit("a", "", "")},
		{"typed-literal drops its lang", oneBinding(`{"type": "typed-literal", "datatype": "` + xsdInteger + `", "xml:lang": "en", "value": "1"}`), lit("1", xsdInteger, "")},
		{"typed-literal bad datatype keeps both", oneBinding(`{"type": "typed-literal", "datatype": "a b", "xml:lang": "en", "value": "1"}`), lit("1", "", "en")},
		{"typed-literal refused datatype kept", oneBinding(`{"type": "typed-literal", "datatype": "a<b", "value": "1"}`), lit("1", "a<b", "")},
		{"typed-literal without datatype", oneBinding(`{"type": "typed-literal", "value": "1"}`), lit("1", "", "")},
		{"literal refused datatype lost", oneBinding(`{"type": "literal", "datatype": "a b", "value": "1"}`), lit("1", "", "")},
		{"uri knakk refuses", oneBinding(`{"type": "uri", "value": "http://x/a b"}`), backend.Node{Kind: backend.NodeIRI, Value: "http://x/a b"}},
		{"empty uri", oneBinding(`{"type": "uri", "value": ""}`), backend.Node{Kind: backend.NodeIRI}},
		{"uri with datatype and lang", oneBinding(`{"type": "uri", "value": "http://x/", "datatype": "d", "xml:lang": "en"}`), backend.Node{Kind: backend.NodeIRI, Value: "http://x/"}},
		{"blank label of spaces", oneBinding(`{"type": "bnode", "value": "  "}`), backend.Node{Kind: backend.NodeBlank, Value: "  "}},
		{"virtuoso blank", oneBinding(`{"type": "bnode", "value": "nodeID://b10006"}`), backend.Node{Kind: backend.NodeBlank, Value: "nodeID://b10006"}},
		{"no value", oneBinding(`{"type": "literal"}`), lit("", "", "")},
		{"escapes", oneBinding(`{"type": "literal", "value": "Z\u00FCrich \uD834\uDD1E \"q\" \\ \/ \b\f\n\r\t \u0000"}`), lit("Zürich 𝄞 \"q\" \\ / \b\f\n\r\t \x00", "", "")},
		{"escaped key", oneBinding(`{"t\u0079pe": "uri", "value": "http://x/"}`), backend.Node{Kind: backend.NodeIRI, Value: "http://x/"}},
		{"raw unicode", oneBinding(`{"type": "literal", "value": "Zürich 𝄞"}`), lit("Zürich 𝄞", "", "")},
		{"lone surrogate", oneBinding(`{"type": "literal", "value": "\uD834x"}`), lit("\uFFFDx", "", "")},
		{"reversed surrogates", oneBinding(`{"type": "literal", "value": "\uDD1E\uD834"}`), lit("\uFFFD\uFFFD", "", "")},
		{"invalid utf-8", oneBinding("{\"type\": \"literal\", \"value\": \"a\xffb\"}"), lit("a\uFFFDb", "", "")},
		{"repeated field, last wins", oneBinding(`{"type": "uri", "value": "a", "value": "b"}`), backend.Node{Kind: backend.NodeIRI, Value: "b"}},
		{"field in other case", oneBinding(`{"Type": "uri", "VALUE": "a"}`), backend.Node{Kind: backend.NodeIRI, Value: "a"}},
		{"unknown field ignored", oneBinding(`{"type": "uri", "value": "a", "extra": [1, {}]}`), backend.Node{Kind: backend.NodeIRI, Value: "a"}},
		{"null lang", oneBinding(`{"type": "literal", "value": "a", "xml:lang": null}`), lit("a", "", "")},
		{"text after the document", oneBinding(`{"type": "uri", "value": "a"}`) + ` trailing`, backend.Node{Kind: backend.NodeIRI, Value: "a"}},
		{"repeated variable, last wins", `{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "a"}, "x": {"type": "uri", "value": "b"}}]}}`, backend.Node{Kind: backend.NodeIRI, Value: "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{"x": tc.want}}}
			got, err := parseResultsJSON([]byte(tc.body))
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// TestParseResultsShapes covers what is around the bindings: missing
// optional bindings, empty rows, empty and absent vars, extra head fields.
func TestParseResultsShapes(t *testing.T) {
	iri := backend.Node{Kind: backend.NodeIRI, Value: "http://x/"}
	tests := []struct {
		name string
		body string
		want *backend.Table
	}{
		{"optional unbound", `{"head": {"vars": ["x", "y"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "http://x/"}}, {}]}}`,
			&backend.Table{Vars: []string{"x", "y"}, Rows: []map[string]backend.Node{{"x": iri}, {}}}},
		{"no rows", `{"head": {"link": [], "vars": []}, "results": {"distinct": false, "ordered": true, "bindings": []}}`,
			&backend.Table{Vars: []string{}, Rows: []map[string]backend.Node{}}},
		{"no head", `{"results": {"bindings": [{"y": {"type": "uri", "value": "http://x/"}}]}, "boolean": false}`,
			&backend.Table{Rows: []map[string]backend.Node{{"y": iri}}}},
		{"results before head", ` {"results": {"bindings": []}, "head": {"vars": ["a"]}} `,
			&backend.Table{Vars: []string{"a"}, Rows: []map[string]backend.Node{}}},
		{"a key outside ASCII", `{"head": {"vars": ["ü"]}, "results": {"bindings": [{"ü": {"type": "uri", "value": "a"}}]}}`,
			&backend.Table{Vars: []string{"ü"}, Rows: []map[string]backend.Node{{"ü": {Kind: backend.NodeIRI, Value: "a"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseResultsJSON([]byte(tc.body))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestParseResultsErrors: every malformed body is ErrBadResponse.
func TestParseResultsErrors(t *testing.T) {
	for _, bad := range []string{
		``, ` `, `null`, `[]`, `<html>`, `{"head": {"link": []}, "boolean": true}`,
		`{"head": {"vars": ["x"]}, "results": {"bindings": null}}`,
		`{"head": {"vars": [1]}, "results": {"bindings": []}}`,
		`{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "a"},}]}}`,
		`{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "a"}}]`,
		oneBinding(`{"type": "weird", "value": "v"}`),
		oneBinding(`{"value": "v"}`),
		oneBinding(`{"type": "uri", "value": 1}`),
		oneBinding(`{"type": "uri", "value": "a` + "\n" + `"}`),
		oneBinding(`{"type": "uri", "value": "\x"}`),
	} {
		_, err := parseResultsJSON([]byte(bad))
		assert.ErrorIs(t, err, backend.ErrBadResponse, bad)
	}
}

// TestParseResultsEndpoints reads what real endpoints wrote (Virtuoso 7,
// Fuseki's layout, the protocol server's encoding/json escapes).
func TestParseResultsEndpoints(t *testing.T) {
	files, err := filepath.Glob("testdata/results/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		body, err := os.ReadFile(file)
		require.NoError(t, err)
		tab, err := parseResultsJSON(body)
		if strings.HasSuffix(file, "-ask.json") {
			assert.ErrorIs(t, err, backend.ErrBadResponse, file)
			continue
		}
		require.NoError(t, err, file)
		assert.NotNil(t, tab.Rows, file)
	}
}

// FuzzParseResults reads mutated documents: a table or ErrBadResponse,
// never a panic.
func FuzzParseResults(f *testing.F) {
	files, _ := filepath.Glob("testdata/results/*.json")
	for _, file := range files {
		if body, err := os.ReadFile(file); err == nil {
			f.Add(body)
		}
	}
	f.Add(resultsJSON(3))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := parseResultsJSON(body); err != nil {
			require.ErrorIs(t, err, backend.ErrBadResponse)
		}
	})
}
