package llm

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmbeddingsAreFetchedOnceAndAccounted(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithEmbedder(llmtest.HashedWords))
	em, err := NewEmbeddings(config.Embeddings{BaseURL: srv.URL(), Model: "bge-small"})
	require.NoError(t, err)
	ledger := kgqa.NewLedger()
	ctx := kgqa.WithLedger(context.Background(), ledger)

	texts := []string{"countries that border France", "location: adjoin s", "people: place of birth"}
	vecs, err := em.Embed(ctx, texts)
	require.NoError(t, err)
	require.Len(t, vecs, 3)
	for i, v := range vecs {
		assert.Equal(t, llmtest.HashedWords("bge-small", texts[i]), v, "vector %d is the one served for its text", i)
	}
	assert.Equal(t, 1, srv.EmbeddingRequests(), "one request for all texts")

	again, err := em.Embed(ctx, []string{"location: adjoin s", "a new text"})
	require.NoError(t, err)
	assert.Equal(t, vecs[1], again[0])
	assert.Equal(t, llmtest.HashedWords("bge-small", "a new text"), again[1])
	assert.Equal(t, 2, srv.EmbeddingRequests(), "a cached text is not sent again")

	sum := ledger.Summary()
	require.Contains(t, sum.ByRole, Embeddings)
	assert.Equal(t, 2, sum.ByRole[Embeddings].Calls)
	assert.Positive(t, sum.ByStage[StageEmbed].PromptTokens)
}

func TestEmbeddingsConfigAndOutage(t *testing.T) {
	_, err := NewEmbeddings(config.Embeddings{BaseURL: "ftp://x", Model: "m"})
	assert.ErrorContains(t, err, "llm.embeddings.base_url")
	_, err = NewEmbeddings(config.Embeddings{BaseURL: "http://127.0.0.1:1/v1"})
	assert.ErrorContains(t, err, "llm.embeddings.model")

	em, err := NewEmbeddings(config.Embeddings{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	require.NoError(t, err)
	_, err = em.Embed(context.Background(), []string{"x"})
	assert.ErrorIs(t, err, kgqa.ErrModelUnavailable)
}
