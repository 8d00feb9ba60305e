package sparqlgate_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/sparqlgate"
)

// forbidden are the words no forwarded query may hold outside a string or
// an IRI.
var forbidden = map[string]bool{
	"SERVICE": true, "INSERT": true, "DELETE": true, "LOAD": true, "DEFINE": true,
	"CLEAR": true, "DROP": true, "CREATE": true, "ADD": true, "MOVE": true, "COPY": true,
	"WITH": true, "USING": true, "CONSTRUCT": true, "DESCRIBE": true,
}

// FuzzParse checks that whatever a client sends, the text the gate lets
// through holds no SERVICE, update, pragma or prefixed (bif:, sql:) call
// but an XSD cast, and reads back as itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * WHERE { ?s ?p ?o.SERVICE <http://127.0.0.1:9/x> { ?a ?b ?c } } LIMIT 1`,
		`SELECT * WHERE { ?s ?p ?o.\u0053ERVICE <http://127.0.0.1:9/x> { ?a ?b ?c } } LIMIT 1`,
		`SELECT * WHERE { ?s ?p ?x.DEFINE input:inference "x" }`,
		`SELECT * WHERE { ?s ?p ?o.INSERT DATA { <http://a> <http://b> <http://c> } }`,
		`SELECT * WHERE { ?s ?p "\u0022 . } SERVICE <http://x/> {?a ?b ?c} #" }`,
		`PREFIX bif: <bif:> SELECT * WHERE { ?s ?p ?o FILTER(bif:getenv("x")) }`,
		`PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ns:m.1 ns:type.object.name ?x } LIMIT 5`,
		`SELECT ?s (SUM(?o) AS ?t) WHERE { ?s ?p ?o OPTIONAL { ?o ?q ?r } } GROUP BY ?s HAVING (SUM(?o) > 2) ORDER BY DESC(?t)`,
		`SELECT * { { ?s <http://x/a> 1 } UNION { ?s <http://x/b> "x"@en } FILTER NOT EXISTS { ?s ?p 'y' } }`,
		`ASK { ?s <http://x/a>/^<http://x/b>* ?o VALUES ?o { 1 UNDEF } }`,
		`SELECT * WHERE { ?s ?p """long "quoted" \u0022""" }`,
		`PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT * { ?s ?p ?o FILTER(xsd:dateTime(?o) <= "2015-08-10"^^xsd:dateTime) } ORDER BY DESC(xsd:float(?o))`,
		`PREFIX x: <http://www.w3.org/2001/XMLSchema#> PREFIX xsd: <http://x/> SELECT * { ?s xsd:p ?o FILTER(x:integer(?o) > 1) }`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q, err := sparqlgate.Parse(in)
		if err != nil {
			require.ErrorIs(t, err, sparqlgate.ErrRefused)
			return
		}
		out := q.String()
		assertHarmless(t, out)
		again, err := sparqlgate.Parse(out)
		require.NoError(t, err, "canonical text %q", out)
		assert.Equal(t, out, again.String())
	})
}

// xsdPrefix is the one PREFIX a canonical query may start with, for the
// casts, which are the only prefixed names it may hold.
const xsdPrefix = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "

var casts = map[string]bool{
	"xsd:string": true, "xsd:boolean": true, "xsd:integer": true, "xsd:decimal": true,
	"xsd:float": true, "xsd:double": true, "xsd:dateTime": true,
}

// assertHarmless tokenises a canonical query (strings in "…" with
// backslash escapes, IRIs in <…>, operators spaced) and fails on a
// forbidden word, a prefixed name other than an XSD cast, a \u escape or
// a PREFIX other than xsdPrefix at the start.
func assertHarmless(t *testing.T, q string) {
	t.Helper()
	body, xsd := strings.CutPrefix(q, xsdPrefix)
	rs := []rune(body)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '"':
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' {
					i++
					require.Less(t, i, len(rs), "query %q", q)
					require.Contains(t, `"\nrt`, string(rs[i]), "escape in %q", q)
				}
			}
		case r == '<' && i+1 < len(rs) && rs[i+1] != ' ' && rs[i+1] != '=':
			for i++; i < len(rs) && rs[i] != '>'; i++ {
				require.False(t, unicode.IsSpace(rs[i]), "space in an IRI of %q", q)
			}
		case unicode.IsLetter(r) || r == '_':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_' || rs[j] == ':') {
				j++
			}
			word := string(rs[i:j])
			require.False(t, forbidden[strings.ToUpper(word)], "forbidden %q in %q", word, q)
			if strings.Contains(word, ":") {
				require.True(t, xsd && casts[word], "prefixed name %q in %q", word, q)
			}
			require.NotEqual(t, "PREFIX", strings.ToUpper(word), "in %q", q)
			i = j - 1
		case r == '\\':
			t.Fatalf("backslash outside a string in %q", q)
		case r == '?':
			for i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || unicode.IsDigit(rs[i+1]) || rs[i+1] == '_') {
				i++
			}
		}
	}
}
