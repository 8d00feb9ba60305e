package explore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// freebaseExplorer is an explorer of the subgoal text over a real
// embedded Freebase-dialect store (one triple: the offer below is given,
// not listed), with the adaptive offer and no prior or embeddings.
func freebaseExplorer(t *testing.T, text string) *Explorer {
	t.Helper()
	p := filepath.Join(t.TempDir(), "one.nt")
	require.NoError(t, os.WriteFile(p, []byte(`<http://rdf.freebase.com/ns/m.0x1> <http://rdf.freebase.com/ns/type.object.name> "Metric system"@en .`+"\n"), 0o600))
	cfg := config.Default().KG
	cfg.Dialect, cfg.Files = "freebase", []string{p}
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	return New(&Env{Graph: g, RelationOffer: "adaptive", ShortOffer: 30}, Subgoal{Text: text})
}

// A measurement system's offer in the dense world: forty "measurement
// system: ... units" relations, "illuminance units" in both directions
// (Freebase's reverse properties), and relations that share no word with
// the subgoal.
func unitsOffer() []kgqa.Relation {
	var offer []kgqa.Relation
	for _, r := range []string{"people.person.nationality", "location.location.contains", "film.film.genre", "award.award.category",
		"sports.sports_team.colors", "government.legislative_session.members", "book.written_work.author", "music.artist.genre"} {
		offer = append(offer, kgqa.Relation{ID: r, Dir: kgqa.Out}, kgqa.Relation{ID: r, Dir: kgqa.In})
	}
	for _, u := range []string{"area", "volume", "length", "mass", "time", "energy", "power", "force", "pressure", "speed",
		"density", "frequency", "charge", "current", "voltage", "resistance", "capacitance", "inductance", "luminance", "angle",
		"torque", "viscosity", "entropy", "momentum", "acceleration", "jerk", "dose", "radioactivity", "permittivity", "permeability",
		"conductance", "flux", "temperature", "catalytic", "molarity", "action", "impulse", "stiffness", "wavenumber", "fuel_economy"} {
		offer = append(offer, kgqa.Relation{ID: "measurement_unit.measurement_system." + u + "_units", Dir: kgqa.Out})
	}
	return append(offer,
		kgqa.Relation{ID: "measurement_unit.measurement_system.illuminance_units", Dir: kgqa.Out},
		kgqa.Relation{ID: "measurement_unit.illuminance_unit.measurement_system", Dir: kgqa.In})
}

// "The illuminance units of #1" among a measurement system's forty
// "... units" is a clear top: the word every relation of the offer has
// ("units") weighs little against the one only illuminance has, and the
// relation's reverse is the same facts, not a rival. With plain word
// overlap, forty relations shared half the subgoal's words and the model
// was asked to choose among a page of thirty.
func TestClearTopWeighsRareWordsAndMirrors(t *testing.T) {
	x := freebaseExplorer(t, "Find the illuminance units of Metric system.")
	anchors := []kgqa.Term{{ID: "m.0x1", Name: "Metric system"}}
	offer := unitsOffer()
	rd := &kgqa.Round{Anchors: anchors}
	skipped, err := x.skipChoice(context.Background(), rd, offer)
	require.NoError(t, err)
	require.True(t, skipped, "a clear top")
	assert.Equal(t, []kgqa.Relation{{ID: "measurement_unit.measurement_system.illuminance_units", Dir: kgqa.Out}}, rd.Chosen)

	// Plain overlap: every "... units" relation shares "units", half of
	// the top's score over the relations that share nothing, so the top
	// is not clear.
	q := Tokens(x.RelationQuery(anchors))
	d := x.env.Graph.Dialect()
	plain := map[kgqa.Relation]float64{}
	for _, r := range offer {
		plain[r] = Overlap(q, Tokens(d.Readable(r.ID)))
	}
	assert.Nil(t, clearTop(sortByScore(offer, plain), plain, 1))

	// Without its mirror the pair ties for the top.
	_, score, _, err := x.rank(context.Background(), anchors, offer)
	require.NoError(t, err)
	assert.Nil(t, clearTop(sortByScore(offer, score), score, 1), "the two directions tie")
	assert.Len(t, x.withoutMirrors(sortByScore(offer, score), score), len(offer)-1)
}

// Two relations with the same words in the same direction are not
// mirrors: both stay (their facts differ).
func TestMirrorsNeedOppositeDirections(t *testing.T) {
	x := freebaseExplorer(t, "Find the capital of Metric system.")
	a := kgqa.Relation{ID: "location.country.capital", Dir: kgqa.Out}
	b := kgqa.Relation{ID: "capital.country", Dir: kgqa.Out}
	c := kgqa.Relation{ID: "location.country.capital", Dir: kgqa.In}
	score := map[kgqa.Relation]float64{a: 2, b: 2, c: 1}
	assert.Equal(t, []kgqa.Relation{a, b, c}, x.withoutMirrors([]kgqa.Relation{a, b, c}, score), "same direction, or another score")
}
