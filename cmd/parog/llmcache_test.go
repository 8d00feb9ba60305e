package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// outcomes reads a results file as comparable lines: every field but the
// timings, by question id.
func outcomes(t *testing.T, path string) []string {
	t.Helper()
	rf, err := eval.ReadResults(path)
	require.NoError(t, err)
	var out []string
	for _, r := range rf.Latest() {
		r.Time, r.Trace = 0, nil
		b, err := json.Marshal(r)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// chainQuestions writes the demo questions whose plans are chains (no
// conjunction), a small recording for the resume and miss checks below
// (TestEvalReplayExactWithParallelism replays every demo question).
func chainQuestions(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../../kgqa/kg/demokg/questions.json")
	require.NoError(t, err)
	var qs []map[string]any
	require.NoError(t, json.Unmarshal(data, &qs))
	var keep []map[string]any
	for _, q := range qs {
		if q["type"] != "conjunction" {
			keep = append(keep, q)
		}
	}
	out, err := json.Marshal(keep)
	require.NoError(t, err)
	path := filepath.Join(dir, "chain.json")
	require.NoError(t, os.WriteFile(path, out, 0o644))
	return path
}

// A demo eval recorded with --llm-cache replays with --llm-replay without
// a single model request, and writes the same results (timings aside). A
// resumed recording reuses the calls of a question that was cut off.
func TestEvalRecordReplay(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	dir := t.TempDir()
	input := chainQuestions(t, dir)
	cache, recorded, replayed := filepath.Join(dir, "cache"), filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "rep.jsonl")
	runEval := func(out string, extra ...string) (int, string, string) {
		args := append([]string{"eval", "--config", demoConfig, "--dataset", "demo", "--input", input, "--out", out, "--limit", "5", "--no-progress"}, extra...)
		return runParog(t, evalEnv(srv.URL()), args...)
	}
	code, _, stderr := runEval(recorded, "--llm-cache", cache)
	require.Equal(t, 0, code, stderr)
	calls := srv.Count()
	require.Positive(t, calls)
	assert.Contains(t, stderr, "0 replies from the cache")

	code, stdout, stderr := runEval(replayed, "--llm-replay", cache)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "ran 5, skipped 0 already done, 0 errors")
	assert.Equal(t, calls, srv.Count(), "a replay sends no model request")
	assert.Contains(t, stderr, "0 recorded, 0 missing")
	assert.Equal(t, outcomes(t, recorded), outcomes(t, replayed))

	// Cut the last result line, as if the run had stopped while that
	// question was being answered: the resumed run pays for nothing.
	data, err := os.ReadFile(recorded)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	require.NoError(t, os.WriteFile(recorded, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644))
	code, stdout, stderr = runEval(recorded, "--llm-cache", cache)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "ran 1, skipped 4 already done")
	assert.Equal(t, calls, srv.Count(), "the interrupted question's calls come from the cache")
	assert.Equal(t, outcomes(t, replayed), outcomes(t, recorded))

	// A request that was never recorded fails, naming its key.
	code, _, stderr = runEval(filepath.Join(dir, "more.jsonl"), "--llm-replay", cache, "--limit", "6")
	require.Equal(t, 0, code, stderr)
	rf, err := eval.ReadResults(filepath.Join(dir, "more.jsonl"))
	require.NoError(t, err)
	var errs []string
	for _, r := range rf.Latest() {
		if r.Error != "" {
			errs = append(errs, r.Error)
		}
	}
	require.Len(t, errs, 1, "only the sixth question was never recorded")
	assert.Regexp(t, `no recorded reply for request key [0-9a-f]{64}`, errs[0])
	assert.Equal(t, calls, srv.Count())

	code, _, stderr = runEval(filepath.Join(dir, "x.jsonl"), "--llm-cache", cache, "--llm-replay", cache)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "not both")
}

var sparqlCount = regexp.MustCompile(`"sparql_queries":\d+`)

// The README's record/replay example, on every demo question with the
// demo config's parallelism (4): each of three replays, with the model
// gone, sends no request, misses no recorded reply and writes the rows of
// the recording (timings aside). Independent subgoals run concurrently, so
// this holds only because a prompt shows the results of the subgoals it
// depends on and never a sibling's progress.
func TestEvalReplayExactWithParallelism(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	dir := t.TempDir()
	cache, recorded := filepath.Join(dir, "llm-cache"), filepath.Join(dir, "rec.jsonl")
	code, _, stderr := runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig, "--dataset", "demo",
		"--out", recorded, "--llm-cache", cache, "--no-progress")
	require.Equal(t, 0, code, stderr)
	// The KG queries a question sends depend on what the questions
	// answered beside it (--concurrency 4) left in the shared KG cache, not
	// on the model: they are compared apart from the rest of the row.
	rows := func(path string) []string {
		var out []string
		for _, r := range outcomes(t, path) {
			out = append(out, sparqlCount.ReplaceAllString(r, `"sparql_queries":_`))
		}
		return out
	}
	want := rows(recorded)
	require.Len(t, want, 22, "every demo question is recorded")
	srv.Close()
	for i := range 3 {
		replayed := filepath.Join(dir, fmt.Sprintf("replay%d.jsonl", i))
		// The model is gone: its server is closed.
		code, _, stderr := runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig,
			"--dataset", "demo", "--out", replayed, "--llm-replay", cache, "--no-progress")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "0 recorded, 0 missing", "replay %d", i)
		assert.Equal(t, want, rows(replayed), "replay %d", i)
	}
}
