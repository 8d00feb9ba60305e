package demokg

import (
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/sparql"
)

const fbPrefix = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"

var (
	midRE      = regexp.MustCompile(`^m\.0[0-9a-z_]+$`)
	relationRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+){2}$`)
	typeRE     = regexp.MustCompile(`^[a-z][a-z0-9_]*\.[a-z0-9_]+$`)
)

// mediatorTypes are the CVT types of the Freebase demo graph.
var mediatorTypes = []string{
	"location.adjoining_relationship",
	"measurement_unit.dated_integer",
	"sports.sports_league_participation",
	"sports.team_venue_relationship",
	"film.performance",
}

// rows runs a SELECT on g and returns the bindings as namespace-stripped
// strings (see termKey).
func rows(t testing.TB, g *rdflibgo.Graph, q string) []map[string]string {
	t.Helper()
	res, err := sparql.Query(g, fbPrefix+q)
	require.NoError(t, err, q)
	out := make([]map[string]string, 0, len(res.Bindings))
	for _, b := range res.Bindings {
		row := map[string]string{}
		for k, v := range b {
			row[k] = termKey(v, fbNS)
		}
		out = append(out, row)
	}
	return out
}

func column(rs []map[string]string, v string) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r[v])
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func TestFreebaseGraphShape(t *testing.T) {
	g := load(t, Freebase())
	assert.GreaterOrEqual(t, g.Len(), 1500, "triples")

	named := rows(t, g, `SELECT ?e ?n WHERE { ?e ns:type.object.name ?n }`)
	assert.GreaterOrEqual(t, len(column(named, "e")), 150, "named entities")
	typed := map[string]bool{}
	for _, r := range rows(t, g, `SELECT ?e ?t WHERE { ?e ns:type.object.type ?t FILTER (?t != <http://rdf.freebase.com/ns/common.topic>) }`) {
		typed[r["e"]] = true
	}
	for _, r := range named {
		assert.Regexp(t, midRE, r["e"], "named entity %q", r["n"])
		assert.True(t, typed[r["e"]], "entity %q (%s) has no domain type", r["n"], r["e"])
	}

	for _, r := range rows(t, g, `SELECT ?s ?p ?o WHERE { ?s ?p ?o }`) {
		assert.Regexp(t, midRE, r["s"], "subject")
		assert.Regexp(t, relationRE, r["p"], "predicate")
	}
	for _, o := range column(rows(t, g, `SELECT ?o WHERE { ?s ns:type.object.type ?o }`), "o") {
		assert.Regexp(t, typeRE, o, "type")
	}
}

func TestFreebaseMediatorsHaveNoName(t *testing.T) {
	g := load(t, Freebase())
	named := map[string]bool{}
	for _, e := range column(rows(t, g, `SELECT ?e WHERE { ?e ns:type.object.name ?n }`), "e") {
		named[e] = true
	}
	total := 0
	for _, typ := range mediatorTypes {
		t.Run(typ, func(t *testing.T) {
			cvts := column(rows(t, g, `SELECT ?m WHERE { ?m ns:type.object.type ns:`+typ+` }`), "m")
			require.NotEmpty(t, cvts)
			total += len(cvts)
			for _, m := range cvts {
				assert.False(t, named[m], "mediator %s has a name", m)
			}
		})
	}
	// Every nameless node is a mediator: hub relations point only at them.
	all := column(rows(t, g, `SELECT ?s WHERE { ?s ?p ?o }`), "s")
	assert.Equal(t, len(all)-len(named), total, "nameless subjects that are not typed mediators")
	for _, hub := range []string{"location.location.adjoin_s", "location.statistical_region.population", "film.film.starring"} {
		for _, m := range column(rows(t, g, `SELECT ?m WHERE { ?x ns:`+hub+` ?m }`), "m") {
			assert.False(t, named[m], "%s leads to named node %s", hub, m)
		}
	}
}

// TestNijmegenTruncationBias checks the design of the paper's conjunction
// example: a linear path that keeps only the top 3 candidates at a hop loses
// Germany, from either topic entity, while the conjunction keeps it.
//
// The order used is the one a lexical scorer falls back to here: no
// candidate name shares a word with the question, so every score ties and
// ties are broken by ascending name.
func TestNijmegenTruncationBias(t *testing.T) {
	g := load(t, Freebase())
	const topK = 3
	byName := func(q string) (ids, names []string) {
		rs := rows(t, g, q)
		sort.Slice(rs, func(i, j int) bool { return rs[i]["n"] < rs[j]["n"] })
		for _, r := range rs {
			ids, names = append(ids, r["x"]), append(names, r["n"])
		}
		return ids, names
	}
	germany, france, nijmegen := "m.0345h", "m.0f8l9c", nameOf(t, g, "Nijmegen")

	neighbours, neighbourNames := byName(`SELECT DISTINCT ?x ?n WHERE { ns:` + france + ` ns:location.location.adjoin_s ?y .
		?y ns:location.adjoining_relationship.adjoins ?x . ?x ns:type.object.name ?n }`)
	require.GreaterOrEqual(t, len(neighbours), 5, "France's neighbours")
	assert.NotContains(t, neighbours[:topK], germany, "Germany must fall outside the top %d of %v", topK, neighbourNames)
	assert.Contains(t, neighbours, germany)

	airports, airportNames := byName(`SELECT DISTINCT ?x ?n WHERE { ?x ns:aviation.airport.serves ns:` + nijmegen + ` . ?x ns:type.object.name ?n }`)
	require.GreaterOrEqual(t, len(airports), 3, "airports serving Nijmegen")
	assert.Equal(t, "Weeze Airport", airportNames[len(airportNames)-1], "the German airport sorts last")

	countriesOf := func(airports []string) []string {
		var out []string
		for _, a := range airports {
			out = append(out, column(rows(t, g, `SELECT ?x WHERE { ?x ns:location.location.contains ns:`+a+` .
				?x ns:type.object.type ns:location.country }`), "x")...)
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	intersect := func(a, b []string) []string {
		var out []string
		for _, x := range a {
			if slices.Contains(b, x) {
				out = append(out, x)
			}
		}
		return out
	}
	allCountries := countriesOf(airports)
	assert.GreaterOrEqual(t, len(allCountries), 2, "countries holding an airport that serves Nijmegen")
	assert.Equal(t, []string{germany}, intersect(neighbours, allCountries), "the conjunction plan")
	assert.Empty(t, intersect(neighbours[:topK], allCountries), "linear path from France, top %d", topK)
	assert.Empty(t, intersect(neighbours, countriesOf(airports[:topK])), "linear path from Nijmegen, top %d", topK)

	withAirports := rows(t, g, `SELECT DISTINCT ?c WHERE { ?c ns:type.object.type ns:location.country .
		?c ns:location.location.contains ?a . ?a ns:type.object.type ns:aviation.airport }`)
	assert.GreaterOrEqual(t, len(withAirports), 5, "countries containing airports")
	servedCities := column(rows(t, g, `SELECT ?c WHERE { ?a ns:aviation.airport.serves ?c }`), "c")
	assert.GreaterOrEqual(t, len(servedCities), 10, "distinct cities served by airports")
}

// TestLouSealDistractors: the Giants won several dated World Series, later
// World Series were won by others, and the Giants also lost some, so
// neither "the latest World Series" nor "any Giants World Series" answers.
func TestLouSealDistractors(t *testing.T) {
	g := load(t, Freebase())
	giants := "m.0713r"
	won := rows(t, g, `SELECT ?e ?d WHERE { ns:`+giants+` ns:sports.sports_team.championships ?e . ?e ns:time.event.end_date ?d }`)
	require.GreaterOrEqual(t, len(won), 3)
	latest := ""
	for _, r := range won {
		latest = max(latest, r["d"])
	}
	assert.Equal(t, "2014-10-29^^"+xsdNS+"date", latest)
	later := 0
	for _, r := range rows(t, g, `SELECT ?e ?d WHERE { ?e ns:sports.sports_championship_event.championship ?c .
		?c ns:type.object.name "World Series"@en . ?e ns:time.event.end_date ?d }`) {
		if r["d"] > latest {
			later++
		}
	}
	assert.GreaterOrEqual(t, later, 3, "World Series after the Giants' last title")
	lost := rows(t, g, `SELECT ?e WHERE { ?e ns:sports.sports_championship_event.runner_up ns:`+giants+` }`)
	assert.NotEmpty(t, lost, "World Series the Giants lost")
}

func nameOf(t testing.TB, g *rdflibgo.Graph, name string) string {
	t.Helper()
	ids := column(rows(t, g, `SELECT ?x WHERE { ?x ns:type.object.name "`+name+`"@en }`), "x")
	require.Len(t, ids, 1, "entities named %q", name)
	return ids[0]
}

func TestWikidataGraphShape(t *testing.T) {
	g := load(t, Wikidata())
	assert.GreaterOrEqual(t, g.Len(), 200, "triples")
	count := func(q string) int {
		res, err := sparql.Query(g, q)
		require.NoError(t, err, q)
		return len(res.Bindings)
	}
	assert.Positive(t, count(`SELECT ?s WHERE { ?s <http://www.wikidata.org/prop/direct/P47> ?o }`), "wdt: edges")
	assert.Positive(t, count(`SELECT ?st WHERE { ?e <http://www.wikidata.org/prop/P1082> ?st .
		?st <http://www.wikidata.org/prop/statement/P1082> ?v . ?st <http://www.wikidata.org/prop/qualifier/P585> ?t }`), "p:/ps:/pq: statements")
	unlabelled := count(`SELECT ?e WHERE { ?e <http://www.wikidata.org/prop/direct/P31> ?c .
		FILTER NOT EXISTS { ?e <http://www.w3.org/2000/01/rdf-schema#label> ?l FILTER (LANG(?l) = "en") } }`)
	assert.Zero(t, unlabelled, "items without an English label")
}
