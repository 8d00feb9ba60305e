package endpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/knakk/rdf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// TestParseResultsXMLVirtuoso reads what Virtuoso 7 wrote for one query
// as XML and as JSON (testdata/results/virtuoso7-values.*: escapes,
// astral characters, a language tag of three parts, typed literals,
// white space, an empty literal, an unbound column) into the same table,
// but for the xsd:boolean, which Virtuoso writes as 1 in JSON and true in
// XML: that body is refused, and without its row the two agree.
func TestParseResultsXMLVirtuoso(t *testing.T) {
	xmlBody, err := os.ReadFile("testdata/results/virtuoso7-values.xml")
	require.NoError(t, err)
	jsonBody, err := os.ReadFile("testdata/results/virtuoso7-values.json")
	require.NoError(t, err)
	_, err = parseResultsXML(xmlBody)
	require.ErrorIs(t, err, errUnread)
	require.ErrorContains(t, err, "xsd:boolean")

	want, err := parseResultsJSON(jsonBody)
	require.NoError(t, err)
	require.Len(t, want.Rows, 6)
	assert.Equal(t, "1", want.Rows[3]["x"].Value, "Virtuoso's JSON boolean")
	start := strings.Index(string(xmlBody), "<result>\n   <binding name=\"x\"><literal datatype=\"http://www.w3.org/2001/XMLSchema#boolean\">")
	require.Positive(t, start)
	end := start + strings.Index(string(xmlBody[start:]), "</result>") + len("</result>")
	got, err := parseResultsXML(append(append([]byte{}, xmlBody[:start]...), xmlBody[end:]...))
	require.NoError(t, err)
	want.Rows = append(want.Rows[:3], want.Rows[4:]...)
	assert.Equal(t, want, got)

	control, err := os.ReadFile("testdata/results/virtuoso7-control-refused.xml")
	require.NoError(t, err)
	_, err = parseResultsXML(control)
	assert.ErrorIs(t, err, errUnread, "a raw carriage return and &#1;")
}

// TestParseResultsXMLRefuses: what is not read with certainty is an
// ErrBadResponse marked errUnread.
func TestParseResultsXMLRefuses(t *testing.T) {
	doc := func(inner string) string {
		return `<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head><results>` + inner + `</results></sparql>`
	}
	ok := doc(`<result><binding name="x"><uri>http://x/</uri></binding></result>`)
	got, err := parseResultsXML([]byte(ok))
	require.NoError(t, err)
	assert.Equal(t, &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{"x": {Kind: backend.NodeIRI, Value: "http://x/"}}}}, got)
	for _, bad := range []string{
		"", "<html></html>", ok + "x", ok + "<a/>",
		`<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head></head><boolean>true</boolean></sparql>`,
		`<sparql><head><link href="x"/></head><results></results></sparql>`,
		doc(`<result><binding name="x"><literal>a` + "\r" + `b</literal></binding></result>`),
		doc(`<result><binding name="x"><literal>a&#1;b</literal></binding></result>`),
		doc(`<result><binding name="x"><literal>a&nbsp;b</literal></binding></result>`),
		doc(`<result><binding name="x"><literal>a` + "\xff" + `b</literal></binding></result>`),
		doc(`<result><binding name="x"><literal>a<b/></literal></binding></result>`),
		doc(`<result><binding name="x"><literal datatype="http://x/" xml:lang="en">a</literal></binding></result>`),
		doc(`<result><binding name="x"><literal datatype="a b">a</literal></binding></result>`),
		doc(`<result><binding name="x"><literal datatype="http://www.w3.org/2001/XMLSchema#boolean">0</literal></binding></result>`),
		doc(`<result><binding name="x"><literal xml:lang="en gb">a</literal></binding></result>`),
		doc(`<result><binding name="x"><uri xml:lang="en">a</uri></binding></result>`),
		doc(`<result><binding name="x"><triple/></binding></result>`),
		doc(`<result><binding name="x"><uri>a</uri></binding><binding name="x"><uri>b</uri></binding></result>`),
		doc(`<result><binding><uri>a</uri></binding></result>`),
		doc(`<result><binding name="x"><uri>a</uri>text</binding></result>`),
		doc(`<result><binding name="x"><uri>a</bnode></binding></result>`),
		doc(`<result><binding name="x"><r:uri xmlns:r="http://www.w3.org/2005/sparql-results#">a</r:uri></binding></result>`),
		doc(`<result><binding name="x" extra="1"><uri>a</uri></binding></result>`),
		doc(`<result><binding name="x"><uri>a</uri></binding>`),
	} {
		_, err := parseResultsXML([]byte(bad))
		assert.ErrorIs(t, err, backend.ErrBadResponse, "%q", bad)
		assert.ErrorIs(t, err, errUnread, "%q", bad)
	}
}

// writeXMLTerm writes n as a SPARQL results XML term as a writer does:
// &, < and > as entities (quotes too in attributes), the rest raw.
func writeXMLTerm(n backend.Node) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace
	switch n.Kind {
	case backend.NodeIRI:
		return "<uri>" + esc(n.Value) + "</uri>"
	case backend.NodeBlank:
		return "<bnode>" + esc(n.Value) + "</bnode>"
	}
	attrs := ""
	if n.Lang != "" {
		attrs = ` xml:lang="` + esc(n.Lang) + `"`
	} else if n.Datatype != "" {
		attrs = ` datatype="` + esc(n.Datatype) + `"`
	}
	return "<literal" + attrs + ">" + esc(n.Value) + "</literal>"
}

// FuzzParseResultsXMLTerms writes a term of arbitrary fields as XML and
// as JSON: the XML reading is the JSON reading, or a refusal of a body
// XML cannot carry exactly (a carriage return, a character XML 1.0
// forbids, invalid UTF-8, a language tag outside the grammar, a datatype
// knakk/rdf refuses, an xsd:boolean).
func FuzzParseResultsXMLTerms(f *testing.F) {
	for _, kind := range []uint8{0, 1, 2} {
		f.Add(kind, "http://rdf.freebase.com/ns/m.0b1", "", "")
		f.Add(kind, "Zürich 𝄞 \"q\"\t<&>", xsdString, "de-CH")
		f.Add(kind, "1", xsdInteger, "")
		f.Add(kind, " a\nb ", rdfsLabel, "be-x-old")
	}
	f.Fuzz(func(t *testing.T, kind uint8, value, datatype, lang string) {
		n := backend.Node{Kind: backend.NodeKind(kind%3 + 1), Value: value}
		term := map[string]string{"type": map[backend.NodeKind]string{backend.NodeIRI: "uri", backend.NodeLiteral: "literal", backend.NodeBlank: "bnode"}[n.Kind], "value": value}
		if n.Kind == backend.NodeLiteral {
			switch {
			case lang != "":
				n.Lang, term["xml:lang"] = lang, lang
			case datatype != "":
				n.Datatype, term["datatype"] = datatype, datatype
			}
		}
		js, err := json.Marshal(map[string]any{"head": map[string]any{"vars": []string{"x", "y"}},
			"results": map[string]any{"bindings": []any{map[string]any{"x": term}, map[string]any{}}}})
		require.NoError(t, err)
		body := `<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/><variable name="y"/></head><results distinct="false" ordered="true">` +
			"\n <result>\n  <binding name=\"x\">" + writeXMLTerm(n) + "</binding>\n </result>\n <result></result>\n</results></sparql>\n"
		got, err := parseResultsXML([]byte(body))
		_, dtErr := rdf.NewIRI(n.Datatype)
		exact := utf8.ValidString(body) && !strings.ContainsFunc(body, func(r rune) bool {
			return r == '\r' || r < ' ' && r != '\t' && r != '\n' || r == 0xFFFE || r == 0xFFFF
		}) && (n.Lang == "" || langTag([]byte(n.Lang))) && (n.Datatype == "" || dtErr == nil && n.Datatype != xsdBoolean)
		if !exact {
			if err == nil {
				want, jerr := parseResultsJSON(js)
				require.NoError(t, jerr)
				assert.Equal(t, want, got, "read, so exactly: %q", body)
			}
			return
		}
		require.NoError(t, err, "%q", body)
		want, err := parseResultsJSON(js)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%q", body)
	})
}

// BenchmarkParseResultsXML parses the 10,000 rows of BenchmarkParseResults
// written as XML.
func BenchmarkParseResultsXML(b *testing.B) {
	tab, err := parseResultsJSON(resultsJSON(10_000))
	require.NoError(b, err)
	var sb strings.Builder
	sb.WriteString(`<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>`)
	for _, v := range tab.Vars {
		fmt.Fprintf(&sb, `<variable name="%s"/>`, v)
	}
	sb.WriteString("</head>\n<results>\n")
	for _, row := range tab.Rows {
		sb.WriteString(" <result>\n")
		for _, v := range tab.Vars {
			fmt.Fprintf(&sb, "  <binding name=\"%s\">%s</binding>\n", v, writeXMLTerm(row[v]))
		}
		sb.WriteString(" </result>\n")
	}
	sb.WriteString("</results>\n</sparql>\n")
	benchParse(b, []byte(sb.String()), tab, parseResultsXML)
}
