package sparql2plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// x IN (...) and x NOT IN (...) convert as the disjunction and the
// conjunction they abbreviate.
func TestInConvertsAsItsExpansion(t *testing.T) {
	for _, tc := range []struct{ name, in, expanded string }{
		{"NOT IN is distinctness",
			"SELECT ?x WHERE { ns:m.0a ns:film.actor.film ?x . FILTER (?x NOT IN (ns:m.0a, ns:m.0b)) }",
			"SELECT ?x WHERE { ns:m.0a ns:film.actor.film ?x . FILTER (?x != ns:m.0a && ?x != ns:m.0b) }"},
		{"IN of one is equality",
			"SELECT ?x WHERE { ?x ns:film.film.directed_by ?d . FILTER (?d IN (ns:m.0c)) }",
			"SELECT ?x WHERE { ?x ns:film.film.directed_by ?d . FILTER (?d = ns:m.0c) }"},
		{"IN of two is a disjunction",
			"SELECT ?x WHERE { ?x ns:film.film.directed_by ?d . FILTER (?d IN (ns:m.0c, ns:m.0d)) }",
			"SELECT ?x WHERE { ?x ns:film.film.directed_by ?d . FILTER (?d = ns:m.0c || ?d = ns:m.0d) }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, gerr := ConvertQuery(fbPrefix+tc.in, nil)
			want, werr := ConvertQuery(fbPrefix+tc.expanded, nil)
			if werr != nil {
				require.Error(t, gerr)
				assert.Equal(t, werr.Error(), gerr.Error())
				return
			}
			require.NoError(t, gerr)
			assert.Equal(t, want, got)
		})
	}
}

// What has no plan operation is refused by the name of its construct,
// and a query that does not parse by its position.
func TestRefusalsNameTheConstruct(t *testing.T) {
	for _, tc := range []struct{ query, reason, msg string }{
		{"SELECT ?x WHERE { ns:m.0a ns:a.b ?x MINUS { ?x ns:c.d ns:m.0e } }", "unsupported: pattern MINUS", ""},
		{"SELECT ?x WHERE { ns:m.0a ns:a.b ?x SERVICE <http://example.org/sparql> { ?x ns:c.d ?y } }", "unsupported: pattern SERVICE", ""},
		{"SELECT ?x WHERE { ns:m.0a ns:a.b ?x FILTER NOT EXISTS { ?x ns:c.d ns:m.0e } }", "unsupported: FILTER NOT EXISTS", ""},
		{"SELECT ?x WHERE { ns:m.0a ^ns:a.b ?x }", "unsupported: property path with an inverse step ^p", ""},
		{"SELECT ?x WHERE { ns:m.0a ns:a.b ?x . ?x\nfoo:c ?y }", "parse", "line 3 column 1: undeclared prefix foo:"},
		{"ASK { ns:m.0a ns:a.b ns:m.0c }", "unsupported: ASK query", ""},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			_, err := ConvertQuery(fbPrefix+tc.query, nil)
			require.Error(t, err)
			assert.Equal(t, tc.reason, FailureReason(err))
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}
