package sharedcache_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/sharedcache"
	"github.com/parog/parog-go/kgqa/sharedcache/redistest"
)

func cacheConfig(url string) config.Cache {
	c := config.Default().Cache
	c.Backend, c.RedisURL = "redis", url
	return c
}

func TestRedisGetSet(t *testing.T) {
	srv := redistest.New(t)
	ctx := context.Background()
	cfg := cacheConfig(srv.URL)
	cfg.MaxEntryBytes = 8
	r, err := sharedcache.Open(ctx, cfg, "t:")
	require.NoError(t, err)
	defer r.Close()

	_, ok := r.Get(ctx, "a")
	assert.False(t, ok)
	r.Set(ctx, "a", []byte("1234"))
	v, ok := r.Get(ctx, "a")
	require.True(t, ok)
	assert.Equal(t, "1234", string(v))

	r.Set(ctx, "big", []byte("123456789"))
	_, ok = r.Get(ctx, "big")
	assert.False(t, ok, "a value over max_entry_bytes is not shared")

	other := r.Namespace("other:")
	_, ok = other.Get(ctx, "a")
	assert.False(t, ok, "namespaces do not see each other's keys")

	// A cancelled caller still gets its value written.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	r.Set(cctx, "late", []byte("x"))
	_, ok = r.Get(ctx, "late")
	assert.True(t, ok)

	st := r.Stats()
	assert.Equal(t, int64(2), st.Hits)
	assert.Equal(t, int64(1), st.Skipped)
	assert.Equal(t, int64(0), st.Errors)
}

func TestRedisTTL(t *testing.T) {
	srv := redistest.New(t)
	ctx := context.Background()
	cfg := cacheConfig(srv.URL)
	cfg.TTL = time.Second
	r, err := sharedcache.Open(ctx, cfg, "t:")
	require.NoError(t, err)
	defer r.Close()
	r.Set(ctx, "k", []byte("v"))
	_, ok := r.Get(ctx, "k")
	require.True(t, ok)
	require.Eventually(t, func() bool { _, ok := r.Get(ctx, "k"); return !ok }, 10*time.Second, 100*time.Millisecond, "the entry expires after cache.ttl")
}

// TestRedisDown checks that a cache that goes away is a miss, never an
// error, and that opening one that is not there says how to go without.
func TestRedisDown(t *testing.T) {
	srv := redistest.New(t)
	ctx := context.Background()
	r, err := sharedcache.Open(ctx, cacheConfig(srv.URL), "t:")
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, srv.Stop())
	_, ok := r.Get(ctx, "k")
	assert.False(t, ok)
	r.Set(ctx, "k", []byte("v"))
	assert.Equal(t, int64(2), r.Stats().Errors)

	_, err = sharedcache.Open(ctx, cacheConfig(srv.URL), "t:")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cache.backend: none")
}

// TestGraphsShareResults opens the demo graph twice, as two processes
// would, with one Redis behind both: the second answers every primitive
// the first computed from the shared cache, without its backend.
func TestGraphsShareResults(t *testing.T) {
	srv := redistest.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "demo.nt")
	require.NoError(t, os.WriteFile(path, demokg.Freebase(), 0o600))
	cfg := config.Default()
	cfg.KG.Files = []string{path}
	cfg.Cache = cacheConfig(srv.URL)
	tag, err := sharedcache.SnapshotTag(cfg, "")
	require.NoError(t, err)

	open := func() (*kg.Cached, *sharedcache.Redis) {
		r, err := sharedcache.Open(ctx, cfg.Cache, "kg:")
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close() })
		g, err := kg.Open(ctx, cfg.KG, "", adapters.Open, kg.WithShared(r, tag))
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		return g.(*kg.Cached), r
	}
	ask := func(g kg.Graph) []kgqa.Fact {
		rels, err := g.Relations(ctx, "m.0f8l9c")
		require.NoError(t, err)
		require.NotEmpty(t, rels)
		var facts []kgqa.Fact
		for _, rel := range rels {
			fs, err := g.Neighbors(ctx, "m.0f8l9c", rel, 0)
			require.NoError(t, err)
			facts = append(facts, fs...)
		}
		name, err := g.Name(ctx, "m.0f8l9c")
		require.NoError(t, err)
		assert.Equal(t, "France", name)
		return facts
	}
	first, _ := open()
	want := ask(first)
	assert.Zero(t, first.CacheStats().SharedHits)
	misses := first.CacheStats().Misses
	require.Positive(t, misses)

	second, r2 := open()
	got := ask(second)
	assert.Equal(t, want, got, "the shared results are the same facts")
	st := second.CacheStats()
	assert.Zero(t, st.Misses, "the second graph sent no query to its backend")
	assert.Equal(t, misses, st.SharedHits)
	assert.Equal(t, misses, r2.Stats().Hits)

	// Another snapshot of the KG shares nothing with this one.
	g3, err := kg.Open(ctx, cfg.KG, "", adapters.Open, kg.WithShared(r2, tag+"x"))
	require.NoError(t, err)
	defer g3.Close()
	ask(g3)
	assert.Equal(t, misses, g3.(*kg.Cached).CacheStats().Misses)
}

func TestSnapshotTag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.nt")
	require.NoError(t, os.WriteFile(path, []byte("<a> <b> <c> .\n"), 0o600))
	cfg := config.Default()
	cfg.KG.Files = []string{"g.nt"}
	a, err := sharedcache.SnapshotTag(cfg, dir)
	require.NoError(t, err)
	again, err := sharedcache.SnapshotTag(cfg, dir)
	require.NoError(t, err)
	assert.Equal(t, a, again, "the same files give the same tag")

	require.NoError(t, os.WriteFile(path, []byte("<a> <b> <d> .\n<a> <b> <e> .\n"), 0o600))
	b, err := sharedcache.SnapshotTag(cfg, dir)
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "a reloaded file is another snapshot")

	cfg.KG.Files = []string{"missing.nt"}
	_, err = sharedcache.SnapshotTag(cfg, dir)
	assert.Error(t, err)

	sp := config.Default()
	sp.KG.Backend, sp.KG.Endpoint = "sparql", "http://127.0.0.1:8890/sparql"
	c, err := sharedcache.SnapshotTag(sp, "")
	require.NoError(t, err)
	sp.KG.Endpoint = "http://127.0.0.1:8891/sparql"
	d, err := sharedcache.SnapshotTag(sp, "")
	require.NoError(t, err)
	assert.NotEqual(t, c, d)
	sp.Cache.Snapshot = "freebase-2015-08-09"
	e, err := sharedcache.SnapshotTag(sp, "")
	require.NoError(t, err)
	assert.Equal(t, "freebase-2015-08-09", e)
	assert.False(t, strings.ContainsAny(a+b+c+d, ":/ "), "derived tags are plain hex")
}
