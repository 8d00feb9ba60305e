package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// BenchmarkDemoQuestions runs every demo question against the scripted
// model with 50 ms per call, with independent subgoals in parallel and
// one at a time, and reports per question: LLM calls, tokens, SPARQL
// queries, wall time and the critical-path bound (the longest chain of
// dependent LLM calls times 50 ms), wall/bound, and hit (1 when the
// answer set is the gold set).
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
				var last *kgqa.Answer
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
				b.ReportMetric(hit(last, q), "hit")
				if testing.Verbose() {
					fmt.Printf("%s %s %s answer=%q\n", mode.name, q.ID, q.Type, last.Text)
				}
			})
		}
	}
}

// hit is 1 when ans's entities are exactly q's gold answers (each gold
// answer predicted, each prediction gold), else 0.
func hit(ans *kgqa.Answer, q dataset.DemoRecord) float64 {
	if len(ans.Entities) == 0 {
		return 0
	}
	for _, a := range q.Answers {
		if !slices.ContainsFunc(ans.Entities, func(p kgqa.Term) bool { return goldMatch(p, a) }) {
			return 0
		}
	}
	for _, p := range ans.Entities {
		if !slices.ContainsFunc(q.Answers, func(a dataset.DemoAnswer) bool { return goldMatch(p, a) }) {
			return 0
		}
	}
	return 1
}

// BenchmarkDemoSufficiency runs the 22 demo questions with the sufficiency
// judgement fused into the refine call and asked separately, and reports
// the totals over the 22: LLM calls, tokens, sufficiency calls and gold
// hits.
//
//	go test ./kgqa -run '^$' -bench DemoSufficiency -benchtime 1x
func BenchmarkDemoSufficiency(b *testing.B) {
	for _, fuse := range []bool{true, false} {
		b.Run(map[bool]string{true: "fused", false: "separate"}[fuse], func(b *testing.B) {
			cfg := config.Default().Engine
			cfg.FuseSufficiency = fuse
			m := kgqatest.NewDemoModel()
			h := newHarness(b, m, cfg)
			var calls, tokens, suff, hits float64
			for b.Loop() {
				calls, tokens, suff, hits = 0, 0, 0, 0
				m.Reset()
				for _, q := range demokg.FreebaseQuestions() {
					ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
					if err != nil {
						b.Fatal(err)
					}
					calls += float64(ans.Usage.LLM.Calls)
					tokens += float64(ans.Usage.LLM.TotalTokens)
					hits += hit(ans, q)
				}
				suff = float64(m.Calls("sufficiency"))
			}
			b.ReportMetric(calls, "calls")
			b.ReportMetric(tokens, "tokens")
			b.ReportMetric(suff, "suff_calls")
			b.ReportMetric(hits, "hits")
		})
	}
}
