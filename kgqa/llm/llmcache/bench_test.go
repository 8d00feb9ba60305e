package llmcache_test

import (
	"fmt"
	"net/http"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmcache"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// BenchmarkCall measures one chat call to a local scripted server: plain,
// recorded (each request new: key, send, store), and replayed (key,
// lookup). Record minus plain is the recording overhead per call.
func BenchmarkCall(b *testing.B) {
	srv := llmtest.New(b, llmtest.WithoutLog(), llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.Text(`{"answer": "Germany", "reason": "the airport of Nijmegen is in Weeze, Germany"}`)
	}))
	prompt := "Plan the question: What country bordering France contains an airport that serves Nijmegen? " +
		"Answer with JSON. Known entities: Nijmegen (m.05bqp), France (m.0f8l9c)."
	chat := func(b *testing.B, cl *llm.Client, i int) {
		_, err := cl.Chat(b.Context(), kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "plan",
			Messages: []kgqa.Message{{Role: "system", Content: prompt}, {Role: "user", Content: fmt.Sprint(i)}}})
		require.NoError(b, err)
	}
	newClient := func(b *testing.B, c *llmcache.Cache) *llm.Client {
		var opts []llm.Option
		if c != nil {
			opts = append(opts, llm.WithHTTPClient(&http.Client{Transport: c.Transport(nil)}))
		}
		cl, err := llm.New(config.LLM{Reasoner: config.Endpoint{BaseURL: srv.URL(), Model: "scripted"}}, opts...)
		require.NoError(b, err)
		b.Cleanup(func() { _ = cl.Close() })
		return cl
	}
	open := func(b *testing.B, dir string, mode llmcache.Mode) *llmcache.Cache {
		c, err := llmcache.Open(dir, mode)
		require.NoError(b, err)
		return c
	}
	b.Run("plain", func(b *testing.B) {
		cl := newClient(b, nil)
		for i := 0; b.Loop(); i++ {
			chat(b, cl, i)
		}
	})
	b.Run("record", func(b *testing.B) {
		c := open(b, b.TempDir(), llmcache.ModeRecord)
		defer c.Close()
		cl := newClient(b, c)
		for i := 0; b.Loop(); i++ {
			chat(b, cl, i)
		}
	})
	b.Run("replay", func(b *testing.B) {
		dir := b.TempDir()
		c := open(b, dir, llmcache.ModeRecord)
		cl := newClient(b, c)
		const recorded = 1000
		for i := range recorded {
			chat(b, cl, i)
		}
		require.NoError(b, c.Close())
		c = open(b, dir, llmcache.ModeReplay)
		defer c.Close()
		cl = newClient(b, c)
		for i := 0; b.Loop(); i++ {
			chat(b, cl, i%recorded)
		}
	})
}
