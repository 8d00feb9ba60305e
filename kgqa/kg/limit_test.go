package kg

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
)

// limitFixture is a fixture graph on one backend and the entities whose
// every relation the limit test walks.
type limitFixture struct {
	name     string
	cfg      config.KG
	entities []string
}

// limitFixtures lists the Freebase fixture (mediators) and the Wikidata
// fixture (statements), each on the embedded store and on Virtuoso.
func limitFixtures(t *testing.T) []limitFixture {
	t.Helper()
	srv := virtuoso(t)
	_ = openWikidataFixture(t, true) // loads the Wikidata fixture into Virtuoso
	fb := []string{france, germany, nijmegen, giants, ws2014}
	wd := []string{"Q1", "Q2", "Q3", "Q8", "Q9", "Q10", "Q11", "Q12", "Q13", "Q30"}
	wdEmbedded := fixtureConfig()
	wdEmbedded.Dialect, wdEmbedded.Files = "wikidata", []string{wikidataFixture}
	wdVirtuoso := endpointConfig(srv.GraphURL(wikidataFixtureGraph))
	wdVirtuoso.Dialect = "wikidata"
	return []limitFixture{
		{"embedded freebase", fixtureConfig(), fb},
		{"virtuoso freebase", endpointConfig(srv.GraphURL(fixtureGraph)), fb},
		{"embedded wikidata", wdEmbedded, wd},
		{"virtuoso wikidata", wdVirtuoso, wd},
	}
}

// TestNeighborLimitCountsFacts checks, on every backend, that a limit of
// N (the --limit of parog kg neighbors, or kg.neighbor_limit when none is
// given) returns the first N facts of the unlimited answer, counted after
// mediator and statement expansion: through a mediator it once counted
// tails and rows, so France's borders gave 0 facts for --limit 1.
func TestNeighborLimitCountsFacts(t *testing.T) {
	ctx := context.Background()
	for _, fx := range limitFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			cfg := fx.cfg
			cfg.CacheSize = 0
			g := openFixture(t, cfg)
			cfg.NeighborLimit = 2
			capped := openFixture(t, cfg)
			expanded := 0
			for _, id := range fx.entities {
				rels, err := g.Relations(ctx, id)
				require.NoError(t, err)
				for _, rel := range rels {
					all, err := g.Neighbors(ctx, id, rel, 0)
					require.NoError(t, err)
					if len(all) > 0 && len(all[0].Path) == 2 {
						expanded++
					}
					for n := 1; n <= len(all)+1; n++ {
						got, err := g.Neighbors(ctx, id, rel, n)
						require.NoError(t, err)
						assert.Equal(t, all[:min(n, len(all))], got, "%s %v --limit %d", id, rel, n)
					}
					got, err := capped.Neighbors(ctx, id, rel, 0)
					require.NoError(t, err)
					assert.Equal(t, all[:min(2, len(all))], got, "%s %v with kg.neighbor_limit 2", id, rel)
				}
			}
			assert.Greater(t, expanded, 1, "relations whose facts go through a mediator or statement")
		})
	}
}
