package kg

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A film performance stored the way Freebase stores it: the CVT's own
// properties (film.performance.*) and their reverses on the participants
// (film.actor.film, film.film.starring). Expanding the mediator in both
// directions must give one fact per role, read through the CVT's property.
const performanceNT = `<http://rdf.freebase.com/ns/m.0actor> <http://rdf.freebase.com/ns/type.object.name> "Audrey Tautou"@en .
<http://rdf.freebase.com/ns/m.0film> <http://rdf.freebase.com/ns/type.object.name> "Amélie"@en .
<http://rdf.freebase.com/ns/m.0role> <http://rdf.freebase.com/ns/type.object.name> "Amélie Poulain"@en .
<http://rdf.freebase.com/ns/m.0actor> <http://rdf.freebase.com/ns/film.actor.film> <http://rdf.freebase.com/ns/m.0perf> .
<http://rdf.freebase.com/ns/m.0perf> <http://rdf.freebase.com/ns/film.performance.actor> <http://rdf.freebase.com/ns/m.0actor> .
<http://rdf.freebase.com/ns/m.0film> <http://rdf.freebase.com/ns/film.film.starring> <http://rdf.freebase.com/ns/m.0perf> .
<http://rdf.freebase.com/ns/m.0perf> <http://rdf.freebase.com/ns/film.performance.film> <http://rdf.freebase.com/ns/m.0film> .
<http://rdf.freebase.com/ns/m.0perf> <http://rdf.freebase.com/ns/film.performance.character> <http://rdf.freebase.com/ns/m.0role> .
<http://rdf.freebase.com/ns/m.0award> <http://rdf.freebase.com/ns/award.award_nomination.nominated_for> <http://rdf.freebase.com/ns/m.0perf> .
`

func TestMediatorRolesStoredBothWays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "performance.nt")
	require.NoError(t, os.WriteFile(path, []byte(performanceNT), 0o644))
	cfg := fixtureConfig()
	cfg.Files = []string{path}
	g := openFixture(t, cfg)
	ctx := context.Background()

	cases := []struct {
		name string
		from string
		rel  kgqa.Relation
		want map[string]kgqa.Direction // second relation -> its direction
	}{
		{"from the actor", "m.0actor", kgqa.Relation{ID: "film.actor.film", Dir: kgqa.Out}, map[string]kgqa.Direction{
			"film.performance.film": kgqa.Out, "film.performance.character": kgqa.Out, "award.award_nomination.nominated_for": kgqa.In,
		}},
		{"from the film, against the CVT's property", "m.0film", kgqa.Relation{ID: "film.performance.film", Dir: kgqa.In}, map[string]kgqa.Direction{
			"film.performance.actor": kgqa.Out, "film.performance.character": kgqa.Out, "award.award_nomination.nominated_for": kgqa.In,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			facts, err := g.Neighbors(ctx, c.from, c.rel, 0)
			require.NoError(t, err)
			got := map[string]kgqa.Direction{}
			for _, f := range facts {
				require.Len(t, f.Path, 2, "%+v", f)
				assert.Equal(t, "m.0perf", f.Mediator)
				assert.NotEqual(t, c.from, f.Tail.ID, "no fact leads back to the head")
				_, dup := got[f.Path[1]]
				assert.False(t, dup, "one fact per role: %s", f.Path[1])
				got[f.Path[1]] = f.Dir2
			}
			assert.Equal(t, c.want, got)
		})
	}
}
