package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/report"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// TestEvalShardsMerge runs the demo eval as the Kubernetes Indexed Job of
// configs/deploy/k8s runs it: four processes of the real binary at once,
// each given the manifest's arguments with its 0-based completion index.
// It merges their files and checks that the merged report is the report of
// a single-process run of the same questions.
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
	job := readIndexedJob(t)
	require.Equal(t, job.completions, job.parallelism)
	require.Equal(t, strconv.Itoa(job.completions), job.env["SHARDS"], "completions and SHARDS agree")
	n := job.completions
	// One subgoal at a time and no KG cache: a prompt then never depends on
	// which parallel subgoal finished first, nor a query count on what an
	// earlier question of the same process left in the cache.
	common := []string{"--seeds", "1,2", "--concurrency", "2", "--no-fsync",
		"--set", "engine.parallelism=1", "--set", "kg.cache_size=0"}

	procs := make([]*exec.Cmd, n)
	errs := make([]*bytes.Buffer, n)
	var shards []string
	for k := range n {
		env := map[string]string{"DATASET": "demo", "SHARDS": job.env["SHARDS"], "JOB_COMPLETION_INDEX": strconv.Itoa(k)}
		args := job.argsFor(env, map[string]string{
			"--config": demoConfig, "--input": "", "--out": filepath.Join(dir, "results", "demo", "shard-"+strconv.Itoa(k)+".jsonl"),
		})
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "results", "demo"), 0o755))
		shards = append(shards, filepath.Join(dir, "results", "demo", "shard-"+strconv.Itoa(k)+".jsonl"))
		procs[k] = exec.Command(bin, append(args, common...)...)
		procs[k].Env = environ
		errs[k] = &bytes.Buffer{}
		procs[k].Stderr = errs[k]
		require.NoError(t, procs[k].Start())
	}
	for k, p := range procs {
		require.NoError(t, p.Wait(), "index %d: %s", k, errs[k])
	}
	single := filepath.Join(dir, "single.jsonl")
	code, _, stderr := runParog(t, evalEnv(srv.URL()), append([]string{"eval", "--config", demoConfig, "--dataset", "demo", "--out", single, "--no-progress"}, common...)...)
	require.Equal(t, 0, code, stderr)

	merged := filepath.Join(dir, "merged.jsonl")
	code, stdout, stderr := runParog(t, nil, append([]string{"eval", "merge", "--out", merged, "--dataset", "demo", "--seeds", "1,2"}, shards...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "merged 44 results from 4 files")
	for _, s := range shards {
		rf, err := eval.ReadResults(s)
		require.NoError(t, err)
		assert.NotEmpty(t, rf.Results, "every index ran some questions: %s", s)
	}

	a, b := reportOf(t, single), reportOf(t, merged)
	assert.Equal(t, a, b, "the merged shards report what one process reports")
	assert.Equal(t, 22, b.Questions)

	// A shard given twice is an overlap.
	code, _, stderr = runParog(t, nil, append([]string{"eval", "merge", "--out", filepath.Join(dir, "m2.jsonl")}, append(shards, shards[0])...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "in more than one file")
	// A missing shard is a gap.
	code, _, stderr = runParog(t, nil, append([]string{"eval", "merge", "--out", filepath.Join(dir, "m3.jsonl"), "--dataset", "demo", "--seeds", "1,2"}, shards[:3]...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "expected (question, seed) pairs in no file")
	assert.NoFileExists(t, filepath.Join(dir, "m3.jsonl"), "nothing written on a failed merge")
}

// TestSlurmArrayScript runs configs/deploy/slurm/eval-array.sbatch as two
// array tasks would, with the real binary in place of the container, and
// merges what they wrote.
func TestSlurmArrayScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the parog binary; skipped with -short")
	}
	bin := buildParog(t)
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	dir := t.TempDir()
	script, err := filepath.Abs("../../configs/deploy/slurm/eval-array.sbatch")
	require.NoError(t, err)
	cfg, err := filepath.Abs(demoConfig)
	require.NoError(t, err)
	var shards []string
	for task := 1; task <= 2; task++ {
		cmd := exec.Command("bash", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+strconv.Itoa(task), "SLURM_ARRAY_TASK_COUNT=2",
			"PAROG_CMD="+bin, "PAROG_CONFIG="+cfg, "PAROG_DATASET=demo", "PAROG_EVAL_ARGS=--limit 5")
		for k, v := range evalEnv(srv.URL()) {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "task %d: %s", task, out)
		shards = append(shards, filepath.Join(dir, "out", "demo", fmt.Sprintf("shard-%d-of-2.jsonl", task)))
	}
	code, stdout, stderr := runParog(t, nil, append([]string{"eval", "merge", "--out", filepath.Join(dir, "m.jsonl"), "--dataset", "demo", "--limit", "5"}, shards...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "merged 5 results from 2 files")

	cmd := exec.Command("bash", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	assert.Error(t, err, "outside a job array the script refuses to run")
	assert.Contains(t, string(out), "sbatch --array")
}

// indexedJob is what the tests read of configs/deploy/k8s's Indexed Job.
type indexedJob struct {
	completions, parallelism int
	env                      map[string]string
	args                     []string
}

func readIndexedJob(t *testing.T) indexedJob {
	t.Helper()
	data, err := os.ReadFile("../../configs/deploy/k8s/eval-indexed-job.yaml")
	require.NoError(t, err)
	var m struct {
		Kind string
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					Containers []struct {
						Env []struct {
							Name, Value string
						}
						Args []string
					}
				}
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(data, &m))
	require.Equal(t, "Job", m.Kind)
	require.Equal(t, "Indexed", m.Spec.CompletionMode)
	require.Len(t, m.Spec.Template.Spec.Containers, 1)
	c := m.Spec.Template.Spec.Containers[0]
	job := indexedJob{completions: m.Spec.Completions, parallelism: m.Spec.Parallelism, env: map[string]string{}, args: c.Args}
	for _, e := range c.Env {
		job.env[e.Name] = e.Value
	}
	return job
}

var k8sVar = regexp.MustCompile(`\$\(([A-Z_]+)\)`)

// argsFor expands the manifest's $(VAR) references with env, as the
// kubelet does, and replaces the values of the flags in paths (dropping
// those mapped to ""), which name paths inside the pod.
func (j indexedJob) argsFor(env, paths map[string]string) []string {
	var out []string
	for _, a := range j.args {
		a = k8sVar.ReplaceAllStringFunc(a, func(m string) string { return env[k8sVar.FindStringSubmatch(m)[1]] })
		name, _, _ := strings.Cut(a, "=")
		if p, ok := paths[name]; ok {
			if p == "" {
				continue
			}
			a = name + "=" + p
		}
		out = append(out, a)
	}
	return out
}

// reportOf is the report of one results file with what depends on the
// process (wall time, file name) left out.
func reportOf(t *testing.T, path string) report.RunReport {
	t.Helper()
	run, err := report.LoadRun(path, report.Gold{})
	require.NoError(t, err)
	rep := report.BuildReport([]report.ResultSet{run}, report.ReportOptions{Dataset: "demo"})
	require.Len(t, rep.Runs, 1)
	r := rep.Runs[0]
	r.Name = ""
	r.Efficiency.Seconds = report.Dist{}
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var out report.RunReport
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}
