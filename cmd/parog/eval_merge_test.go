package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// TestEvalShardsMerge runs the demo eval as four shard processes of the real
// binary at once, merges their files, and checks that the merged report is
// the report of a single-process run of the same questions.
func TestEvalShardsMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the parog binary and runs four processes; skipped with -short")
	}
	bin := buildParog(t)
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	dir := t.TempDir()
	environ := os.Environ()
	for k, v := range evalEnv(srv.URL()) {
		environ = append(environ, k+"="+v)
	}
	base := []string{"eval", "--config", demoConfig, "--dataset", "demo", "--seeds", "1,2", "--concurrency", "2", "--no-progress", "--no-fsync",
		// One subgoal at a time and no KG cache: a prompt then never depends on
		// which parallel subgoal finished first, nor a query count on what an
		// earlier question of the same process left in the cache.
		"--set", "engine.parallelism=1", "--set", "kg.cache_size=0"}

	const n = 4
	procs := make([]*exec.Cmd, n)
	errs := make([]*bytes.Buffer, n)
	shards := make([]string, n)
	for i := range n {
		shards[i] = filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i+1))
		procs[i] = exec.Command(bin, append(base, "--out", shards[i], "--shard", fmt.Sprintf("%d/%d", i+1, n))...)
		procs[i].Env = environ
		errs[i] = &bytes.Buffer{}
		procs[i].Stderr = errs[i]
		require.NoError(t, procs[i].Start())
	}
	for i, p := range procs {
		require.NoError(t, p.Wait(), "shard %d: %s", i+1, errs[i])
	}
	single := filepath.Join(dir, "single.jsonl")
	code, _, stderr := runParog(t, evalEnv(srv.URL()), append(base, "--out", single)...)
	require.Equal(t, 0, code, stderr)

	merged := filepath.Join(dir, "merged.jsonl")
	code, stdout, stderr := runParog(t, nil, append([]string{"eval", "merge", "--out", merged, "--dataset", "demo", "--seeds", "1,2"}, shards...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "merged 44 results from 4 files")

	a, b := reportOf(t, single), reportOf(t, merged)
	assert.Equal(t, a, b, "the merged shards report what one process reports")
	assert.Equal(t, 22, b.Questions)

	// Merging the same shards again, or a shard twice, is refused.
	code, _, stderr = runParog(t, nil, append([]string{"eval", "merge", "--out", filepath.Join(dir, "m2.jsonl")}, append(shards, shards[0])...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "in more than one file")
	// A missing shard is a gap.
	code, _, stderr = runParog(t, nil, append([]string{"eval", "merge", "--out", filepath.Join(dir, "m3.jsonl"), "--dataset", "demo", "--seeds", "1,2"}, shards[:3]...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "expected (question, seed) pairs in no file")
	assert.NoFileExists(t, filepath.Join(dir, "m3.jsonl"), "nothing written on a failed merge")
}

// reportOf is the report of one results file with what depends on the
// process (wall time, file name) left out.
func reportOf(t *testing.T, path string) dataset.RunReport {
	t.Helper()
	run, err := dataset.LoadRun(path, dataset.Gold{})
	require.NoError(t, err)
	rep := dataset.BuildReport([]dataset.ResultSet{run}, dataset.ReportOptions{Dataset: "demo"})
	require.Len(t, rep.Runs, 1)
	r := rep.Runs[0]
	r.Name = ""
	r.Efficiency.Seconds = dataset.Dist{}
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var out dataset.RunReport
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}
