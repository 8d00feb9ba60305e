package server_test

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
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

// One Virtuoso serves the package's tests: starting it costs seconds.
var shared struct {
	once sync.Once
	dir  string
	srv  *virtuosotest.Server
	err  error
}

// sharedVirtuoso returns the package's Virtuoso, loaded with the demo
// graph and oddEntities, with its free-text index built.
func sharedVirtuoso(tb testing.TB) *virtuosotest.Server {
	tb.Helper()
	virtuosotest.Require(tb)
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "parog-server-virtuoso-"); shared.err != nil {
			return
		}
		demo, odd := filepath.Join(shared.dir, "demo.nt"), filepath.Join(shared.dir, "odd.nt")
		if shared.err = os.WriteFile(demo, demokg.Freebase(), 0o600); shared.err != nil {
			return
		}
		if shared.err = os.WriteFile(odd, oddNT(), 0o600); shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if shared.srv, shared.err = virtuosotest.Start(ctx, filepath.Join(shared.dir, "server"), demo, odd); shared.err != nil {
			return
		}
		shared.err = shared.srv.EnableFullText(ctx)
	})
	if shared.err != nil {
		tb.Fatalf("start Virtuoso: %v", shared.err)
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
	os.Exit(code)
}

// virtuosoGraph opens the sparql backend on the package's Virtuoso.
func virtuosoGraph(tb testing.TB, endpoint string) kg.Graph {
	cfg := config.Default().KG
	cfg.Backend, cfg.Endpoint, cfg.FullText, cfg.Timeout = "sparql", endpoint, true, 20*time.Second
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}
