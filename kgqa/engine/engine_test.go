package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/stretchr/testify/require"
)

// demoGraph opens the demo Freebase KG in the embedded store.
func demoGraph(tb testing.TB) kg.Graph {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "demo.nt")
	require.NoError(tb, os.WriteFile(p, demokg.Freebase(), 0o600))
	cfg := config.Default().KG
	cfg.Files = []string{p}
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// llmConfig points the reasoner (and the planner, when planner is true) at
// the scripted server.
func llmConfig(url string, planner bool) config.LLM {
	cfg := config.Default().LLM
	cfg.Reasoner.BaseURL, cfg.Reasoner.Model = url, "scripted-reasoner"
	cfg.Reasoner.Timeout = 10 * time.Second
	if planner {
		cfg.Planner.BaseURL, cfg.Planner.Model = url, "scripted-planner"
		cfg.Planner.Timeout = 10 * time.Second
	}
	return cfg
}

// harness is an engine on the demo KG talking to the scripted model over
// HTTP through the real client.
type harness struct {
	g      kg.Graph
	model  *kgqatest.Model
	server *llmtest.Server
	client *llm.Client
	engine *Engine
}

func newHarness(tb testing.TB, m *kgqatest.Model, cfg config.Engine, opts ...llmtest.Option) *harness {
	tb.Helper()
	return newHarnessOn(tb, demoGraph(tb), m, cfg, opts...)
}

// newHarnessOn is newHarness on graph g.
func newHarnessOn(tb testing.TB, g kg.Graph, m *kgqatest.Model, cfg config.Engine, opts ...llmtest.Option) *harness {
	tb.Helper()
	h := &harness{g: g, model: m}
	h.server = llmtest.New(tb, append([]llmtest.Option{llmtest.WithHandler(m.Handle)}, opts...)...)
	c, err := llm.New(llmConfig(h.server.URL(), true), llm.WithBackoff(time.Millisecond, 10*time.Millisecond))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	h.client = c
	h.engine = mustNew(tb, h.g, c, cfg)
	return h
}

func demoQuestion(tb testing.TB, id string) dataset.DemoRecord {
	tb.Helper()
	for _, q := range demokg.FreebaseQuestions() {
		if q.ID == id {
			return q
		}
	}
	tb.Fatalf("no demo question %s", id)
	return dataset.DemoRecord{}
}

func topicIDs(q dataset.DemoRecord) []string {
	var ids []string
	for _, t := range q.TopicEntities {
		ids = append(ids, t.ID)
	}
	return ids
}

func entityIDs(ts []kgqa.Term) []string {
	out := []string{}
	for _, t := range ts {
		if t.ID != "" {
			out = append(out, t.ID)
		} else {
			out = append(out, t.Name)
		}
	}
	return out
}

func TestSmoke(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	q := demoQuestion(t, "demo-01")
	ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
	require.NoError(t, err)
	t.Log(brief(ans))
	require.Equal(t, []string{"m.0345h"}, entityIDs(ans.Entities))
}

func llmNew(cfg config.LLM) (*llm.Client, error) {
	return llm.New(cfg, llm.WithBackoff(time.Millisecond, 10*time.Millisecond))
}
