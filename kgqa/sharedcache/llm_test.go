package sharedcache_test

import (
	"context"
	"net/http"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmcache"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/sharedcache"
	"github.com/parog/parog-go/kgqa/sharedcache/redistest"
)

// TestModelCallsShared gives two workers their own recording directories
// and one Redis: a call the first recorded is answered for the second
// without reaching the model, in record mode and in replay mode, and lands
// in the second's own directory too.
func TestModelCallsShared(t *testing.T) {
	rds := redistest.New(t)
	model := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.Text(`{"answer": "Germany"}`)
	}))
	ctx := context.Background()
	worker := func(mode llmcache.Mode) (*llm.Client, *llmcache.Cache) {
		c, err := llmcache.Open(t.TempDir(), mode)
		require.NoError(t, err)
		r, err := sharedcache.Open(ctx, cacheConfig(rds.URL), "")
		require.NoError(t, err)
		c.Share(r.Namespace("llm:"))
		t.Cleanup(func() { _ = c.Close(); _ = r.Close() })
		cl, err := llm.New(config.LLM{Reasoner: config.Endpoint{BaseURL: model.URL(), Model: "scripted", Retries: 0, Timeout: 10e9, Concurrency: 2, MaxTokens: 64}},
			llm.WithHTTPClient(&http.Client{Transport: c.Transport(nil)}))
		require.NoError(t, err)
		t.Cleanup(func() { _ = cl.Close() })
		return cl, c
	}
	ask := func(cl *llm.Client, q string) string {
		out, err := cl.Chat(ctx, kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "tentative",
			Messages: []kgqa.Message{{Role: "user", Content: q}}})
		require.NoError(t, err)
		return out.Content
	}
	a, ca := worker(llmcache.ModeRecord)
	first := ask(a, "Which country borders France and serves Nijmegen?")
	require.Equal(t, 1, model.Count())
	assert.Equal(t, int64(1), ca.Stats().Stored)

	b, cb := worker(llmcache.ModeRecord)
	assert.Equal(t, first, ask(b, "Which country borders France and serves Nijmegen?"))
	assert.Equal(t, 1, model.Count(), "the second worker reused the first one's call")
	assert.Equal(t, int64(1), cb.Stats().Hits)
	n, err := cb.Len()
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the shared call is copied into the second worker's recording")

	c, cc := worker(llmcache.ModeReplay)
	assert.Equal(t, first, ask(c, "Which country borders France and serves Nijmegen?"))
	assert.Equal(t, int64(0), cc.Stats().Misses)
	_, err = c.Chat(ctx, kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "tentative", Messages: []kgqa.Message{{Role: "user", Content: "never recorded"}}})
	assert.ErrorIs(t, err, llmcache.ErrMiss, "replay still fails on a call nobody recorded")
	assert.Equal(t, 1, model.Count())
}
