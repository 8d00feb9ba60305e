package bench

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa"
)

// row is a results row whose trace carries the KG usage u.
func row(t *testing.T, typ string, u *kgqa.KGUsage) eval.Result {
	t.Helper()
	trace, err := json.Marshal(kgqa.Answer{Usage: kgqa.Usage{KG: u, WallMS: 100 * int64(len(typ))}})
	require.NoError(t, err)
	return eval.Result{ID: typ, Type: typ, Trace: trace}
}

// TestKGCost: an entity is a hub once a listing of it in the run reached
// the threshold (its two directions' rows added up), and every query anchored at it counts as a hub's, in
// whichever question; names have no anchor; the cache sums by primitive.
func TestKGCost(t *testing.T) {
	rs := []eval.Result{
		row(t, "count", &kgqa.KGUsage{
			Queries: []kgqa.KGQueryCost{
				{Kind: "relations", Entity: "m.hub", Rows: 700, MS: 500},
				{Kind: "relations", Entity: "m.hub", Rows: 500, MS: 400},
				{Kind: "neighbors", Entity: "m.hub", Rows: 3, MS: 40},
				{Kind: "names", Rows: 3, MS: 5},
			},
			Cache: map[string]kgqa.KGCacheCount{"relations": {Misses: 1}, "neighbors": {Misses: 1}},
		}),
		row(t, "time", &kgqa.KGUsage{
			Queries: []kgqa.KGQueryCost{
				{Kind: "relations", Entity: "m.small", Rows: 40, MS: 10},
				{Kind: "neighbors", Entity: "m.hub", Rows: 1, MS: 20},
				{Kind: "neighbors", Entity: "m.small", Rows: 1, MS: 2, Failed: true},
			},
			Cache: map[string]kgqa.KGCacheCount{"relations": {Hits: 1, Misses: 1}, "neighbors": {Misses: 2}},
		}),
		row(t, "time", nil),
	}
	c := kgCost(rs, 1000)
	assert.Equal(t, 1, c.Hubs)
	assert.Equal(t, Latency{N: 3, P50: 400, P99: 498, Max: 500, Sum: 1300}, roundLat(c.Wall), "walls 500, 400, 400 ms")
	assert.Equal(t, 3, c.Questions)
	assert.Equal(t, 7, c.Queries)
	require.Len(t, c.ByKind, 3)
	nb := c.ByKind[0]
	assert.Equal(t, "neighbors", nb.Kind, "the busiest kind first")
	assert.Equal(t, 3, nb.Queries)
	assert.InDelta(t, 1.0, nb.PerQuestion, 1e-9)
	assert.Equal(t, Latency{N: 2, P50: 30, P99: 39.8, Max: 40, Sum: 60}, roundLat(nb.Hub))
	assert.Equal(t, Latency{N: 1, P50: 2, P99: 2, Max: 2, Sum: 2}, nb.Ordinary)
	assert.Equal(t, 1, nb.Failed)
	assert.Equal(t, "relations", c.ByKind[1].Kind)
	assert.Equal(t, 2, c.ByKind[1].Hub.N)
	assert.Equal(t, 1, c.ByKind[1].Ordinary.N)
	names := c.ByKind[2]
	assert.Equal(t, "names", names.Kind)
	assert.Zero(t, names.Hub.N+names.Ordinary.N, "names have no anchor")
	assert.Equal(t, 1, names.All.N)
	assert.InDelta(t, 1.0, c.ByType["time"]["neighbors"], 1e-9, "two neighbour queries over the two time questions")
	assert.InDelta(t, 0.5, c.ByType["time"]["relations"], 1e-9, "one listing over the two time questions")
	assert.InDelta(t, 2.0, c.ByType["count"]["relations"], 1e-9)
	assert.Equal(t, []KGCache{
		{Primitive: "all", Hits: 1, Misses: 5, HitRate: 1.0 / 6},
		{Primitive: "neighbors", Misses: 3},
		{Primitive: "relations", Hits: 1, Misses: 2, HitRate: 1.0 / 3},
	}, c.Cache)

	var b strings.Builder
	c.markdown(&b)
	assert.Contains(t, b.String(), "| neighbors | 3 | 1.00 | 2 | 20.0 / 39.6 | 2 | 30.0 / 39.8 | 1 | 2.0 / 2.0 | 0.1 |")
}

func roundLat(l Latency) Latency {
	r := func(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
	return Latency{N: l.N, P50: r(l.P50), P99: r(l.P99), Max: r(l.Max), Sum: r(l.Sum)}
}
