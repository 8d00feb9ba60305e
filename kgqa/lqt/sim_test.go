package lqt

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// axis embeds a text on one of three axes by the topic it names, so that
// the cosines are 1 within a topic and 0 across.
func axis(_ string, text string) []float32 {
	switch {
	case strings.Contains(text, "airport"):
		return []float32{1, 0, 0}
	case strings.Contains(text, "countr"):
		return []float32{0, 1, 0}
	}
	return []float32{0, 0, 1}
}

func TestEmbeddingsSimilarity(t *testing.T) {
	s := llmtest.New(t, llmtest.WithEmbedder(axis))
	e := NewEmbeddings(embeddingsClient(t, s.URL()))
	m, err := e.Matrix(context.Background(), []string{"the airports of Nijmegen", "the countries of #1", "the countries bordering France", "Which of #1 is largest?"})
	require.NoError(t, err)
	assert.Equal(t, 1, s.EmbeddingRequests(), "one request for all the texts")
	assert.InDelta(t, 1.0, m[1][2], 1e-9)
	assert.InDelta(t, 0.0, m[0][1], 1e-9)
	assert.InDelta(t, 0.0, m[2][3], 1e-9)
	assert.Equal(t, "embeddings", e.Name())

	down := llmtest.New(t) // a chat-only server: no embeddings route
	_, err = NewEmbeddings(embeddingsClient(t, down.URL())).Matrix(context.Background(), []string{"a", "b"})
	assert.ErrorContains(t, err, "lqt: embeddings")
}

// With an embeddings endpoint configured, the dynamic programme still
// scores Sim by lexical cosine with the question (one call per candidate
// tree would be too many) and the trace says so.
func TestPlannerWithEmbeddings(t *testing.T) {
	m := airportModel()
	same := func(string, string) []float32 { return []float32{0.6, 0.8} }
	s := llmtest.New(t, llmtest.WithHandler(m.handle), llmtest.WithEmbedder(same))
	cfg := config.Default().LLM
	cfg.Reasoner.BaseURL, cfg.Reasoner.Model, cfg.Reasoner.Timeout = s.URL(), "scripted", 10*time.Second
	c, err := llm.New(cfg, llm.WithBackoff(time.Millisecond, 10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	p := New(c, config.Default().Planner.LQT, WithSimilarity(NewEmbeddings(embeddingsClient(t, s.URL()))))
	_, info, err := p.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, "lexical", info.Tree.Similarity)
	assert.Contains(t, info.Tree.Note, "embeddings is not called per candidate tree")
	assert.Equal(t, 0, s.EmbeddingRequests())
}

// A down embeddings endpoint costs the tree its Sim source, not the
// question: lexical cosine stands in and the trace says why.
func TestPlannerEmbeddingsDownFallsBackToLexical(t *testing.T) {
	m := airportModel()
	s := llmtest.New(t, llmtest.WithHandler(m.handle)) // no embeddings route
	cfg := config.Default().LLM
	cfg.Reasoner.BaseURL, cfg.Reasoner.Model, cfg.Reasoner.Timeout = s.URL(), "scripted", 10*time.Second
	c, err := llm.New(cfg, llm.WithBackoff(time.Millisecond, 10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	withEmb := New(c, config.Default().Planner.LQT, WithSimilarity(NewEmbeddings(embeddingsClient(t, s.URL()))))
	plan, info, err := withEmb.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, "lexical", info.Tree.Similarity)
	assert.Contains(t, info.Tree.Note, "similarity from lexical cosine")

	lexical := New(c, config.Default().Planner.LQT)
	want, wantInfo, err := lexical.Plan(context.Background(), airport)
	require.NoError(t, err)
	assert.Equal(t, want, plan, "the same tree as a planner with no embeddings endpoint")
	assert.InDelta(t, wantInfo.Tree.Sim, info.Tree.Sim, 1e-9)
}

// embeddingsClient is the engine's embeddings client for the endpoint at
// url, as llm.embeddings builds it.
func embeddingsClient(t *testing.T, url string) *llm.EmbeddingsClient {
	t.Helper()
	em, err := llm.NewEmbeddings(config.Embeddings{BaseURL: url, Model: "bge-small", Timeout: 10 * time.Second})
	require.NoError(t, err)
	return em
}
