package kg

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/stretchr/testify/require"
)

func fixtureConfig() config.KG {
	cfg := config.Default().KG
	cfg.Backend = "embedded"
	cfg.Files = []string{"testdata/fixture.nt"}
	return cfg
}

func openFixture(t *testing.T, cfg config.KG) Graph {
	t.Helper()
	g, err := Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	return g
}

func TestContractEmbeddedMemory(t *testing.T) {
	runContract(t, openFixture(t, fixtureConfig()))
}

func TestContractEmbeddedBadger(t *testing.T) {
	cfg := fixtureConfig()
	cfg.Dir = t.TempDir()
	cfg.CacheSize = 0
	runContract(t, openFixture(t, cfg))
}
