package engine

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgdata/densify"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

// denseData is densify's test excerpt of the real slice and schema, from
// which the tests' small dense worlds grow (40,000 triples each).
const denseData = "../kgdata/densify/testdata"

// denseWorlds are the dense worlds built for this test binary, by seed:
// each is built once and shared.
var denseWorlds struct {
	mu     sync.Mutex
	shards map[uint64][]string
}

// denseShards builds the dense world of seed once (parog kg densify
// --target-triples 40000 --seed seed) and returns its shards.
func denseShards(tb testing.TB, seed uint64) []string {
	tb.Helper()
	denseWorlds.mu.Lock()
	defer denseWorlds.mu.Unlock()
	if s, ok := denseWorlds.shards[seed]; ok {
		return s
	}
	dir, err := os.MkdirTemp("", "parog-dense-world-")
	require.NoError(tb, err)
	_, err = densify.Build(context.Background(), denseData+"/slice.nt", denseData+"/schema", dir,
		densify.Options{Seed: seed, TargetTriples: 40_000})
	require.NoError(tb, err)
	shards, err := filepath.Glob(filepath.Join(dir, "part-*.nt.gz"))
	require.NoError(tb, err)
	require.NotEmpty(tb, shards)
	if denseWorlds.shards == nil {
		denseWorlds.shards = map[uint64][]string{}
	}
	denseWorlds.shards[seed] = shards
	return shards
}

// denseGraph opens the dense world of seed in the embedded store or in a
// Virtuoso started for the test.
func denseGraph(tb testing.TB, seed uint64, backend string) kg.Graph {
	tb.Helper()
	shards := denseShards(tb, seed)
	cfg := config.Default().KG
	cfg.Dialect, cfg.Language = "freebase", "en"
	switch backend {
	case "embedded":
		cfg.Backend, cfg.Files = "embedded", shards
	case "virtuoso":
		srv := virtuosotest.New(tb, shards...)
		cfg.Backend, cfg.Endpoint, cfg.Timeout = "sparql", srv.GraphURL(virtuosotest.Graph), 20*time.Second
	default:
		tb.Fatalf("no backend %q", backend)
	}
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// noClearTop is the default engine with engine.clear_top_facts off: a test
// that scripts a wrong relation choice needs the choice to be asked, where
// by default a clear top of the offer is fetched without one.
func noClearTop() config.Engine {
	cfg := config.Default().Engine
	cfg.ClearTopFacts = false
	return cfg
}
