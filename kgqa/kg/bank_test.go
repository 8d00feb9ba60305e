package kg

import (
	"strings"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBankLoads(t *testing.T) {
	require.NoError(t, bankErr)
	for _, tag := range bankTags {
		assert.NotEmpty(t, bank[tag], tag)
	}
}

func TestLoadBankRefusesBrokenFile(t *testing.T) {
	cases := map[string]struct{ from, to, want string }{
		"missing tag line merges two queries": {"# tag: neighbors-in\n", "", `no query tagged "neighbors-in"`},
		"misspelt tag":                        {"# tag: name\n", "# tag: nom\n", `no query tagged "name"`},
		"unknown tag":                         {"# tag: name\n", "# tag: extra\nASK {}\n# tag: name\n", `25 tagged queries, want 24`},
		"broken template":                     {"LIMIT {{.Limit}}\n\n# tag: neighbors-out", "LIMIT {{.Limit}\n\n# tag: neighbors-out", `query "wikidata-relations"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.Contains(t, bankText, c.from)
			_, err := loadBank(strings.Replace(bankText, c.from, c.to, 1))
			require.ErrorContains(t, err, c.want)
		})
	}
}

// The queries below were read against the hand-built queries the bank
// replaced (which built them identically up to whitespace over a table of
// 320 inputs) and are kept as the regression table.
func TestBankQueries(t *testing.T) {
	fb := Freebase(DialectOptions{}).(*dialect)
	fbpt := Freebase(DialectOptions{Language: "pt-BR"}).(*dialect)
	wd := Wikidata(DialectOptions{Language: "fr"}).(*dialect)
	cases := []struct {
		name  string
		build func() (string, error)
		want  string
	}{
		{"freebase relations out", func() (string, error) { return fb.relationsDirQuery(france, kgqa.Out) },
			`SELECT DISTINCT ?r WHERE { <http://rdf.freebase.com/ns/m.0f8l9c> ?r ?o . } LIMIT 5000`},
		{"freebase relations in", func() (string, error) { return fb.relationsDirQuery(france, kgqa.In) },
			`SELECT DISTINCT ?r WHERE { ?s ?r <http://rdf.freebase.com/ns/m.0f8l9c> . } LIMIT 5000`},
		{"freebase relations of several entities", func() (string, error) { return fb.relationsBatchQuery([]string{france, "m.0345h"}, maxBatchRows) },
			`SELECT DISTINCT ?e ?r ?dir WHERE { { <http://rdf.freebase.com/ns/m.0f8l9c> ?r ?o . BIND(<http://rdf.freebase.com/ns/m.0f8l9c> AS ?e) BIND("out" AS ?dir) } UNION { ?x ?r <http://rdf.freebase.com/ns/m.0f8l9c> . BIND(<http://rdf.freebase.com/ns/m.0f8l9c> AS ?e) BIND("in" AS ?dir) } UNION { <http://rdf.freebase.com/ns/m.0345h> ?r ?o . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?e) BIND("out" AS ?dir) } UNION { ?x ?r <http://rdf.freebase.com/ns/m.0345h> . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?e) BIND("in" AS ?dir) } } LIMIT 10000`},
		{"freebase relations out from the index", func() (string, error) { return fb.relationsIndexQuery(france, kgqa.Out) },
			`SELECT ?r WHERE { <urn:parog:rel:http://rdf.freebase.com/ns/m.0f8l9c> <urn:parog:rel-out> ?r . } LIMIT 5000`},
		{"freebase relations in from the index", func() (string, error) { return fb.relationsIndexQuery(france, kgqa.In) },
			`SELECT ?r WHERE { <urn:parog:rel:http://rdf.freebase.com/ns/m.0f8l9c> <urn:parog:rel-in> ?r . } LIMIT 5000`},
		{"freebase relations of several entities from the index", func() (string, error) { return fb.relationsIndexBatchQuery([]string{france, "m.0345h"}, 7000) },
			`SELECT DISTINCT ?e ?r ?dir WHERE { { <urn:parog:rel:http://rdf.freebase.com/ns/m.0f8l9c> <urn:parog:rel-out> ?r . BIND(<http://rdf.freebase.com/ns/m.0f8l9c> AS ?e) BIND("out" AS ?dir) } UNION { <urn:parog:rel:http://rdf.freebase.com/ns/m.0f8l9c> <urn:parog:rel-in> ?r . BIND(<http://rdf.freebase.com/ns/m.0f8l9c> AS ?e) BIND("in" AS ?dir) } UNION { <urn:parog:rel:http://rdf.freebase.com/ns/m.0345h> <urn:parog:rel-out> ?r . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?e) BIND("out" AS ?dir) } UNION { <urn:parog:rel:http://rdf.freebase.com/ns/m.0345h> <urn:parog:rel-in> ?r . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?e) BIND("in" AS ?dir) } } LIMIT 7000`},
		{"wikidata relations", func() (string, error) { return wd.relationsQuery("Q142") },
			`SELECT DISTINCT ?r ?dir WHERE { { <http://www.wikidata.org/entity/Q142> ?r ?o . BIND("out" AS ?dir) } UNION { ?s ?r <http://www.wikidata.org/entity/Q142> . BIND("in" AS ?dir) } UNION { <http://www.wikidata.org/entity/Q142> ?r ?m . FILTER(STRSTARTS(STR(?r), "http://www.wikidata.org/prop/P")) FILTER NOT EXISTS { ?m <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#DeprecatedRank> } BIND("statement-out" AS ?dir) } UNION { ?m ?r <http://www.wikidata.org/entity/Q142> . FILTER(STRSTARTS(STR(?r), "http://www.wikidata.org/prop/statement/")) FILTER NOT EXISTS { ?m <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#DeprecatedRank> } BIND("statement-in" AS ?dir) } } LIMIT 5000`},
		{"freebase neighbors out", func() (string, error) {
			return fb.neighborsQuery(france, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, 5)
		}, `SELECT DISTINCT ?t WHERE { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.contains> ?t . } ORDER BY ?t LIMIT 5`},
		{"freebase neighbors in", func() (string, error) {
			return fb.neighborsQuery(france, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.In}, 200)
		}, `SELECT DISTINCT ?t WHERE { ?t <http://rdf.freebase.com/ns/location.location.contains> <http://rdf.freebase.com/ns/m.0f8l9c> . } ORDER BY ?t LIMIT 200`},
		{"freebase neighbors of several entities out", func() (string, error) {
			return fb.neighborsBatchQuery([]string{france, germany}, kgqa.Relation{ID: "location.location.area", Dir: kgqa.Out}, 100)
		}, `SELECT DISTINCT ?h ?t WHERE { { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.area> ?t . BIND(<http://rdf.freebase.com/ns/m.0f8l9c> AS ?h) } UNION { <http://rdf.freebase.com/ns/m.0345h> <http://rdf.freebase.com/ns/location.location.area> ?t . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?h) } } ORDER BY ?h ?t LIMIT 100`},
		{"freebase neighbors of several entities in", func() (string, error) {
			return fb.neighborsBatchQuery([]string{france, germany}, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.In}, 100)
		}, `SELECT DISTINCT ?h ?t WHERE { { ?t <http://rdf.freebase.com/ns/location.location.contains> <http://rdf.freebase.com/ns/m.0f8l9c> . BIND(<http://rdf.freebase.com/ns/m.0f8l9c> AS ?h) } UNION { ?t <http://rdf.freebase.com/ns/location.location.contains> <http://rdf.freebase.com/ns/m.0345h> . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?h) } } ORDER BY ?h ?t LIMIT 100`},
		{"wikidata neighbors use wdt:", func() (string, error) { return wd.neighborsQuery("Q142", kgqa.Relation{ID: "P39", Dir: kgqa.Out}, 3) },
			`SELECT DISTINCT ?t WHERE { <http://www.wikidata.org/entity/Q142> <http://www.wikidata.org/prop/direct/P39> ?t . } ORDER BY ?t LIMIT 3`},
		{"freebase names", func() (string, error) { return fb.namesQuery([]string{"m.0cvt000", "m.0cvt001", "g.11b6x_1"}) },
			`SELECT DISTINCT ?t ?n WHERE { { { <http://rdf.freebase.com/ns/m.0cvt000> <http://rdf.freebase.com/ns/type.object.name> ?n . BIND(<http://rdf.freebase.com/ns/m.0cvt000> AS ?t) } UNION { <http://rdf.freebase.com/ns/m.0cvt001> <http://rdf.freebase.com/ns/type.object.name> ?n . BIND(<http://rdf.freebase.com/ns/m.0cvt001> AS ?t) } UNION { <http://rdf.freebase.com/ns/g.11b6x_1> <http://rdf.freebase.com/ns/type.object.name> ?n . BIND(<http://rdf.freebase.com/ns/g.11b6x_1> AS ?t) } } FILTER(LANG(?n) = "en") }`},
		{"wikidata names", func() (string, error) { return wd.namesQuery([]string{"Q1", "Q2"}) },
			`SELECT DISTINCT ?t ?n WHERE { { { <http://www.wikidata.org/entity/Q1> <http://www.w3.org/2000/01/rdf-schema#label> ?n . BIND(<http://www.wikidata.org/entity/Q1> AS ?t) } UNION { <http://www.wikidata.org/entity/Q2> <http://www.w3.org/2000/01/rdf-schema#label> ?n . BIND(<http://www.wikidata.org/entity/Q2> AS ?t) } } FILTER(LANG(?n) = "fr") }`},
		{"one name", func() (string, error) { return fb.namesQuery([]string{"m.0cvt000"}) },
			`SELECT DISTINCT ?t ?n WHERE { { { <http://rdf.freebase.com/ns/m.0cvt000> <http://rdf.freebase.com/ns/type.object.name> ?n . BIND(<http://rdf.freebase.com/ns/m.0cvt000> AS ?t) } } FILTER(LANG(?n) = "en") }`},
		{"mediators", func() (string, error) { return fb.mediatorQuery(france, []string{"m.0cvt000", "m.0cvt001"}) },
			`SELECT DISTINCT ?m ?r ?t ?d WHERE { { { <http://rdf.freebase.com/ns/m.0cvt000> ?r ?t . BIND(<http://rdf.freebase.com/ns/m.0cvt000> AS ?m) BIND("out" AS ?d) } UNION { ?t ?r <http://rdf.freebase.com/ns/m.0cvt000> . BIND(<http://rdf.freebase.com/ns/m.0cvt000> AS ?m) BIND("in" AS ?d) } UNION { <http://rdf.freebase.com/ns/m.0cvt001> ?r ?t . BIND(<http://rdf.freebase.com/ns/m.0cvt001> AS ?m) BIND("out" AS ?d) } UNION { ?t ?r <http://rdf.freebase.com/ns/m.0cvt001> . BIND(<http://rdf.freebase.com/ns/m.0cvt001> AS ?m) BIND("in" AS ?d) } } FILTER(?t != <http://rdf.freebase.com/ns/m.0f8l9c>) } LIMIT 10000`},
		{"wikidata qualifiers", func() (string, error) {
			return wd.qualifierQuery("Q142", kgqa.Relation{ID: "P39", Dir: kgqa.Out}, 10000)
		},
			`SELECT DISTINCT ?m ?r ?t WHERE { <http://www.wikidata.org/entity/Q142> <http://www.wikidata.org/prop/P39> ?m . ?m ?r ?t . FILTER(STRSTARTS(STR(?r), "http://www.wikidata.org/prop/qualifier/") || ?r = <http://www.wikidata.org/prop/statement/P39>) FILTER NOT EXISTS { ?m <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#DeprecatedRank> } } ORDER BY ?m ?r ?t LIMIT 10000`},
		{"wikidata incoming qualifiers", func() (string, error) {
			return wd.qualifierQuery("Q142", kgqa.Relation{ID: "P39", Dir: kgqa.In}, 10000)
		},
			`SELECT DISTINCT ?m ?s ?r ?t WHERE { ?m <http://www.wikidata.org/prop/statement/P39> <http://www.wikidata.org/entity/Q142> . ?s <http://www.wikidata.org/prop/P39> ?m . ?m ?r ?t . FILTER(STRSTARTS(STR(?r), "http://www.wikidata.org/prop/qualifier/") || ?r = <http://www.wikidata.org/prop/statement/P39>) FILTER NOT EXISTS { ?m <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#DeprecatedRank> } } ORDER BY ?m ?r ?t LIMIT 10000`},
		{"freebase name", func() (string, error) { return fb.nameQuery(france) },
			`SELECT ?n WHERE { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/type.object.name> ?n . FILTER(LANG(?n) = "en" || LANG(?n) = "") } LIMIT 10`},
		{"wikidata name", func() (string, error) { return wd.nameQuery("Q142") },
			`SELECT ?n WHERE { <http://www.wikidata.org/entity/Q142> <http://www.w3.org/2000/01/rdf-schema#label> ?n . FILTER(LANG(?n) = "fr" || LANG(?n) = "") } LIMIT 10`},
		{"exact search in a lower-cased region tag", func() (string, error) { return fbpt.searchExactQuery("France", 10) },
			`SELECT DISTINCT ?e WHERE { ?e <http://rdf.freebase.com/ns/type.object.name> "France"@pt-br . } LIMIT 10`},
		{"exact search escapes quotes", func() (string, error) { return fb.searchExactQuery(`O'Hare "Intl"`, 1) },
			`SELECT DISTINCT ?e WHERE { ?e <http://rdf.freebase.com/ns/type.object.name> "O'Hare \"Intl\""@en . } LIMIT 1`},
		{"exact search in another script", func() (string, error) { return wd.searchExactQuery("東京", 5) },
			`SELECT DISTINCT ?e WHERE { ?e <http://www.w3.org/2000/01/rdf-schema#label> "東京"@fr . } LIMIT 5`},
		{"folded search keeps the literal's spaces", func() (string, error) { return fb.searchFoldQuery("New  York", 10) },
			`SELECT DISTINCT ?e ?n WHERE { ?e <http://rdf.freebase.com/ns/type.object.name> ?n . FILTER(LANG(?n) = "en") FILTER(LCASE(STR(?n)) = "new  york") } LIMIT 10`},
		{"folded search escapes a backslash", func() (string, error) { return fb.searchFoldQuery(`back\slash`, 10) },
			`SELECT DISTINCT ?e ?n WHERE { ?e <http://rdf.freebase.com/ns/type.object.name> ?n . FILTER(LANG(?n) = "en") FILTER(LCASE(STR(?n)) = "back\\slash") } LIMIT 10`},
		{"count out", func() (string, error) {
			return fb.countQuery(france, kgqa.Relation{ID: "location.location.adjoin_s", Dir: kgqa.Out})
		},
			`SELECT (COUNT(DISTINCT ?t) AS ?n) WHERE { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.adjoin_s> ?t . }`},
		{"count in", func() (string, error) { return wd.countQuery("Q142", kgqa.Relation{ID: "P47", Dir: kgqa.In}) },
			`SELECT (COUNT(DISTINCT ?t) AS ?n) WHERE { ?t <http://www.wikidata.org/prop/direct/P47> <http://www.wikidata.org/entity/Q142> . }`},
		{"linked out", func() (string, error) {
			return fb.linkedQuery(france, kgqa.Relation{ID: "location.location.adjoin_s", Dir: kgqa.Out}, []string{"m.0345h", "m.06mkj"})
		}, `SELECT DISTINCT ?t ?m ?r WHERE { { { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.adjoin_s> <http://rdf.freebase.com/ns/m.0345h> . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?t) } UNION { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.adjoin_s> ?m . ?m ?r <http://rdf.freebase.com/ns/m.0345h> . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?t) } UNION { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.adjoin_s> ?m . <http://rdf.freebase.com/ns/m.0345h> ?r ?m . BIND(<http://rdf.freebase.com/ns/m.0345h> AS ?t) } UNION { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.adjoin_s> <http://rdf.freebase.com/ns/m.06mkj> . BIND(<http://rdf.freebase.com/ns/m.06mkj> AS ?t) } UNION { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.adjoin_s> ?m . ?m ?r <http://rdf.freebase.com/ns/m.06mkj> . BIND(<http://rdf.freebase.com/ns/m.06mkj> AS ?t) } UNION { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.location.adjoin_s> ?m . <http://rdf.freebase.com/ns/m.06mkj> ?r ?m . BIND(<http://rdf.freebase.com/ns/m.06mkj> AS ?t) } } } LIMIT 10000`},
		{"linked in", func() (string, error) {
			return fb.linkedQuery(nijmegen, kgqa.Relation{ID: "aviation.airport.serves", Dir: kgqa.In}, []string{"m.0gn2g3"})
		}, `SELECT DISTINCT ?t ?m ?r WHERE { { { <http://rdf.freebase.com/ns/m.0gn2g3> <http://rdf.freebase.com/ns/aviation.airport.serves> <http://rdf.freebase.com/ns/m.05l5n> . BIND(<http://rdf.freebase.com/ns/m.0gn2g3> AS ?t) } UNION { ?m <http://rdf.freebase.com/ns/aviation.airport.serves> <http://rdf.freebase.com/ns/m.05l5n> . ?m ?r <http://rdf.freebase.com/ns/m.0gn2g3> . BIND(<http://rdf.freebase.com/ns/m.0gn2g3> AS ?t) } UNION { ?m <http://rdf.freebase.com/ns/aviation.airport.serves> <http://rdf.freebase.com/ns/m.05l5n> . <http://rdf.freebase.com/ns/m.0gn2g3> ?r ?m . BIND(<http://rdf.freebase.com/ns/m.0gn2g3> AS ?t) } } } LIMIT 10000`},
		{"free-text search", func() (string, error) { return fb.searchTextQuery(`Fran* O'Hare "Intl"`, 10) },
			`SELECT DISTINCT ?e ?n WHERE { ?e <http://rdf.freebase.com/ns/type.object.name> ?n . ?n <bif:contains> '"Fran*" AND "Hare" AND "Intl"' . FILTER(LANG(?n) = "en") } ORDER BY (IF(LCASE(STR(?n)) = "fran* o'hare \"intl\"", 0, 1)) STRLEN(STR(?n)) ?e LIMIT 10`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := c.build()
			require.NoError(t, err)
			assert.Equal(t, c.want, q)
		})
	}
}

func TestBuildersRefuseBadInput(t *testing.T) {
	fb := Freebase(DialectOptions{}).(*dialect)
	wd := Wikidata(DialectOptions{}).(*dialect)
	rel := kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}
	cases := []struct {
		name  string
		build func() (string, error)
		want  error
	}{
		{"entity outside the grammar", func() (string, error) { return fb.relationsDirQuery("m.0f8l9c> ?p ?o } #", kgqa.Out) }, ErrInvalidID},
		{"entity outside the grammar in a batch", func() (string, error) {
			return fb.relationsBatchQuery([]string{france, "m.0f8l9c> ?p ?o } #"}, maxBatchRows)
		}, ErrInvalidID},
		{"entity outside the grammar from the index", func() (string, error) { return fb.relationsIndexQuery("m.0f8l9c> ?p ?o } #", kgqa.In) }, ErrInvalidID},
		{"entity outside the grammar in a batch from the index", func() (string, error) {
			return fb.relationsIndexBatchQuery([]string{france, "m.0f8l9c> ?p ?o } #"}, maxBatchRows)
		}, ErrInvalidID},
		{"wikidata id on freebase", func() (string, error) { return fb.nameQuery("Q142") }, ErrInvalidID},
		{"relation outside the grammar", func() (string, error) {
			return fb.neighborsQuery(france, kgqa.Relation{ID: "a.b.c> ?x", Dir: kgqa.Out}, 5)
		}, ErrInvalidID},
		{"unknown direction", func() (string, error) { return fb.neighborsQuery(france, kgqa.Relation{ID: rel.ID, Dir: "up"}, 5) }, ErrInvalidID},
		{"statement property outside the grammar", func() (string, error) {
			return wd.qualifierQuery("Q1", kgqa.Relation{ID: "P39> ?m", Dir: kgqa.Out}, 5)
		}, ErrInvalidID},
		{"one bad subject among good ones", func() (string, error) {
			return fb.namesQuery([]string{"m.0cvt000", "m.x y"})
		}, ErrInvalidID},
		{"bad mediator head", func() (string, error) { return fb.mediatorQuery("", []string{"m.0cvt000"}) }, ErrInvalidID},
		{"bad count relation", func() (string, error) { return fb.countQuery(france, kgqa.Relation{ID: "a.b.c> ?x", Dir: kgqa.In}) }, ErrInvalidID},
		{"bad linked candidate", func() (string, error) {
			return fb.linkedQuery(france, rel, []string{"m.0345h", "m.0345h> ?p ?o"})
		}, ErrInvalidID},
		{"no subjects", func() (string, error) { return fb.namesQuery(nil) }, nil},
		{"no word to search for", func() (string, error) { return fb.searchTextQuery("a ?", 5) }, errNoTextWords},
		{"\\u escape in a name", func() (string, error) { return fb.searchExactQuery(`\u0022`, 5) }, nil},
		{"control character in a name", func() (string, error) { return fb.searchFoldQuery("a\nb", 5) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := c.build()
			require.Error(t, err)
			assert.Empty(t, q)
			if c.want != nil {
				assert.ErrorIs(t, err, c.want)
			}
		})
	}
}
