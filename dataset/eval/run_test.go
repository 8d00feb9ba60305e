package eval_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/evaltest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
)

// scripted answers question i right when i%3 != 0, fails it when i%10 == 7
// and panics when i%10 == 9.
func scripted(inFlight, peak *atomic.Int32) eval.AnswerFunc {
	return func(ctx context.Context, q dataset.Question, seed *int) (eval.Prediction, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		var i int
		fmt.Sscanf(q.ID, "syn-%d", &i)
		switch i % 10 {
		case 7:
			return eval.Prediction{LLMCalls: 2}, fmt.Errorf("kgqa: plan: %w", kgqa.ErrModelUnavailable)
		case 9:
			panic("engine bug")
		}
		p := eval.Prediction{LLMCalls: 3, InputTokens: 100, OutputTokens: 10, Tentative: "nothing"}
		if i%3 != 0 {
			p.Entities = []score.PredEntity{{ID: q.Answers[0].ID, Name: q.Answers[0].Name}}
			p.Text = q.Answers[0].Name
		} else {
			p.Text = "Yes"
		}
		return p, nil
	}
}

func TestRunRecordsFailuresPanicsAndBoundsConcurrency(t *testing.T) {
	qs := evaltest.SyntheticQuestions(40)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	var inFlight, peak atomic.Int32
	var mu sync.Mutex
	var last eval.Progress
	sum, err := eval.Run(context.Background(), scripted(&inFlight, &peak), qs, w, eval.RunOptions{
		Concurrency: 4, Seeds: []int{1, 2},
		OnResult: func(_ eval.Result, p eval.Progress) { mu.Lock(); last = p; mu.Unlock() },
	})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.LessOrEqual(t, int(peak.Load()), 4)
	assert.Equal(t, 80, sum.Total)
	assert.Equal(t, 80, sum.Ran)
	// 40 questions: i%10==7 fail (4), i%10==9 panic (4); of the other 32,
	// hits are those with i%3 != 0.
	wantHits := 0
	for i := range 40 {
		if i%10 != 7 && i%10 != 9 && i%3 != 0 {
			wantHits++
		}
	}
	assert.Equal(t, 2*wantHits, sum.Hits)
	assert.Equal(t, 16, sum.Errors)
	assert.Equal(t, 8, sum.Panics)
	assert.Equal(t, eval.Progress{Done: 80, Total: 80, Hits: 2 * wantHits, Errors: 16}, last)

	rf, err := eval.ReadResults(path)
	require.NoError(t, err)
	require.Len(t, rf.Results, 80)
	kinds := map[string]int{}
	for _, r := range rf.Results {
		kinds[r.ErrorKind]++
		if r.ID == "syn-0003" {
			assert.False(t, r.Hit, "Yes is never an answer")
			assert.Equal(t, "", r.Prediction)
		}
		if r.ErrorKind == "llm_unavailable" {
			assert.Equal(t, 2, r.CallNum, "the cost of a failed question is kept")
		}
	}
	assert.Equal(t, map[string]int{"": 64, "llm_unavailable": 8, "panic": 8}, kinds)
}

func TestRunResumeSkipsFinished(t *testing.T) {
	qs := evaltest.SyntheticQuestions(20)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var calls atomic.Int32
	ans := eval.AnswerFunc(func(ctx context.Context, q dataset.Question, seed *int) (eval.Prediction, error) {
		calls.Add(1)
		return eval.Prediction{Text: q.Answers[0].Name}, nil
	})
	w, err := eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	_, err = eval.Run(context.Background(), ans, qs[:8], w, eval.RunOptions{Concurrency: 3})
	require.NoError(t, err)
	require.NoError(t, w.Close())

	done, _, _, err := eval.PrepareResume(path, false)
	require.NoError(t, err)
	w, err = eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	calls.Store(0)
	sum, err := eval.Run(context.Background(), ans, qs, w, eval.RunOptions{Concurrency: 3, Done: done})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.Equal(t, 8, sum.Skipped)
	assert.Equal(t, 12, sum.Ran)
	assert.Equal(t, int32(12), calls.Load())
	rf, err := eval.ReadResults(path)
	require.NoError(t, err)
	ids := map[string]int{}
	for _, r := range rf.Results {
		ids[r.ID]++
	}
	assert.Len(t, ids, 20)
	for id, n := range ids {
		assert.Equal(t, 1, n, id)
	}
}

func TestRunCancelLeavesInFlightUnrecorded(t *testing.T) {
	qs := evaltest.SyntheticQuestions(50)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
	ans := eval.AnswerFunc(func(ctx context.Context, q dataset.Question, seed *int) (eval.Prediction, error) {
		if started.Add(1) == 10 {
			cancel()
		}
		select {
		case <-ctx.Done():
			return eval.Prediction{}, ctx.Err()
		case <-time.After(time.Millisecond):
		}
		return eval.Prediction{Text: q.Answers[0].Name}, nil
	})
	sum, err := eval.Run(ctx, ans, qs, w, eval.RunOptions{Concurrency: 4})
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, w.Close())
	rf, err := eval.ReadResults(path)
	require.NoError(t, err)
	assert.Equal(t, sum.Ran, len(rf.Results))
	assert.Less(t, len(rf.Results), 50)
	for _, r := range rf.Results {
		assert.Empty(t, r.Error, "a canceled question is not recorded as failed")
	}
}

func TestRunTimeoutIsRecorded(t *testing.T) {
	qs := evaltest.SyntheticQuestions(2)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	ans := eval.AnswerFunc(func(ctx context.Context, q dataset.Question, seed *int) (eval.Prediction, error) {
		<-ctx.Done()
		return eval.Prediction{}, fmt.Errorf("kgqa: explore: %w", ctx.Err())
	})
	sum, err := eval.Run(context.Background(), ans, qs, w, eval.RunOptions{Concurrency: 2, Timeout: 20 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.Equal(t, 2, sum.Errors)
	rf, err := eval.ReadResults(path)
	require.NoError(t, err)
	for _, r := range rf.Results {
		assert.Equal(t, "timeout", r.ErrorKind)
	}
}

func TestRunWriteErrorStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	require.NoError(t, w.Close()) // writes now fail
	ans := eval.AnswerFunc(func(ctx context.Context, q dataset.Question, seed *int) (eval.Prediction, error) {
		return eval.Prediction{}, nil
	})
	_, err = eval.Run(context.Background(), ans, evaltest.SyntheticQuestions(10), w, eval.RunOptions{Concurrency: 2})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dataset: results: write")
}

func TestShardAndSelect(t *testing.T) {
	qs := evaltest.SyntheticQuestions(100)
	seen := map[string]int{}
	for i := 1; i <= 4; i++ {
		sel, dups := eval.Select(qs, 0, eval.Shard{Index: i, Count: 4})
		assert.Empty(t, dups)
		assert.Greater(t, len(sel), 10, "shards are roughly balanced")
		for _, q := range sel {
			seen[q.ID]++
		}
		// Deterministic, and independent of file order.
		rev := append([]dataset.Question(nil), qs...)
		for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
			rev[l], rev[r] = rev[r], rev[l]
		}
		sel2, _ := eval.Select(rev, 0, eval.Shard{Index: i, Count: 4})
		assert.ElementsMatch(t, ids(sel), ids(sel2))
	}
	assert.Len(t, seen, 100, "shards cover the input")
	for _, n := range seen {
		assert.Equal(t, 1, n, "shards are disjoint")
	}
	sel, _ := eval.Select(qs, 10, eval.Shard{})
	assert.Len(t, sel, 10)
	sel, dups := eval.Select(append(qs[:3:3], qs[0]), 0, eval.Shard{})
	assert.Len(t, sel, 3)
	assert.Equal(t, []string{"syn-0000"}, dups)
}

func ids(qs []dataset.Question) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.ID
	}
	return out
}

func TestParseShardAndSeeds(t *testing.T) {
	s, err := eval.ParseShard("2/4")
	require.NoError(t, err)
	assert.Equal(t, eval.Shard{Index: 2, Count: 4}, s)
	for _, bad := range []string{"0/4", "5/4", "x", "1/0", "1/x"} {
		_, err := eval.ParseShard(bad)
		assert.Error(t, err, bad)
	}
	for _, tc := range []struct {
		in   string
		base int
		want eval.Shard
	}{{"0/4", 0, eval.Shard{Index: 1, Count: 4}}, {"3/4", 0, eval.Shard{Index: 4, Count: 4}}, {"2/4", 1, eval.Shard{Index: 2, Count: 4}}, {"", 0, eval.Shard{}}} {
		s, err := eval.ParseShardBase(tc.in, tc.base)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, s, tc.in)
	}
	for _, bad := range []string{"4/4", "-1/4", "x/4", "1"} {
		_, err := eval.ParseShardBase(bad, 0)
		assert.ErrorContains(t, err, "0 <= i < n", bad)
	}
	_, err = eval.ParseShardBase("1/4", 2)
	assert.Error(t, err)
	seeds, err := eval.ParseSeeds("1, 2,3")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, seeds)
	_, err = eval.ParseSeeds("1,1")
	assert.ErrorContains(t, err, "repeated")
	_, err = eval.ParseSeeds("1,a")
	assert.ErrorContains(t, err, `"a" is not an integer`)
}

func TestErrorKind(t *testing.T) {
	assert.Equal(t, "llm_schema", eval.ErrorKind(fmt.Errorf("x: %w", &kgqa.SchemaError{Stage: "plan"})))
	assert.Equal(t, "timeout", eval.ErrorKind(fmt.Errorf("x: %w", context.DeadlineExceeded)))
	assert.Equal(t, "other", eval.ErrorKind(errors.New("strange")))
}

func TestPending(t *testing.T) {
	qs := []dataset.Question{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	one, two := 1, 2
	cases := []struct {
		name  string
		seeds []int
		done  map[eval.Key]bool
		want  int
	}{
		{"no seeds, nothing done", nil, nil, 3},
		{"no seeds, one done", nil, map[eval.Key]bool{eval.MakeKey("b", nil): true}, 2},
		{"seeded run ignores unseeded results", []int{1}, map[eval.Key]bool{eval.MakeKey("b", nil): true}, 3},
		{"two seeds, one pair each done", []int{1, 2}, map[eval.Key]bool{eval.MakeKey("a", &one): true, eval.MakeKey("c", &two): true}, 4},
		{"all done", []int{2}, map[eval.Key]bool{eval.MakeKey("a", &two): true, eval.MakeKey("b", &two): true, eval.MakeKey("c", &two): true}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, eval.Pending(qs, c.seeds, c.done))
		})
	}
}
