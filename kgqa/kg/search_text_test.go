package kg

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/embedded"
)

func TestTextWords(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"two words", "San Francisco", []string{"San", "Francisco"}},
		{"apostrophe splits, short word dropped", "O'Hare", []string{"Hare"}},
		{"leading apostrophe and hyphen", "'s-Hertogenbosch", []string{"Hertogenbosch"}},
		{"accents are letters", "Nice Côte d'Azur", []string{"Nice", "Côte", "Azur"}},
		{"combining mark stays in its word", "e\u0301cole", []string{"e\u0301cole"}},
		{"lone combining mark is no word", "\u0301\u0301 ab", []string{"ab"}},
		{"other scripts", "東京 Москва", []string{"東京", "Москва"}},
		{"digits", "2014 World Series", []string{"2014", "World", "Series"}},
		{"letter numbers are not digits", "Ⅻ Ⅷ", nil},
		{"wildcard after four letters", "Fran*", []string{"Fran*"}},
		{"wildcard after three letters is a separator", "Fra* x", []string{"Fra"}},
		{"star inside a word splits it", "ab*cd", []string{"ab", "cd"}},
		{"double star", "Fran**", []string{"Fran*"}},
		{"repeats dropped ignoring case", "new NEW New york", []string{"new", "york"}},
		{"quotes and operators are separators", `giants" OR "france`, []string{"giants", "OR", "france"}},
		{"SPARQL breakout attempt", `x' } ; DROP ALL # \u0027 ?s`, []string{"DROP", "ALL", "u0027"}},
		{"nothing searchable", `a ' " \ * - ?`, nil},
		{"too long word dropped", strings.Repeat("a", maxTextWord+1) + " giants", []string{"giants"}},
		{"longest word kept", strings.Repeat("é", maxTextWord), []string{strings.Repeat("é", maxTextWord)}},
		{"at most eight words", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10", []string{"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, textWords(c.in))
		})
	}
}

func TestSearchTextQueryText(t *testing.T) {
	d := Freebase(DialectOptions{}).(*dialect)
	q, err := d.searchTextQuery(`O'Hare "Intl"`, 5)
	require.NoError(t, err)
	assert.Contains(t, q, `?n <bif:contains> '"Hare" AND "Intl"' .`)
	assert.Contains(t, q, `IF(LCASE(STR(?n)) = "o'hare \"intl\"", 0, 1)`)
	assert.Contains(t, q, `FILTER(LANG(?n) = "en")`)
	_, err = d.searchTextQuery("a ?", 5)
	assert.ErrorIs(t, err, errNoTextWords)
}

// openDemoText opens the demo graph on the package's Virtuoso with free-text
// search and no cache, so every call reaches the endpoint.
func openDemoText(t *testing.T) Graph {
	t.Helper()
	cfg := endpointConfig(virtuoso(t).GraphURL(demoGraph))
	cfg.FullText = true
	cfg.CacheSize = 0
	cfg.Retries = 0 // a rejected free-text expression must show at once
	g, err := Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// Names and ids below are read off kgqa/kg/demokg/freebase.nt.
func TestSearchFullTextVirtuoso(t *testing.T) {
	g := openDemoText(t)
	cases := []struct {
		name, query string
		limit       int
		want        []kgqa.Entity
	}{
		{"exact name needs no text index", "San Francisco", 5, []kgqa.Entity{{ID: "m.0d6lp", Name: "San Francisco"}}},
		{"lower case", "nijmegen", 5, []kgqa.Entity{{ID: "m.0yql28", Name: "Nijmegen"}}},
		{"every word", "san francisco giants", 5, []kgqa.Entity{{ID: "m.0713r", Name: "San Francisco Giants"}}},
		{"one word of the name, in capitals", "GIANTS", 5, []kgqa.Entity{{ID: "m.0713r", Name: "San Francisco Giants"}}},
		{"case-insensitive equal first, then shortest", "SAN FRANCISCO", 5, []kgqa.Entity{
			{ID: "m.0d6lp", Name: "San Francisco"}, {ID: "m.0713r", Name: "San Francisco Giants"}, {ID: "m.03kjw_", Name: "San Francisco International Airport"},
		}},
		{"shortest first", "düsseldorf", 5, []kgqa.Entity{{ID: "m.05nnqs", Name: "Düsseldorf"}, {ID: "m.0b3ygb", Name: "Düsseldorf Airport"}}},
		{"accented capitals", "DÜSSELDORF AIRPORT", 5, []kgqa.Entity{{ID: "m.0b3ygb", Name: "Düsseldorf Airport"}}},
		{"apostrophe", "o'hare", 5, []kgqa.Entity{{ID: "m.0ylmdc", Name: "O'Hare International Airport"}}},
		{"apostrophe and accent", "côte d'azur", 5, []kgqa.Entity{{ID: "m.0z8x_y", Name: "Nice Côte d'Azur Airport"}}},
		{"leading apostrophe", "'S-HERTOGENBOSCH", 5, []kgqa.Entity{{ID: "m.0g7dlg", Name: "'s-Hertogenbosch"}}},
		{"non-Latin letters", "chișinău", 5, []kgqa.Entity{{ID: "m.0xm78y", Name: "Chișinău"}}},
		{"wildcard, shortest first, limited", "Fran*", 3, []kgqa.Entity{
			{ID: "m.0f8l9c", Name: "France"}, {ID: "m.0wz2nd", Name: "Frankfurt"}, {ID: "m.0rzsqt", Name: "Swiss franc"},
		}},
		{"short stem: no wildcard, no error", "Fra*", 5, nil},
		{"accents are not folded", "cote d'azur", 5, nil},
		{"words are ANDed", "giants france", 5, nil},
		{"quote breakout", `giants' } ; DROP ALL #`, 5, nil},
		{"double-quote breakout", `giants" OR "france`, 5, nil},
		{"escape sequence", `giants\' . ?s ?p ?o`, 5, []kgqa.Entity{{ID: "m.0713r", Name: "San Francisco Giants"}}},
		{"free-text operators are words", "giants NEAR francisco", 5, nil},
		{"nothing searchable", `' " * - ?`, 5, nil},
		{"too long word dropped, no error", strings.Repeat("x", 80) + " giants", 5, []kgqa.Entity{{ID: "m.0713r", Name: "San Francisco Giants"}}},
		{"other language", "Frankreich", 5, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := g.Search(context.Background(), c.query, c.limit)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
	t.Run("unsafe literal is an error before any query", func(t *testing.T) {
		var st Stats
		_, err := g.Search(WithStats(context.Background(), &st), `giants \u0027`, 5)
		require.Error(t, err)
		assert.Zero(t, st.Queries.Load())
	})
}

// A miss by the exact name costs one free-text query and never the scan:
// the scan would find "giants" nowhere, so a full-text hit proves which ran.
func TestSearchFullTextQueries(t *testing.T) {
	g := openDemoText(t)
	cases := []struct {
		name, query string
		queries     int64
	}{
		{"exact hit", "Nijmegen", 1},
		{"exact miss then full text", "nijmegen", 2},
		{"miss everywhere", "Atlantis", 2},
		{"no searchable word: exact only", "a", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var st Stats
			_, err := g.Search(WithStats(context.Background(), &st), c.query, 5)
			require.NoError(t, err)
			assert.Equal(t, c.queries, st.Queries.Load())
		})
	}
}

// The embedded store has no text index: full_text is ignored and the
// case-insensitive scan runs, which matches whole names only.
func TestSearchFullTextIgnoredByEmbedded(t *testing.T) {
	cfg := config.Default().KG
	cfg.Files = []string{embedded.BuiltinDemoFreebase}
	cfg.FullText = true
	cfg.CacheSize = 0
	g, err := Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	ctx := context.Background()
	es, err := g.Search(ctx, "nijmegen", 5)
	require.NoError(t, err)
	assert.Equal(t, []kgqa.Entity{{ID: "m.0yql28", Name: "Nijmegen"}}, es)
	es, err = g.Search(ctx, "GIANTS", 5)
	require.NoError(t, err)
	assert.Empty(t, es, "a word of a name is not a name without a text index")
}
