package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/sharedcache/redistest"
)

// BenchmarkEvalWorkersRedis runs the demo eval (22 questions x 3 seeds) as
// 1, 2 and 4 local worker processes (eval --shard i/n) sharing one Redis,
// against the scripted model at 50 ms per call, twice per worker count
// with a fresh Redis each time: the first run fills the shared cache, the
// second finds it full. It reports questions per second of each run and,
// for the second, the share of KG lookups the cache answered and the
// SPARQL queries sent.
//
//	go test ./cmd/parog -run '^$' -bench EvalWorkersRedis -benchtime 1x
func BenchmarkEvalWorkersRedis(b *testing.B) {
	bin := buildParog(b)
	model := llmtest.New(b, llmtest.WithHandler(evalModel()), llmtest.WithDelay(50*time.Millisecond), llmtest.WithoutLog())
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for b.Loop() {
				rds := redistest.New(b)
				first := runWorkers(b, bin, model.URL(), rds.URL, n)
				second := runWorkers(b, bin, model.URL(), rds.URL, n)
				b.ReportMetric(first.qps, "q/s_first")
				b.ReportMetric(second.qps, "q/s_second")
				b.ReportMetric(first.sparql, "sparql_first")
				b.ReportMetric(second.sparql, "sparql_second")
				b.ReportMetric(100*second.hitRate, "%hits_second")
				b.ReportMetric(100*first.hitRate, "%hits_first")
			}
		})
	}
}

type workersRun struct {
	qps, sparql, hitRate float64
}

// runWorkers runs n shard processes to completion and sums their results.
func runWorkers(b *testing.B, bin, modelURL, redisURL string, n int) workersRun {
	dir := b.TempDir()
	environ := os.Environ()
	for k, v := range evalEnv(modelURL) {
		environ = append(environ, k+"="+v)
	}
	environ = append(environ, "PAROG_CACHE_BACKEND=redis", "PAROG_CACHE_REDIS_URL="+redisURL)
	start := time.Now()
	procs := make([]*exec.Cmd, n)
	logs := make([]*bytes.Buffer, n)
	for i := range n {
		procs[i] = exec.Command(bin, "eval", "--config", demoConfig, "--dataset", "demo", "--seeds", "1,2,3",
			"--concurrency", "8", "--no-progress", "--no-fsync", "--shard", fmt.Sprintf("%d/%d", i+1, n),
			"--out", filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)))
		procs[i].Env = environ
		logs[i] = &bytes.Buffer{}
		procs[i].Stderr = logs[i]
		if err := procs[i].Start(); err != nil {
			b.Fatal(err)
		}
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			b.Fatalf("worker %d: %v: %s", i, err, logs[i])
		}
	}
	wall := time.Since(start)
	var out workersRun
	var results, hits, misses float64
	for i := range n {
		rf, err := eval.ReadResults(filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)))
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rf.Latest() {
			results++
			out.sparql += float64(r.SPARQLQueries)
			var tr struct {
				Usage struct {
					Hits   float64 `json:"cache_hits"`
					Misses float64 `json:"cache_misses"`
				} `json:"usage"`
			}
			_ = json.Unmarshal(r.Trace, &tr)
			hits += tr.Usage.Hits
			misses += tr.Usage.Misses
		}
	}
	if results != 66 {
		b.Fatalf("%v results, want 66", results)
	}
	out.qps = results / wall.Seconds()
	if hits+misses > 0 {
		out.hitRate = hits / (hits + misses)
	}
	return out
}
