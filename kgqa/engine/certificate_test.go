package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every demo question's answer carries a certificate whose query, run on
// the demo graph by the engine, returns exactly the answer: in the
// embedded store, and in a real Virtuoso.
func TestEveryDemoAnswerIsCertified(t *testing.T) {
	certifyAll(t, demoGraph(t))
}

func TestEveryDemoAnswerIsCertifiedOnVirtuoso(t *testing.T) {
	p := filepath.Join(t.TempDir(), "demo.nt")
	require.NoError(t, os.WriteFile(p, demokg.Freebase(), 0o600))
	srv := virtuosotest.New(t, p)
	cfg := config.Default().KG
	cfg.Backend, cfg.Endpoint, cfg.Timeout = "sparql", srv.GraphURL(virtuosotest.Graph), 20*time.Second
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	certifyAll(t, g)
}

func certifyAll(t *testing.T, g kg.Graph) {
	for _, q := range demokg.FreebaseQuestions() {
		t.Run(q.ID, func(t *testing.T) {
			h := newHarnessOn(t, g, kgqatest.NewDemoModel(), config.Default().Engine)
			ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
			require.NoError(t, err)
			c := ans.Certificate
			require.NotNil(t, c)
			assert.Equal(t, kgqa.CoversAll, c.Covers)
			assert.True(t, c.Verified, "error: %s\n%s\ntrace:\n%s", c.Error, c.SPARQL, brief(ans))
			assert.Equal(t, len(ans.Entities), c.Rows)
		})
	}
}
