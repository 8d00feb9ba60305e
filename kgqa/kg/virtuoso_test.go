package kg

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

// Named graphs of the package's Virtuoso: the hand-checked fixture and the
// shipped demo graph share ids (France is m.0f8l9c in both), so each test
// queries one graph alone.
const (
	fixtureGraph = virtuosotest.Graph
	demoGraph    = "urn:parog:demo-freebase"
)

// One Virtuoso serves the whole package: starting it costs seconds.
var shared struct {
	once sync.Once
	dir  string
	srv  *virtuosotest.Server
	err  error
}

// virtuoso returns the package's Virtuoso, loaded with the fixture and the
// demo graph, with its free-text index built.
func virtuoso(t testing.TB) *virtuosotest.Server {
	t.Helper()
	virtuosotest.Require(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "parog-virtuoso-")
		if shared.err != nil {
			return
		}
		demo := filepath.Join(shared.dir, "demo-freebase.nt")
		if shared.err = os.WriteFile(demo, demokg.Freebase(), 0o644); shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		shared.srv, shared.err = virtuosotest.Start(ctx, filepath.Join(shared.dir, "server"), "testdata/fixture.nt")
		if shared.err != nil {
			return
		}
		// The text index is enabled between the two loads, so the demo
		// graph's names are indexed by the second call.
		if shared.err = shared.srv.EnableFullText(ctx); shared.err != nil {
			return
		}
		if shared.err = shared.srv.Load(ctx, demoGraph, demo); shared.err != nil {
			return
		}
		shared.err = shared.srv.EnableFullText(ctx)
	})
	if shared.err != nil {
		t.Fatalf("start Virtuoso: %v", shared.err)
	}
	return shared.srv
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.srv != nil {
		_ = shared.srv.Stop()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	if bench.virt != nil {
		_ = bench.virt.Stop()
	}
	if bench.dir != "" {
		_ = os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func endpointConfig(url string) config.KG {
	cfg := config.Default().KG
	cfg.Backend = "sparql"
	cfg.Endpoint = url
	cfg.Timeout = 20 * time.Second
	return cfg
}

func TestContractVirtuoso(t *testing.T) {
	srv := virtuoso(t)
	runContract(t, openFixture(t, endpointConfig(srv.GraphURL(fixtureGraph))))
}
