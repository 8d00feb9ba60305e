package sparql2plan

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/realdata"
)

const fbPrefix = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"

// fbXSD declares xsd: too, as compiled queries do.
const fbXSD = fbPrefix + "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"

// TestSameAlgebra checks the normal form on hand-written pairs: what it
// must ignore (names, order, grouping, redundant filters, the compiler's
// casts and guards) and what it must catch, by cause.
func TestSameAlgebra(t *testing.T) {
	gold := fbPrefix + `SELECT DISTINCT ?x WHERE {
FILTER (?x != ns:m.0f8l9c)
FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))
ns:m.0f8l9c ns:location.location.adjoin_s ?y .
?y ns:location.adjoining_relationship.adjoins ?x .
?x ns:location.location.contains ?a .
?a ns:aviation.airport.serves ns:m.0yql28 . }`
	tests := []struct {
		name, gold, compiled, cause string
	}{
		{"renamed, reordered, regrouped", gold, fbPrefix + `SELECT DISTINCT ?answer WHERE {
  { ?z ns:aviation.airport.serves ns:m.0yql28 . ?answer ns:location.location.contains ?z . }
  { ns:m.0f8l9c ns:location.location.adjoin_s ?m1 . ?m1 ns:location.adjoining_relationship.adjoins ?answer .
    FILTER(?answer != <http://rdf.freebase.com/ns/m.0f8l9c>) } }`, ""},
		{"a relation differs", gold, fbPrefix + `SELECT DISTINCT ?answer WHERE {
  ns:m.0f8l9c ns:location.location.adjoin_s ?m . ?m ns:location.adjoining_relationship.adjoins ?answer .
  ?answer ns:location.location.containedby ?z . ?z ns:aviation.airport.serves ns:m.0yql28 . }`, "different relations"},
		{"a direction differs", gold, fbPrefix + `SELECT DISTINCT ?answer WHERE {
  ns:m.0f8l9c ns:location.location.adjoin_s ?m . ?m ns:location.adjoining_relationship.adjoins ?answer .
  ?z ns:location.location.contains ?answer . ?z ns:aviation.airport.serves ns:m.0yql28 . }`, "same relations, different joins or directions"},
		{"a pattern is missing", gold, fbPrefix + `SELECT DISTINCT ?answer WHERE {
  ns:m.0f8l9c ns:location.location.adjoin_s ?m . ?m ns:location.adjoining_relationship.adjoins ?answer . }`, "compiled has fewer triple patterns"},
		{"comparison through the compiler's date key", fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.0fhp9 ns:travel.travel_destination.tourist_attractions ?x .
?x ns:architecture.museum.established ?num . FILTER (?num < "1971"^^xsd:dateTime) . }`, fbPrefix + `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT DISTINCT ?answer WHERE { ns:m.0fhp9 ns:travel.travel_destination.tourist_attractions ?answer .
?answer ns:architecture.museum.established ?v1 . FILTER(REGEX(STR(?v1), "^[0-9]{4}$"))
FILTER(SUBSTR(CONCAT(STR(?v1), "-01-01"), 1, 10) < "1971-01-01") }`, ""},
		{"comparison the other way", fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.0fhp9 ns:travel.travel_destination.tourist_attractions ?x .
?x ns:architecture.museum.established ?num . FILTER (?num < "1971"^^xsd:dateTime) . }`, fbPrefix + `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT DISTINCT ?answer WHERE { ns:m.0fhp9 ns:travel.travel_destination.tourist_attractions ?answer .
?answer ns:architecture.museum.established ?v1 . FILTER(SUBSTR(CONCAT(STR(?v1), "-01-01"), 1, 10) > "1971-01-01") }`, "comparisons differ"},
		{"a compared number read as a date", fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.0f2wj ns:travel.travel_destination.tourist_attractions ?x .
?x ns:architecture.venue.capacity "1152" . }`, fbPrefix + `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT DISTINCT ?answer WHERE { ns:m.0f2wj ns:travel.travel_destination.tourist_attractions ?answer .
?answer ns:architecture.venue.capacity ?v1 . FILTER(?v1 = "1152-01-01"^^xsd:date) }`, "different constants (entities or values)"},
		{"superlative as ORDER BY and as MAX", fbPrefix + `SELECT DISTINCT ?x WHERE { ?c ns:sports.sports_team.team_mascot ns:m.03_dwn .
?c ns:sports.sports_team.championships ?x . ?x ns:time.event.start_date ?d . } ORDER BY DESC(xsd:datetime(?d)) LIMIT 1`,
			fbPrefix + `SELECT DISTINCT ?answer WHERE {
{ SELECT (MAX(SUBSTR(CONCAT(STR(?v3), "-01-01"), 1, 10)) AS ?best1) WHERE { ?x4 ns:sports.sports_team.team_mascot ns:m.03_dwn .
  ?x4 ns:sports.sports_team.championships ?o2 . ?o2 ns:time.event.start_date ?v3 . } }
?x5 ns:sports.sports_team.team_mascot ns:m.03_dwn . ?x5 ns:sports.sports_team.championships ?answer .
?answer ns:time.event.start_date ?v6 . FILTER(SUBSTR(CONCAT(STR(?v6), "-01-01"), 1, 10) = ?best1) }`, ""},
		{"superlative the other way", fbPrefix + `SELECT DISTINCT ?x WHERE { ?c ns:sports.sports_team.team_mascot ns:m.03_dwn .
?c ns:sports.sports_team.championships ?x . ?x ns:time.event.start_date ?d . } ORDER BY ?d LIMIT 1`,
			fbPrefix + `SELECT DISTINCT ?answer WHERE {
{ SELECT (MAX(?v3) AS ?best1) WHERE { ?x4 ns:sports.sports_team.team_mascot ns:m.03_dwn .
  ?x4 ns:sports.sports_team.championships ?o2 . ?o2 ns:time.event.start_date ?v3 . } }
?x5 ns:sports.sports_team.team_mascot ns:m.03_dwn . ?x5 ns:sports.sports_team.championships ?answer .
?answer ns:time.event.start_date ?v6 . FILTER(?v6 = ?best1) }`, "superlative order differs"},
		{"count in a sub-select", fbPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ns:m.0f8l9c ns:location.location.contains ?x . }`,
			fbPrefix + `SELECT DISTINCT ?answer WHERE { { SELECT (COUNT(DISTINCT ?c1) AS ?answer) WHERE { ns:m.0f8l9c ns:location.location.contains ?c1 . } } }`, ""},
		{"counted and not", fbPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ns:m.0f8l9c ns:location.location.contains ?x . }`,
			fbPrefix + `SELECT DISTINCT ?answer WHERE { ns:m.0f8l9c ns:location.location.contains ?answer . }`, "count differs"},
		{"a time-validity condition dropped", fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.09c7w0 ns:government.governmental_jurisdiction.governing_officials ?y .
?y ns:government.government_position_held.office_holder ?x .
FILTER(NOT EXISTS {?y ns:government.government_position_held.from ?sk0} || EXISTS {?y ns:government.government_position_held.from ?sk1 . FILTER(xsd:datetime(?sk1) <= "2015-08-10"^^xsd:dateTime) }) }`,
			fbPrefix + `SELECT DISTINCT ?answer WHERE { ns:m.09c7w0 ns:government.governmental_jurisdiction.governing_officials ?y .
?y ns:government.government_position_held.office_holder ?answer . }`, "comparisons differ"},
		{"a time-validity condition kept, operands swapped", fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.09c7w0 ns:government.governmental_jurisdiction.governing_officials ?y .
?y ns:government.government_position_held.office_holder ?x .
FILTER(NOT EXISTS {?y ns:government.government_position_held.from ?sk0} || EXISTS {?y ns:government.government_position_held.from ?sk1 . FILTER(xsd:datetime(?sk1) <= "2015-08-10"^^xsd:dateTime) }) }`,
			fbXSD + `SELECT DISTINCT ?answer WHERE { ns:m.09c7w0 ns:government.governmental_jurisdiction.governing_officials ?m .
?m ns:government.government_position_held.office_holder ?answer .
FILTER(EXISTS { ?m ns:government.government_position_held.from ?d2 . FILTER("2015-08-10"^^xsd:dateTime >= xsd:dateTime(?d2)) } || NOT EXISTS { ?m ns:government.government_position_held.from ?d1 }) }`, ""},
		{"a time-validity condition on another date", fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.09c7w0 ns:government.governmental_jurisdiction.governing_officials ?y .
?y ns:government.government_position_held.office_holder ?x .
FILTER(NOT EXISTS {?y ns:government.government_position_held.from ?sk0} || EXISTS {?y ns:government.government_position_held.from ?sk1 . FILTER(xsd:datetime(?sk1) <= "2015-08-10"^^xsd:dateTime) }) }`,
			fbXSD + `SELECT DISTINCT ?answer WHERE { ns:m.09c7w0 ns:government.governmental_jurisdiction.governing_officials ?m .
?m ns:government.government_position_held.office_holder ?answer .
FILTER(NOT EXISTS { ?m ns:government.government_position_held.from ?d1 } || EXISTS { ?m ns:government.government_position_held.from ?d2 . FILTER(xsd:dateTime(?d2) <= "2009-12-31"^^xsd:dateTime) }) }`, "comparisons differ"},
		{"a text value compared as a number", fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.03st9j ns:location.location.containedby ?x .
?x ns:base.biblioness.bibs_location.loc_type ?sk0 . FILTER (str(?sk0) = "Country") }`, fbXSD + `SELECT DISTINCT ?answer WHERE { ns:m.03st9j ns:location.location.containedby ?answer .
?answer ns:base.biblioness.bibs_location.loc_type ?v . FILTER(xsd:double(STR(?v)) = "0"^^xsd:double) }`, "different constants (entities or values)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.cause, SameAlgebra(tt.gold, tt.compiled))
		})
	}
}

// TestCompilePlanRoundTrip converts gold queries of each shape, compiles
// the plans back and checks the result is the gold algebra.
func TestCompilePlanRoundTrip(t *testing.T) {
	for name, gold := range map[string]string{
		"composition through a mediator": fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.09l3p ns:film.actor.film ?y . ?y ns:film.performance.character ?x . ?y ns:film.performance.film ns:m.0ddt_ . }`,
		"conjunction with a gender":      fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.06w2sn5 ns:people.person.sibling_s ?y . ?y ns:people.sibling_relationship.sibling ?x . ?x ns:people.person.gender ns:m.05zppz . }`,
		"comparative on a number":        fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.05nrg ns:location.location.contains ?x . ?x ns:location.country.calling_code ?n . FILTER (xsd:integer(?n) > 677) }`,
		"superlative":                    fbPrefix + `SELECT DISTINCT ?x WHERE { ?c ns:sports.sports_team.team_mascot ns:m.03_dwn . ?c ns:sports.sports_team.championships ?x . ?x ns:time.event.start_date ?d . } ORDER BY DESC(xsd:datetime(?d)) LIMIT 1`,
		"notable type":                   fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.05nrg ns:location.location.contains ?x . ?x ns:common.topic.notable_types ns:m.01mp . }`,
		"count with a type":              "PREFIX : <http://rdf.freebase.com/ns/>\nSELECT (COUNT(?x0) AS ?value) WHERE { SELECT DISTINCT ?x0 WHERE { ?x0 :type.object.type :theater.play . VALUES ?x1 { :m.0yrlqjm } ?x0 :theater.play.productions ?x1 . FILTER ( ?x0 != ?x1 ) } }",
		"union":                          fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.0fjp3 ns:sports.sports_championship.events ?x . { { ?x ns:sports.sports_championship_event.runner_up ns:m.01ync . } UNION { ?x ns:sports.sports_championship_event.champion ns:m.01ync . } } }`,
		// WebQTrn-6: a roster spot valid on WebQSP's "now", open at both ends.
		"time validity on a mediator": webqTrn6,
		// WebQTrn-358: a release date in 2011, on the member itself.
		"time validity on a member": fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.07ldhs ns:film.actor.film ?y . ?y ns:film.performance.film ?x .
FILTER(NOT EXISTS {?x ns:film.film.initial_release_date ?sk0} || EXISTS {?x ns:film.film.initial_release_date ?sk1 . FILTER(xsd:datetime(?sk1) >= "2011-01-01"^^xsd:dateTime) })
FILTER(NOT EXISTS {?x ns:film.film.initial_release_date ?sk2} || EXISTS {?x ns:film.film.initial_release_date ?sk3 . FILTER(xsd:datetime(?sk3) <= "2011-12-31"^^xsd:dateTime) }) }`,
		// WebQTrn-3: a text value compared through str().
		"text value": webqTrn3,
		// WebQTrn-962 (CWQ): a text value on a mediator.
		"text value on a mediator": fbPrefix + `SELECT DISTINCT ?x WHERE { ?c ns:film.film.starring ?k . ?k ns:film.performance.character ns:m.0y54dn_ .
?c ns:film.film.starring ?y . ?y ns:film.performance.actor ?x . ?y ns:film.performance.character ns:m.0264f7h .
?y ns:film.performance.character_note ?sk0 . FILTER (str(?sk0) = "Young Forrest") }`,
		// WebQTrn-2875 (CWQ): a literal in a triple.
		"literal value": fbPrefix + `SELECT DISTINCT ?x WHERE { ns:m.01ppq ns:location.country.languages_spoken ?x . ?x ns:language.human_language.iso_639_3_code "acy" . }`,
		// WebQTrn-1466: a find from a language-tagged literal.
		"find from a literal": webqTrn1466,
		// GrailQA 2102525002000: a find from a typed literal.
		"find from a typed literal": "PREFIX : <http://rdf.freebase.com/ns/>\nSELECT (?x0 AS ?value) WHERE { SELECT DISTINCT ?x0 WHERE { ?x0 :type.object.type :rail.locomotive_class . VALUES ?x1 { \"120.0\"^^<http://www.w3.org/2001/XMLSchema#float> } ?x0 :rail.locomotive_class.maximum_speed ?x1 . FILTER ( ?x0 != ?x1 ) } }",
	} {
		t.Run(name, func(t *testing.T) {
			c, err := ConvertQuery(gold, nil)
			require.NoError(t, err)
			compiled, err := CompilePlan(c.Steps)
			require.NoError(t, err)
			assert.Empty(t, SameAlgebra(gold, compiled), "compiled:\n%s", compiled)
		})
	}
	// A span during a given entity's own (CWQ's "president during the
	// Vietnam War") has no compiled form: said, not dropped.
	c, err := ConvertQuery(fbPrefix+`SELECT DISTINCT ?x WHERE { ns:m.081pw ns:time.event.start_date ?start ; ns:time.event.end_date ?end .
?x ns:government.politician.government_positions_held ?y . ?y ns:government.government_position_held.office_position_or_title ns:m.060d2 ;
ns:government.government_position_held.from ?from ; ns:government.government_position_held.to ?to . FILTER (?from < ?end) FILTER (?to > ?start) }`, nil)
	require.NoError(t, err)
	_, err = CompilePlan(c.Steps)
	require.ErrorIs(t, err, ErrNotCompilable)
}

// Gold queries of WebQSP train, one per new plan operation.
const (
	webqTrn6 = fbPrefix + `SELECT DISTINCT ?x WHERE { FILTER (?x != ns:m.0c2yrf)
FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))
ns:m.0c2yrf ns:sports.pro_athlete.teams ?y . ?y ns:sports.sports_team_roster.team ?x .
FILTER(NOT EXISTS {?y ns:sports.sports_team_roster.from ?sk0} || EXISTS {?y ns:sports.sports_team_roster.from ?sk1 . FILTER(xsd:datetime(?sk1) <= "2015-08-10"^^xsd:dateTime) })
FILTER(NOT EXISTS {?y ns:sports.sports_team_roster.to ?sk2} || EXISTS {?y ns:sports.sports_team_roster.to ?sk3 . FILTER(xsd:datetime(?sk3) >= "2015-08-10"^^xsd:dateTime) }) }`
	webqTrn3 = fbPrefix + `SELECT DISTINCT ?x WHERE { FILTER (?x != ns:m.03st9j)
FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))
ns:m.03st9j ns:location.location.containedby ?x . ?x ns:base.biblioness.bibs_location.loc_type ?sk0 . FILTER (str(?sk0) = "Country") }`
	webqTrn1466 = fbPrefix + `SELECT DISTINCT ?x WHERE { ?x ns:common.topic.alias "EU"@en . }`
)

// TestVerifyOnSharedSamples holds the converted-and-equivalent shares
// measured on the shared samples (CWQ test and GrailQA dev) from falling.
func TestVerifyOnSharedSamples(t *testing.T) {
	for _, tt := range []struct {
		file   string
		format dataset.Format
		min    float64
	}{{"cwq_sample.json", dataset.CWQ, 0.98}, {"grailqa_sample.json", dataset.GrailQA, 0.995}, {"webqsp/WebQSP.train.json", dataset.WebQSP, 0.98}} {
		pairs, _ := loadPairs(t, realdata.Path(t, tt.file), tt.format)
		st, err := Verify(context.Background(), VerifyOptions{Questions: pairs, Format: string(tt.format)})
		require.NoError(t, err)
		share := Rate(st.SameAlgebra, st.Input)
		t.Logf("%s: converted %d, compiled %d, same algebra %d of %d (%.2f%%)", tt.format, st.Converted, st.Compiled, st.SameAlgebra, st.Input, 100*share)
		assert.GreaterOrEqual(t, share, tt.min, "%s: %s", tt.format, st.Markdown())
		sum := st.SameAlgebra
		for _, c := range st.AlgebraCauses {
			sum += c.Count
		}
		assert.Equal(t, st.Input, sum, "every question is equivalent or has a cause")
	}
}
