package llm

import (
	"context"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// BenchmarkChat measures a chat call end to end over loopback, with no
// server delay (client and protocol overhead) and with the 50 ms per call
// used by the engine benchmarks, sequential and 16-way concurrent.
func BenchmarkChat(b *testing.B) {
	reply := llmtest.Text(`{"answer": "Germany"}`)
	for _, bc := range []struct {
		name     string
		delay    time.Duration
		parallel int
	}{{"delay=0", 0, 0}, {"delay=50ms", 50 * time.Millisecond, 0}, {"delay=50ms/conc=16", 50 * time.Millisecond, 16}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := llmtest.New(b, llmtest.WithDelay(bc.delay),
				llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return reply }))
			c, req := benchClient(b, srv.URL())
			var out answer
			call := func() {
				if _, err := c.JSON(context.Background(), req, &out, nil); err != nil {
					b.Error(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			if bc.parallel == 0 {
				for b.Loop() {
					call()
				}
				return
			}
			b.SetParallelism(bc.parallel)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					call()
				}
			})
		})
	}
}

// benchClient is a client whose reasoner is at baseURL (64 calls at
// once), closed when b ends, and the question the chat benchmarks ask.
func benchClient(b *testing.B, baseURL string) (*Client, kgqa.ChatRequest) {
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model, ep.Concurrency = baseURL, "m", 64
	c, err := New(config.LLM{Reasoner: ep})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c, ask("answer", "What country bordering France contains an airport that serves Nijmegen?")
}
