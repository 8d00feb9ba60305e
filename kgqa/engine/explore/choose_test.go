package explore

import (
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOfferedIndexRefusesAnAmbiguousName(t *testing.T) {
	ix := newOfferedIndex([]kgqa.Relation{
		{ID: "people.person.nationality", Dir: kgqa.Out},
		{ID: "sports.pro_athlete.nationality", Dir: kgqa.Out},
		{ID: "location.country.capital", Dir: kgqa.Out},
		{ID: "people.person.nationality", Dir: kgqa.In},
		{ID: "P47", Dir: kgqa.Out},
	})
	_, err := ix.resolve("nationality", "out")
	require.ErrorIs(t, err, errAmbiguousName)
	assert.ErrorContains(t, err, "full id")
	r, err := ix.resolve("nationality", "in")
	require.NoError(t, err, "one relation of that direction has the name")
	assert.Equal(t, kgqa.Relation{ID: "people.person.nationality", Dir: kgqa.In}, r)
	r, err = ix.resolve("Capital", "out")
	require.NoError(t, err)
	assert.Equal(t, "location.country.capital", r.ID)
	r, err = ix.resolve("p47", "out")
	require.NoError(t, err)
	assert.Equal(t, "P47", r.ID)
	_, err = ix.resolve("capital", "in")
	assert.ErrorIs(t, err, errNotOffered, "the direction counts")
	_, err = ix.resolve("country.capital", "out")
	assert.ErrorIs(t, err, errNotOffered, "a partial type is not a name")
}
