package endpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/knakk/rdf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// TestParseResultsTSVTerms reads one term of each odd kind.
func TestParseResultsTSVTerms(t *testing.T) {
	lit := func(v, dt, lang string) backend.Node {
		return backend.Node{Kind: backend.NodeLiteral, Value: v, Datatype: dt, Lang: lang}
	}
	iri := func(v string) backend.Node { return backend.Node{Kind: backend.NodeIRI, Value: v} }
	tests := []struct {
		term string
		want backend.Node
	}{
		{`<http://rdf.freebase.com/ns/m.09c7w0>`, iri("http://rdf.freebase.com/ns/m.09c7w0")},
		{`<http://x/Z\u00FCrich>`, iri("http://x/Zürich")},
		{`<http://x/\U0001D11E>`, iri("http://x/𝄞")},
		{`<http://x/Zürich>`, iri("http://x/Zürich")},
		{`<http://x/a\u0020b>`, iri("http://x/a b")},
		{`<>`, iri("")},
		{`_:b0`, backend.Node{Kind: backend.NodeBlank, Value: "b0"}},
		{`_:node-1.x`, backend.Node{Kind: backend.NodeBlank, Value: "node-1.x"}},
		{`"plain"`, lit("plain", "", "")},
		{`""`, lit("", "", "")},
		{`"a\tb\nc\rd\"e\\f\bg\fh\'i"`, lit("a\tb\nc\rd\"e\\f\bg\fh'i", "", "")},
		{`"Z\u00fcrich \U0001D11E"`, lit("Zürich 𝄞", "", "")},
		{`"\u0000"`, lit("\x00", "", "")},
		{`"Zürich 𝄞"`, lit("Zürich 𝄞", "", "")},
		{`"Minsk"@be-x-old`, lit("Minsk", "", "be-x-old")},
		{`"chat"@FR`, lit("chat", "", "FR")},
		{`"x"@en-GB`, lit("x", "", "en-GB")},
		{`"a"^^<http://www.w3.org/2001/XMLSchema#string>`, lit("a", "", "")},
		{`"1"^^<http://www.w3.org/2001/XMLSchema#integer>`, lit("1", xsdInteger, "")},
		{`"01"^^<http://www.w3.org/2001/XMLSchema#integer>`, lit("01", xsdInteger, "")},
		{`"2020-01-01"^^<http://www.w3.org/2001/XMLSchema#date>`, lit("2020-01-01", xsdNS+"date", "")},
		{`"x"^^<http://x/\u00FC>`, lit("x", "http://x/ü", "")},
		{`42`, lit("42", xsdInteger, "")},
		{`-0`, lit("-0", xsdInteger, "")},
		{`+7`, lit("+7", xsdInteger, "")},
		{`3.50`, lit("3.50", xsdDecimal, "")},
		{`.5`, lit(".5", xsdDecimal, "")},
		{`-1.5`, lit("-1.5", xsdDecimal, "")},
		{`1e3`, lit("1e3", xsdDouble, "")},
		{`1.0E-3`, lit("1.0E-3", xsdDouble, "")},
		{`1.E+3`, lit("1.E+3", xsdDouble, "")},
		{`.5e1`, lit(".5e1", xsdDouble, "")},
		{`true`, lit("true", xsdBoolean, "")},
		{`false`, lit("false", xsdBoolean, "")},
	}
	for _, tc := range tests {
		t.Run(tc.term, func(t *testing.T) {
			want := tc.want
			got, err := parseResultsTSV([]byte("?x\n" + tc.term + "\n"))
			require.NoError(t, err)
			assert.Equal(t, &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{"x": want}}}, got)
		})
	}
}

// TestParseResultsTSVShapes covers the lines around the terms.
func TestParseResultsTSVShapes(t *testing.T) {
	iri := backend.Node{Kind: backend.NodeIRI, Value: "http://x/"}
	tests := []struct {
		name string
		body string
		want *backend.Table
	}{
		{"unbound columns", "?x\t?y\n<http://x/>\t\n\t\n", &backend.Table{Vars: []string{"x", "y"}, Rows: []map[string]backend.Node{{"x": iri}, {}}}},
		{"one variable unbound", "?x\n\n<http://x/>\n", &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{}, {"x": iri}}}},
		{"no final newline", "?x\n<http://x/>", &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{"x": iri}}}},
		{"CRLF", "?x\r\n<http://x/>\r\n", &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{"x": iri}}}},
		{"no rows", "?x\t$y\n", &backend.Table{Vars: []string{"x", "y"}, Rows: []map[string]backend.Node{}}},
		{"header only, no newline", "?x", &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{}}},
		{"no variables", "\n", &backend.Table{Vars: []string{}, Rows: []map[string]backend.Node{}}},
		{"empty body", "", &backend.Table{Vars: []string{}, Rows: []map[string]backend.Node{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseResultsTSV([]byte(tc.body))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestParseResultsTSVRefuses: what is not read with certainty is an
// ErrBadResponse marked errUnread (the client asks again as JSON).
func TestParseResultsTSVRefuses(t *testing.T) {
	for _, bad := range []string{
		"x\n<http://x/>\n", "\"x\"\n", "?x\t?x\n", "?x-y\n", "?\n", "?x\t\n",
		"?x\n<http://x/>\t<http://y/>\n", "?x\t?y\n<http://x/>\n", "\n\n",
		"?x\n<http://x/\n", "?x\n<http://x/a b>\n", "?x\n<http://x/>z\n", "?x\n<http://x/\\u00>\n",
		"?x\n<http://x/\\uD834>\n", "?x\n<http://x/\\U00110000>\n", "?x\n<http://x/\\UFFFFFFFF>\n", "?x\n\"\\U80000041\"\n", "?x\n<http://x/\\n>\n",
		"?x\n_:\n", "?x\n_:a b\n", "?x\n_:a.\n", "?x\nnodeID://b1\n",
		"?x\n\"a\n", "?x\n\"a\"b\n", "?x\n\"a\\x\"\n", "?x\n\"\\uDD1E\"\n", "?x\n\"\"\"long\"\"\"\n", "?x\n'single'\n",
		"?x\n\"a\"@\n", "?x\n\"a\"@en-\n", "?x\n\"a\"@1en\n", "?x\n\"a\"@en_GB\n",
		"?x\n\"a\"^^xsd:string\n", "?x\n\"a\"^^<http://x/\n", "?x\n\"a\"^^<>\n", "?x\n\"a\"^^<a\\u0020b>\n",
		"?x\n\"a\"@en^^<http://x/>\n", "?x\n\"a\xffb\"\n",
		"?x\n1.\n", "?x\n1e\n", "?x\n--1\n", "?x\n1.2.3\n", "?x\nTrue\n", "?x\nx\n", "?x\n.\n", "?x\n+\n", "?x\ne3\n",
	} {
		_, err := parseResultsTSV([]byte(bad))
		assert.ErrorIs(t, err, backend.ErrBadResponse, "%q", bad)
		assert.ErrorIs(t, err, errUnread, "%q", bad)
	}
}

// TestParseResultsTSVVirtuoso: Virtuoso 7 answers text/tab-separated-values
// with quoted names and IRIs and literals alike as quoted text (these are
// its bytes), which lose the kind of term, the datatype and the language
// tag: refused, never guessed.
func TestParseResultsTSVVirtuoso(t *testing.T) {
	files, err := filepath.Glob("testdata/results/virtuoso7-*.tsv")
	require.NoError(t, err)
	require.Len(t, files, 2)
	for _, file := range files {
		body, err := os.ReadFile(file)
		require.NoError(t, err)
		_, err = parseResultsTSV(body)
		assert.ErrorIs(t, err, errUnread, file)
	}
}

// TestParseResultsTSVAsJSON reads the result of testdata's Fuseki JSON
// written as SPARQL 1.1 TSV (bare decimal, escapes, language tag, blank
// node, xsd:string) into the table the JSON reading gives.
func TestParseResultsTSVAsJSON(t *testing.T) {
	body, err := os.ReadFile("testdata/results/fuseki-terms.json")
	require.NoError(t, err)
	want, err := parseResultsJSON(body)
	require.NoError(t, err)
	tsv := "?s\t?label\t?n\t?b\t?opt\n" +
		"<http://example.org/Zürich>\t\"Zürich 𝄞 \\\"quoted\\\" back\\\\slash\"@de-CH\t3.50\t_:b0\t\n" +
		"<http://example.org/b>\t\"plain\\ttab\\nline\"\t\t\t\"\"^^<http://www.w3.org/2001/XMLSchema#string>\n"
	got, err := parseResultsTSV([]byte(tsv))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// writeTSVTerm writes n as a SPARQL 1.1 TSV term, the way a writer
// following the specification does: every character an IRI or a string
// may not hold raw as an escape, non-ASCII escaped when escapeAll, the
// XSD numbers and booleans bare when bare and their text allows.
func writeTSVTerm(n backend.Node, escapeAll, bare bool) string {
	esc := func(r rune) string {
		if r > 0xFFFF {
			return fmt.Sprintf(`\U%08X`, r)
		}
		return fmt.Sprintf(`\u%04X`, r)
	}
	switch n.Kind {
	case backend.NodeIRI:
		var b strings.Builder
		b.WriteByte('<')
		for _, r := range n.Value {
			if r <= ' ' || strings.ContainsRune("<>\"{}|^`\\", r) || escapeAll && r > '~' {
				b.WriteString(esc(r))
			} else {
				b.WriteRune(r)
			}
		}
		return b.String() + ">"
	case backend.NodeBlank:
		return "_:" + n.Value
	}
	if bare && n.Lang == "" && bareDatatype([]byte(n.Value)) == n.Datatype && n.Datatype != "" {
		return n.Value
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range n.Value {
		if i := strings.IndexRune("\t\n\r\b\f\"\\", r); i >= 0 {
			b.WriteString(`\` + string("tnrbf\"\\"[i]))
		} else if r < ' ' || r == 0x7F || escapeAll && r > '~' {
			b.WriteString(esc(r))
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	switch {
	case n.Lang != "":
		b.WriteString("@" + n.Lang)
	case n.Datatype != "":
		b.WriteString("^^" + writeTSVTerm(backend.Node{Kind: backend.NodeIRI, Value: n.Datatype}, escapeAll, false))
	}
	return b.String()
}

// FuzzParseResultsTSVTerms writes a term of arbitrary fields as SPARQL 1.1
// TSV and as SPARQL JSON: the TSV reading is the JSON reading. A term
// the TSV cannot carry (invalid UTF-8, a language tag or blank node
// label outside the grammar, a datatype knakk/rdf refuses, which the
// JSON reading reads two ways) is skipped.
func FuzzParseResultsTSVTerms(f *testing.F) {
	for _, kind := range []uint8{0, 1, 2} {
		f.Add(kind, "http://rdf.freebase.com/ns/m.0b1", "", "", false, false)
		f.Add(kind, "Zürich 𝄞 \"q\"\t\\", xsdString, "de-CH", true, false)
		f.Add(kind, "1", xsdInteger, "", false, true)
		f.Add(kind, "-1.5e3", xsdDouble, "", true, true)
		f.Add(kind, "b0", rdfsLabel, "be-x-old", false, false)
	}
	f.Fuzz(func(t *testing.T, kind uint8, value, datatype, lang string, escapeAll, bare bool) {
		n := backend.Node{Kind: backend.NodeKind(kind%3 + 1), Value: value}
		typ := map[backend.NodeKind]string{backend.NodeIRI: "uri", backend.NodeLiteral: "literal", backend.NodeBlank: "bnode"}[n.Kind]
		if !utf8.ValidString(value) || !utf8.ValidString(datatype) {
			t.Skip("invalid UTF-8")
		}
		term := map[string]string{"type": typ, "value": value}
		switch {
		case n.Kind == backend.NodeBlank && (value == "" || !blankLabel([]byte(value))):
			t.Skip("blank node label outside the grammar")
		case n.Kind != backend.NodeLiteral:
		case lang != "":
			if !langTag([]byte(lang)) {
				t.Skip("language tag outside the grammar")
			}
			n.Lang, term["xml:lang"] = lang, lang
		case datatype != "":
			if _, err := rdf.NewIRI(datatype); err != nil {
				t.Skip("datatype knakk/rdf refuses")
			}
			n.Datatype, term["datatype"] = datatype, datatype
		}
		js, err := json.Marshal(map[string]any{"head": map[string]any{"vars": []string{"x", "y"}},
			"results": map[string]any{"bindings": []any{map[string]any{"x": term}, map[string]any{}}}})
		require.NoError(t, err)
		want, err := parseResultsJSON(js)
		require.NoError(t, err)
		tsv := "?x\t?y\n" + writeTSVTerm(n, escapeAll, bare) + "\t\n\t\n"
		got, err := parseResultsTSV([]byte(tsv))
		require.NoError(t, err, "%q", tsv)
		assert.Equal(t, want, got, "%q", tsv)
	})
}

// FuzzParseResultsTSV reads arbitrary bodies: no panic, every failure an
// errUnread, and a table it reads reads the same once written again.
func FuzzParseResultsTSV(f *testing.F) {
	f.Add([]byte("?x\t?y\n<http://x/\\u00FC>\t\"a\\tb\"@en\n_:b\t1.5e3\n\t\n"))
	f.Add([]byte("?s\n\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>\ntrue\n"))
	for _, file := range []string{"testdata/results/virtuoso7-values.tsv", "testdata/results/virtuoso7-relations.tsv"} {
		if body, err := os.ReadFile(file); err == nil {
			f.Add(body)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := parseResultsTSV(body)
		if err != nil {
			require.ErrorIs(t, err, errUnread)
			require.ErrorIs(t, err, backend.ErrBadResponse)
			return
		}
		var b strings.Builder
		for i, v := range got.Vars {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString("?" + v)
		}
		b.WriteByte('\n')
		for _, row := range got.Rows {
			for i, v := range got.Vars {
				if i > 0 {
					b.WriteByte('\t')
				}
				if n, ok := row[v]; ok {
					b.WriteString(writeTSVTerm(n, false, false))
				}
			}
			b.WriteByte('\n')
		}
		again, err := parseResultsTSV([]byte(b.String()))
		require.NoError(t, err, "%q", b.String())
		assert.Equal(t, got, again, "%q", b.String())
	})
}

// BenchmarkParseResultsTSV parses the 10,000 rows of BenchmarkParseResults
// written as SPARQL 1.1 TSV.
func BenchmarkParseResultsTSV(b *testing.B) {
	tab, err := parseResultsJSON(resultsJSON(10_000))
	require.NoError(b, err)
	var sb strings.Builder
	sb.WriteString("?e\t?n\t?l\t?b\n")
	for _, row := range tab.Rows {
		for i, v := range tab.Vars {
			if i > 0 {
				sb.WriteByte('\t')
			}
			sb.WriteString(writeTSVTerm(row[v], false, false))
		}
		sb.WriteByte('\n')
	}
	benchParse(b, []byte(sb.String()), tab, parseResultsTSV)
}
