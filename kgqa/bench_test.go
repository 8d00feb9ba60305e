package kgqa

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// BenchmarkDemoQuestions runs every demo question against the scripted
// model with 50 ms per call, with independent subgoals in parallel and
// one at a time, and reports per question: LLM calls, tokens, SPARQL
// queries, wall time and the critical-path bound (the longest chain of
// dependent LLM calls times 50 ms), and wall/bound.
//
//	go test ./kgqa -run '^$' -bench DemoQuestions -benchtime 1x
func BenchmarkDemoQuestions(b *testing.B) {
	const delay = 50 * time.Millisecond
	for _, mode := range []struct {
		name     string
		parallel int
	}{{"parallel", 4}, {"sequential", 1}} {
		for _, q := range demokg.FreebaseQuestions() {
			b.Run(mode.name+"/"+q.ID, func(b *testing.B) {
				cfg := config.Default().Engine
				cfg.Parallelism = mode.parallel
				h := newHarness(b, kgqatest.NewDemoModel(), cfg, llmtest.WithDelay(delay))
				var last *Answer
				var wall time.Duration
				for b.Loop() {
					start := time.Now()
					ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
					wall += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					last = ans
				}
				wall /= time.Duration(b.N)
				bound := time.Duration(last.Usage.CriticalPathCalls) * delay
				b.ReportMetric(float64(last.Usage.LLM.Calls), "calls")
				b.ReportMetric(float64(last.Usage.LLM.TotalTokens), "tokens")
				b.ReportMetric(float64(last.Usage.SPARQLQueries), "sparql")
				b.ReportMetric(float64(last.Usage.CriticalPathCalls), "cp_calls")
				b.ReportMetric(float64(wall.Milliseconds()), "wall_ms")
				b.ReportMetric(float64(wall)/float64(bound), "wall/bound")
				if testing.Verbose() {
					fmt.Printf("%s %s %s answer=%q\n", mode.name, q.ID, q.Type, last.Text)
				}
			})
		}
	}
}
