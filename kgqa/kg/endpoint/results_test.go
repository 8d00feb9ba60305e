package endpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestParseResultsOddBindings holds both readings to what a term means:
// fast says whether decodeResults reads the body itself or leaves it to
// knakk (a term knakk/rdf normalises, a document encoding/json reads
// leniently).
func TestParseResultsOddBindings(t *testing.T) {
	lit := func(v, dt, lang string) backend.Node {
		return backend.Node{Kind: backend.NodeLiteral, Value: v, Datatype: dt, Lang: lang}
	}
	tests := []struct {
		name string
		body string
		fast bool
		want backend.Node
	}{
		{"typed-literal xsd:string", oneBinding(`{"type": "typed-literal", "datatype": "` + xsdString + `", "value": "a"}`), true, lit("a", "", "")},
		{"literal xsd:string", oneBinding(`{"type": "literal", "datatype": "` + xsdString + `", "value": "a"}`), true, lit("a", "", "")},
		{"literal lang wins over datatype", oneBinding(`{"type": "literal", "datatype": "` + xsdInteger + `", "xml:lang": "en", "value": "1"}`), true, lit("1", "", "en")},
		{"lang with two dashes", oneBinding(`{"type": "literal", "xml:lang": "be-x-old", "value": "Minsk"}`), true, lit("Minsk", "", "be-x-old")},
		{"lang of digits only", oneBinding(`{"type": "literal", "xml:lang": "123", "value": "a"}`), true, lit("a", "", "123")},
		{"empty lang is none", oneBinding(`{"type": "literal", "xml:lang": "", "value": "a"}`), true, lit("a", "", "")},
		{"typed-literal drops its lang", oneBinding(`{"type": "typed-literal", "datatype": "` + xsdInteger + `", "xml:lang": "en", "value": "1"}`), false, lit("1", xsdInteger, "")},
		{"typed-literal bad datatype keeps both", oneBinding(`{"type": "typed-literal", "datatype": "a b", "xml:lang": "en", "value": "1"}`), false, lit("1", "", "en")},
		{"typed-literal refused datatype kept", oneBinding(`{"type": "typed-literal", "datatype": "a<b", "value": "1"}`), false, lit("1", "a<b", "")},
		{"typed-literal without datatype", oneBinding(`{"type": "typed-literal", "value": "1"}`), false, lit("1", "", "")},
		{"literal refused datatype lost", oneBinding(`{"type": "literal", "datatype": "a b", "value": "1"}`), false, lit("1", "", "")},
		{"uri knakk refuses", oneBinding(`{"type": "uri", "value": "http://x/a b"}`), true, backend.Node{Kind: backend.NodeIRI, Value: "http://x/a b"}},
		{"empty uri", oneBinding(`{"type": "uri", "value": ""}`), true, backend.Node{Kind: backend.NodeIRI}},
		{"uri with datatype and lang", oneBinding(`{"type": "uri", "value": "http://x/", "datatype": "d", "xml:lang": "en"}`), true, backend.Node{Kind: backend.NodeIRI, Value: "http://x/"}},
		{"blank label of spaces", oneBinding(`{"type": "bnode", "value": "  "}`), true, backend.Node{Kind: backend.NodeBlank, Value: "  "}},
		{"virtuoso blank", oneBinding(`{"type": "bnode", "value": "nodeID://b10006"}`), true, backend.Node{Kind: backend.NodeBlank, Value: "nodeID://b10006"}},
		{"no value", oneBinding(`{"type": "literal"}`), true, lit("", "", "")},
		{"escapes", oneBinding(`{"type": "literal", "value": "Z\u00FCrich \uD834\uDD1E \"q\" \\ \/ \b\f\n\r\t \u0000"}`), true, lit("Zürich 𝄞 \"q\" \\ / \b\f\n\r\t \x00", "", "")},
		{"escaped key", oneBinding(`{"t\u0079pe": "uri", "value": "http://x/"}`), false, backend.Node{Kind: backend.NodeIRI, Value: "http://x/"}},
		{"raw unicode", oneBinding(`{"type": "literal", "value": "Zürich 𝄞"}`), true, lit("Zürich 𝄞", "", "")},
		{"lone surrogate", oneBinding(`{"type": "literal", "value": "\uD834x"}`), true, lit("\uFFFDx", "", "")},
		{"reversed surrogates", oneBinding(`{"type": "literal", "value": "\uDD1E\uD834"}`), true, lit("\uFFFD\uFFFD", "", "")},
		{"invalid utf-8", oneBinding("{\"type\": \"literal\", \"value\": \"a\xffb\"}"), true, lit("a\uFFFDb", "", "")},
		{"repeated field, last wins", oneBinding(`{"type": "uri", "value": "a", "value": "b"}`), false, backend.Node{Kind: backend.NodeIRI, Value: "b"}},
		{"field in other case", oneBinding(`{"Type": "uri", "VALUE": "a"}`), false, backend.Node{Kind: backend.NodeIRI, Value: "a"}},
		{"unknown field ignored", oneBinding(`{"type": "uri", "value": "a", "extra": [1, {}]}`), false, backend.Node{Kind: backend.NodeIRI, Value: "a"}},
		{"null lang", oneBinding(`{"type": "literal", "value": "a", "xml:lang": null}`), false, lit("a", "", "")},
		{"text after the document", oneBinding(`{"type": "uri", "value": "a"}`) + ` trailing`, false, backend.Node{Kind: backend.NodeIRI, Value: "a"}},
		{"repeated variable, last wins", `{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "a"}, "x": {"type": "uri", "value": "b"}}]}}`, false, backend.Node{Kind: backend.NodeIRI, Value: "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{"x": tc.want}}}
			fast, ok := decodeResults([]byte(tc.body))
			assert.Equal(t, tc.fast, ok, "read by decodeResults")
			if ok {
				assert.Equal(t, want, fast)
			}
			ref, err := parseResultsKnakk([]byte(tc.body))
			require.NoError(t, err)
			assert.Equal(t, want, ref)
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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fast, ok := decodeResults([]byte(tc.body))
			require.True(t, ok, "read by decodeResults")
			assert.Equal(t, tc.want, fast)
			ref, err := parseResultsKnakk([]byte(tc.body))
			require.NoError(t, err)
			assert.Equal(t, tc.want, ref)
		})
	}
	// A key outside printable ASCII is left to knakk (jsonscan declines it).
	body := []byte(`{"head": {"vars": ["ü"]}, "results": {"bindings": [{"ü": {"type": "uri", "value": "a"}}]}}`)
	_, ok := decodeResults(body)
	assert.False(t, ok, "read by decodeResults")
	got, err := parseResultsJSON(body)
	require.NoError(t, err)
	assert.Equal(t, &backend.Table{Vars: []string{"ü"}, Rows: []map[string]backend.Node{{"ü": {Kind: backend.NodeIRI, Value: "a"}}}}, got)
}

// TestParseResultsErrors: every malformed body gets knakk's error.
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
		_, ok := decodeResults([]byte(bad))
		assert.False(t, ok, bad)
		_, err := parseResultsJSON([]byte(bad))
		assert.ErrorIs(t, err, backend.ErrBadResponse, bad)
		_, refErr := parseResultsKnakk([]byte(bad))
		require.Error(t, refErr, bad)
		assert.EqualError(t, err, refErr.Error(), bad)
	}
}

// TestParseResultsEndpoints reads what real endpoints wrote (Virtuoso 7,
// Fuseki's layout, the protocol server's encoding/json escapes) on the
// fast path, as knakk reads them.
func TestParseResultsEndpoints(t *testing.T) {
	files, err := filepath.Glob("testdata/results/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		body, err := os.ReadFile(file)
		require.NoError(t, err)
		ref, refErr := parseResultsKnakk(body)
		fast, ok := decodeResults(body)
		if strings.HasSuffix(file, "-ask.json") {
			assert.False(t, ok, file)
			assert.ErrorIs(t, refErr, backend.ErrBadResponse, file)
			continue
		}
		require.NoError(t, refErr, file)
		require.True(t, ok, file)
		assert.Equal(t, ref, fast, file)
	}
}

// FuzzParseResults holds decodeResults to the knakk reading on mutated
// documents: whatever it reads, knakk reads the same; parseResultsJSON
// gives knakk's table or knakk's error.
func FuzzParseResults(f *testing.F) {
	files, _ := filepath.Glob("testdata/results/*.json")
	for _, file := range files {
		if body, err := os.ReadFile(file); err == nil {
			f.Add(body)
		}
	}
	f.Add(resultsJSON(3))
	f.Add([]byte(oneBinding(`{"type": "literal", "value": "\uD834\uDD1E \u00fc \"", "xml:lang": "be-x-old"}`)))
	f.Add([]byte(oneBinding(`{"type": "typed-literal", "value": "1", "datatype": "` + xsdInteger + `", "xml:lang": "en"}`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkParseResults(t, body)
	})
}

// FuzzParseResultsTerms builds a one-row document around arbitrary term
// fields, written as encoding/json writes them or with every non-ASCII
// character escaped as Virtuoso writes it.
func FuzzParseResultsTerms(f *testing.F) {
	for _, typ := range []string{"uri", "bnode", "literal", "typed-literal", "Literal", ""} {
		f.Add(typ, "http://rdf.freebase.com/ns/m.0b1", "", "", "e", false)
		f.Add(typ, "Zürich 𝄞 \"q\"", xsdString, "de-CH", "label", true)
		f.Add(typ, "1", xsdInteger, "", "n", true)
		f.Add(typ, " ", rdfsLabel+" x", "be-x-old", "", false)
	}
	f.Fuzz(func(t *testing.T, typ, value, datatype, lang, name string, escapeAll bool) {
		quote := func(s string) string {
			if escapeAll {
				return escapeNonASCII(s)
			}
			b, _ := json.Marshal(s)
			return string(b)
		}
		term := `{"type": ` + quote(typ) + `, "value": ` + quote(value)
		if datatype != "" {
			term += `, "datatype": ` + quote(datatype)
		}
		if lang != "" {
			term += `, "xml:lang": ` + quote(lang)
		}
		body := fmt.Sprintf(`{"head": {"link": [], "vars": [%s]}, "results": {"distinct": false, "ordered": true, "bindings": [{%s: %s}, {}]}}`,
			quote(name), quote(name), term+"}")
		checkParseResults(t, []byte(body))
	})
}

// escapeNonASCII writes s as a JSON string with every character outside
// printable ASCII as a \u escape (a surrogate pair above U+FFFF); invalid
// UTF-8 stays raw.
func escapeNonASCII(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteByte(s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04X\u%04X`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// checkParseResults fails when decodeResults reads body otherwise than
// knakk does, or parseResultsJSON gives other than knakk's result.
func checkParseResults(t *testing.T, body []byte) {
	ref, refErr := parseResultsKnakk(body)
	if fast, ok := decodeResults(body); ok {
		require.NoError(t, refErr, "decodeResults read a body knakk refuses")
		require.Equal(t, ref, fast)
	}
	got, err := parseResultsJSON(body)
	require.Equal(t, ref, got)
	if refErr == nil {
		require.NoError(t, err)
		return
	}
	require.ErrorIs(t, err, backend.ErrBadResponse)
	require.Equal(t, errorKind(refErr), errorKind(err))
}

// errorKind is an error's message without the type named by "unknown
// term type": knakk's path names the first it meets in a row's map, so
// a row of two unknown types names either.
func errorKind(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "unknown term type"); i >= 0 {
		return msg[:i]
	}
	return msg
}
