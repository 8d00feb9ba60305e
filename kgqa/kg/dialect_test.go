package kg

import (
	"testing"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDialectGrammar(t *testing.T) {
	fb, wd := Freebase(DialectOptions{}), Wikidata(DialectOptions{})
	cases := []struct {
		name            string
		d               Dialect
		id              string
		entity, relName bool
	}{
		{"freebase mid", fb, "m.0f8l9c", true, false},
		{"freebase g id", fb, "g.11b6vq5", true, false},
		{"freebase relation", fb, "location.location.contains", false, true},
		{"freebase base relation", fb, "base.biblioness.bibs_location.country", false, true},
		{"freebase uppercase mid", fb, "m.0F8L9C", false, false},
		{"freebase two-part relation", fb, "location.contains", false, false},
		{"freebase full IRI", fb, "http://rdf.freebase.com/ns/m.0f8l9c", false, false},
		{"freebase injection", fb, "m.0f8l9c> ?p ?o", false, false},
		{"freebase trailing newline", fb, "m.0f8l9c\n", false, false},
		{"wikidata item", wd, "Q142", true, false},
		{"wikidata property", wd, "P47", false, true},
		{"wikidata leading zero", wd, "Q0142", false, false},
		{"wikidata lowercase", wd, "q142", false, false},
		{"wikidata mid", wd, "m.0f8l9c", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.entity, c.d.ValidEntity(c.id))
			assert.Equal(t, c.relName, c.d.ValidRelation(c.id))
		})
	}
}

func TestNoiseRelations(t *testing.T) {
	fb := Freebase(DialectOptions{})
	for rel, noise := range map[string]bool{
		"type.object.type": true, "type.object.name": true, "common.topic.description": true,
		"freebase.valuenotation.is_reviewed": true, "kg.object_profile.prominent_type": true,
		"base.schemastaging.context_name.official_name": true,
		"location.location.contains":                    false, "base.biblioness.bibs_location.country": false,
		"people.person.sameas_link": true,
	} {
		assert.Equal(t, noise, fb.Noise(rel), rel)
	}
	custom := Freebase(DialectOptions{NoiseRelations: []string{"film."}})
	assert.True(t, custom.Noise("film.film.directed_by"))
	assert.False(t, custom.Noise("common.topic.description"), "a configured list replaces the defaults")
	wd := Wikidata(DialectOptions{})
	assert.True(t, wd.Noise("P646"))
	assert.False(t, wd.Noise("P6"), "Wikidata noise matches whole ids, not prefixes")
}

func TestReadable(t *testing.T) {
	assert.Equal(t, "sports team: team mascot", Freebase(DialectOptions{}).Readable("sports.sports_team.team_mascot"))
	assert.Equal(t, "bibs location: country", Freebase(DialectOptions{}).Readable("base.biblioness.bibs_location.country"))
	assert.Equal(t, "shares border with (P47)", Wikidata(DialectOptions{}).Readable("P47"))
	assert.Equal(t, "P99999", Wikidata(DialectOptions{}).Readable("P99999"))
}

func TestNewDialectNamesTheSetting(t *testing.T) {
	cfg := config.Default().KG
	cfg.Dialect = "dbpedia"
	_, err := NewDialect(cfg)
	require.ErrorContains(t, err, "kg.dialect")
	cfg.Dialect, cfg.Language = "wikidata", "en\"}"
	_, err = NewDialect(cfg)
	require.ErrorContains(t, err, "kg.language")
}
