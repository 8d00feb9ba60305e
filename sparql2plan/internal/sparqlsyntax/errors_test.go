package sparqlsyntax

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each fault is reported at its line and column, with what was expected
// and what was found.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, query string
		line, col   int
		msg         string
	}{
		{"undeclared prefix", "SELECT ?x WHERE {\n  ?x ns:a ?y }", 2, 6, "undeclared prefix ns: in ns:a"},
		{"missing dot between triples", "SELECT ?x WHERE { ?x <p> ?y ?y <q> ?z }", 1, 29, "expected '.' between triple patterns, found variable ?y"},
		{"unclosed group", "SELECT ?x WHERE {\n ?x <p> ?y .\n", 1, 17, "'{' is never closed"},
		{"OR keyword", "SELECT ?x WHERE { ?x <p> ?y FILTER (?y = 1 OR ?y = 2) }", 1, 44, `expected ')', found name "OR"`},
		{"unterminated string", "SELECT ?x WHERE { ?x <p> \"abc }", 1, 26, "unterminated string"},
		{"line break in string", "SELECT ?x WHERE { ?x <p> \"ab\nc\" }", 1, 29, "line break in a string"},
		{"bad escape", `SELECT ?x WHERE { ?x <p> "a\qb" }`, 1, 28, `unknown escape \q`},
		{"construct", "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", 1, 1, "CONSTRUCT queries are not supported"},
		{"no form", "PREFIX ns: <http://x/> { ?s ?p ?o }", 1, 24, "expected SELECT or ASK, found symbol \"{\""},
		{"bad prefix line", "PREFIX ns <http://x/> SELECT * { }", 1, 8, "expected a prefix such as ns: after PREFIX"},
		{"empty projection", "SELECT WHERE { ?s ?p ?o }", 1, 8, "expected a variable, (expression AS ?var) or * after SELECT"},
		{"AS without variable", "SELECT (COUNT(?x) AS n) { ?x ?p ?o }", 1, 22, "expected a variable after AS"},
		{"limit not a number", "SELECT ?x { ?x ?p ?o } LIMIT ten", 1, 30, "expected a whole number after LIMIT"},
		{"trailing text", "SELECT ?x { ?x ?p ?o } garbage", 1, 24, `expected end of query, found name "garbage"`},
		{"values row width", "SELECT ?x { VALUES (?x ?y) { (<a>) } }", 1, 30, "a VALUES row of 1 values for 2 variables"},
		{"collection", "SELECT ?x { ?x <p> (1 2) }", 1, 20, "RDF collections ( ... ) are not supported"},
		{"unknown name in filter", "SELECT ?x { ?x <p> ?y FILTER (?y = banana) }", 1, 36, `unknown name "banana"`},
		{"bad character", "SELECT ?x { ?x <p> ?y ; ~ }", 1, 25, `unexpected character '~'`},
		{"sub-select not alone", "SELECT ?x { SELECT ?x { ?x ?p ?o } ?x <q> ?z }", 1, 36, "'}' to close the sub-select"},
		{"column counts characters", "SELECT ?x { ?x <p> \"é\" ; ns:q ?y }", 1, 26, "undeclared prefix ns:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.query)
			require.Error(t, err)
			var se *SyntaxError
			require.True(t, errors.As(err, &se), "%v is a *SyntaxError", err)
			assert.Equal(t, tc.line, se.Line, "line of %v", err)
			assert.Equal(t, tc.col, se.Column, "column of %v", err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Contains(t, err.Error(), "sparqlsyntax: line ")
		})
	}
}

// FuzzParse checks that no input panics the parser, and that every
// refusal is a *SyntaxError that points inside the query.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		pfx + `SELECT DISTINCT ?x WHERE { ns:m.0a ns:b.c ?x . FILTER (?x != ns:m.0a) FILTER (!isLiteral(?x) || lang(?x) = '') }`,
		`SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { { ?x <p>/<q>* ?y } UNION { ?x ^<r> [ <s> "t"@en ] } OPTIONAL { ?x <u> 1.5e2 } } GROUP BY ?y HAVING (COUNT(?x) > 1) ORDER BY DESC(?n) LIMIT 1 OFFSET 2`,
		`ASK { ?x <p> ?y FILTER NOT EXISTS { ?y <q> "a\"b" } BIND (str(?y) AS ?z) VALUES (?x ?y) { (<a> UNDEF) } }`,
		`SELECT * { ?x <p> """long
string""" ; <q> -3 , +4 , true . _:b <r> ?x FILTER (?x IN (1, 2) && ?x NOT IN (3)) }`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		_, err := Parse(q)
		if err == nil {
			return
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%q: %v is not a *SyntaxError", q, err)
		}
		if se.Offset < 0 || se.Offset > len(q) || se.Line < 1 || se.Column < 1 {
			t.Fatalf("%q: position %+v outside the query", q, se)
		}
	})
}
