// Package evaltest builds what the eval tests share: the demo questions,
// a config of the demo KG with a scripted model, and the engine answerer
// over it.
package evaltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/llm"
)

// DemoQuestions loads the shipped demo questions through the demo loader.
func DemoQuestions(t testing.TB) []dataset.Question {
	t.Helper()
	data, err := json.Marshal(demokg.FreebaseQuestions())
	require.NoError(t, err)
	var qs []dataset.Question
	require.NoError(t, dataset.Decode(context.Background(), bytes.NewReader(data), dataset.Demo, func(q dataset.Question) error {
		qs = append(qs, q)
		return nil
	}, func(s dataset.Skipped) { t.Errorf("demo question skipped: %v", s) }))
	require.NotEmpty(t, qs)
	return qs
}

// DemoConfig is the demo KG in the embedded store and the scripted server
// as planner and reasoner.
func DemoConfig(t testing.TB, url string) config.Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "demo.nt")
	require.NoError(t, os.WriteFile(p, demokg.Freebase(), 0o600))
	cfg := config.Default()
	cfg.KG.Files = []string{p}
	for _, ep := range []*config.Endpoint{&cfg.LLM.Planner, &cfg.LLM.Reasoner} {
		ep.BaseURL, ep.Model, ep.Timeout, ep.Retries = url, "scripted", 10*time.Second, 0
	}
	cfg.Engine.Deadline = 30 * time.Second
	return cfg
}

// NewAnswerer builds the engine of cfg over its KG with a model client of
// fast backoff, as the program's one wiring path does for eval, and
// closes both when the test ends.
func NewAnswerer(tb testing.TB, cfg config.Config) *eval.EngineAnswerer {
	tb.Helper()
	g, err := kg.Open(context.Background(), cfg.KG, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	client, err := llm.New(cfg.LLM, llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = client.Close() })
	eng, err := engine.New(g, client, cfg.Engine, engine.WithNeighborLimit(cfg.KG.NeighborLimit))
	require.NoError(tb, err)
	return eval.NewAnswerer(eng)
}

// SyntheticQuestions makes n questions with one gold answer each, for
// tests of the runner that need no KG.
func SyntheticQuestions(n int) []dataset.Question {
	qs := make([]dataset.Question, n)
	for i := range qs {
		qs[i] = dataset.Question{
			ID: fmt.Sprintf("syn-%04d", i), Text: fmt.Sprintf("question %d?", i),
			Label:   []string{"composition", "conjunction"}[i%2],
			Answers: []dataset.Answer{{ID: fmt.Sprintf("m.%04d", i), Name: fmt.Sprintf("Answer %d", i)}},
		}
	}
	return qs
}
