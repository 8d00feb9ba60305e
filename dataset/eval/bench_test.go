package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/evaltest"

	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// BenchmarkEval1000 runs 1,000 questions (the demo questions repeated under
// fresh ids) through the real engine on the embedded demo KG, with the
// scripted model answering every call after 50 ms, at concurrency 64, and
// reports wall time against the ideal (total calls × 50 ms / 64), the CPU
// time of the whole process (runner, engine, KG and the scripted server,
// which share it) and peak memory. eval.Run it with
//
//	go test -run '^$' -bench Eval1000 -benchtime 1x ./dataset/
func BenchmarkEval1000(b *testing.B) {
	const (
		n           = 1000
		concurrency = 64
		delay       = 50 * time.Millisecond
	)
	demo := evaltest.DemoQuestions(b)
	qs := make([]dataset.Question, n)
	for i := range qs {
		qs[i] = demo[i%len(demo)]
		qs[i].ID = fmt.Sprintf("%s-%04d", qs[i].ID, i)
	}
	m := kgqatest.NewDemoModel(kgqatest.BelieveAlways("Atlantis"))
	srv := llmtest.New(b, llmtest.WithHandler(m.Handle), llmtest.WithDelay(delay))
	cfg := evaltest.DemoConfig(b, srv.URL())
	cfg.LLM.Planner.Concurrency, cfg.LLM.Reasoner.Concurrency = concurrency, concurrency
	cfg.Engine.Deadline = 5 * time.Minute
	ans := evaltest.NewAnswerer(b, cfg)

	for b.Loop() {
		m.Reset()
		path := filepath.Join(b.TempDir(), "r.jsonl")
		w, err := eval.CreateResultWriter(path, true)
		require.NoError(b, err)
		var peakHeap atomic.Uint64
		stop := sampleHeap(&peakHeap)
		cpu0 := cpuTime()
		start := time.Now()
		sum, err := eval.Run(context.Background(), ans, qs, w, eval.RunOptions{Concurrency: concurrency})
		wall := time.Since(start)
		cpu := cpuTime() - cpu0
		stop()
		require.NoError(b, err)
		require.NoError(b, w.Close())
		require.Equal(b, n, sum.Ran)
		calls := m.Total()
		ideal := time.Duration(calls) * delay / concurrency
		info, _ := os.Stat(path)
		b.ReportMetric(wall.Seconds(), "wall_s")
		b.ReportMetric(ideal.Seconds(), "ideal_s")
		b.ReportMetric(wall.Seconds()/ideal.Seconds(), "wall/ideal")
		b.ReportMetric(float64(calls), "llm_calls")
		b.ReportMetric(cpu.Seconds(), "cpu_s")
		b.ReportMetric(1000*cpu.Seconds()/float64(n), "cpu_ms/question")
		b.ReportMetric(float64(peakHeap.Load())/(1<<20), "peak_heap_MB")
		b.ReportMetric(float64(maxRSS())/(1<<10), "max_rss_MB")
		b.ReportMetric(float64(info.Size())/(1<<20), "results_MB")
		b.ReportMetric(float64(sum.Hits)/float64(n), "hits1")
		b.ReportMetric(float64(sum.Errors), "errors")
	}
}

// BenchmarkHarness1000 isolates the evaluator's own cost: 1,000 questions
// whose answerer only waits 4 × 50 ms (the LLM calls) and returns a
// prediction, at concurrency 64, with fsync per line, scoring and progress.
func BenchmarkHarness1000(b *testing.B) {
	const n, concurrency, calls = 1000, 64, 4
	const delay = 50 * time.Millisecond
	qs := evaltest.SyntheticQuestions(n)
	ans := eval.AnswerFunc(func(ctx context.Context, q dataset.Question, seed *int) (eval.Prediction, error) {
		time.Sleep(calls * delay)
		return eval.Prediction{Text: q.Answers[0].Name, Entities: []score.PredEntity{{ID: q.Answers[0].ID, Name: q.Answers[0].Name}},
			LLMCalls: calls, InputTokens: 800, OutputTokens: 80, Tentative: "x", Plan: []byte(`{"version":1}`),
			Trace: []byte(`{"subgoals":[` + strings.Repeat(`{"id":"s1","text":"t"},`, 20) + `{}]}`)}, nil
	})
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "r.jsonl")
		w, err := eval.CreateResultWriter(path, true)
		require.NoError(b, err)
		cpu0 := cpuTime()
		start := time.Now()
		sum, err := eval.Run(context.Background(), ans, qs, w, eval.RunOptions{Concurrency: concurrency, OnResult: func(eval.Result, eval.Progress) {}})
		wall := time.Since(start)
		cpu := cpuTime() - cpu0
		require.NoError(b, err)
		require.NoError(b, w.Close())
		require.Equal(b, n, sum.Ran)
		ideal := time.Duration(n*calls) * delay / concurrency
		b.ReportMetric(wall.Seconds(), "wall_s")
		b.ReportMetric(ideal.Seconds(), "ideal_s")
		b.ReportMetric(wall.Seconds()/ideal.Seconds(), "wall/ideal")
		b.ReportMetric(1000*cpu.Seconds()/float64(n), "cpu_ms/question")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// maxRSS is the process's peak resident set in KiB (Linux VmHWM).
func maxRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
