package kg_test

import (
	"testing"

	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real Freebase schema types a property's values (its range) and the
// entities it belongs to (its domain), and knows the type hierarchy.
func TestLoadSchemaReadsTheRealSchema(t *testing.T) {
	s, err := kg.LoadSchema(realdata.Path(t, "freebase-schema"))
	require.NoError(t, err)
	assert.Equal(t, "location.location", s.Range("people.person.place_of_birth"))
	assert.Equal(t, "film.director", s.Range("film.film.directed_by"))
	assert.Equal(t, "type.datetime", s.Range("people.person.date_of_birth"))
	assert.Equal(t, "people.person", s.Domain("people.person.place_of_birth"))
	assert.Contains(t, s.Supertypes("film.actor"), "people.person")
	assert.Contains(t, s.Supertypes("location.citytown"), "location.location")
	assert.Equal(t, "", s.Range("no.such.property"))
}

// Without a schema (or for a property it lacks) the domain is the
// property id's type part; a range is unknown.
func TestSchemaWithoutFile(t *testing.T) {
	var s *kg.Schema
	assert.Equal(t, "film.film", s.Domain("film.film.story_by"))
	assert.Equal(t, "", s.Domain("P31"), "a Wikidata property names no type")
	assert.Equal(t, "", s.Range("film.film.story_by"))
	assert.Equal(t, []string{"film.film"}, s.Supertypes("film.film"))
	_, err := kg.LoadSchema(t.TempDir())
	assert.ErrorContains(t, err, "fb_roles")
}
