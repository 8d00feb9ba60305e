package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/report"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// evalModel is the scripted demo model with a wrong belief about every
// subgoal ("Atlantis"). Accuracy is not the point here; the harness is.
func evalModel() llmtest.Handler { return kgqatest.DemoModel(kgqatest.BelieveAlways("Atlantis")) }

func evalEnv(url string) map[string]string {
	return map[string]string{
		"PAROG_LLM_REASONER_BASE_URL": url, "PAROG_LLM_REASONER_MODEL": "scripted",
		"PAROG_LLM_REASONER_RETRIES": "0", "OPENAI_API_KEY": "test-key",
	}
}

const demoConfig = "../../configs/demo.yaml"

func TestEvalCLIRunAndReport(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	code, stdout, stderr := runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig, "--dataset", "demo",
		"--out", out, "--limit", "6", "--seeds", "1,2", "--concurrency", "3")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "ran 12, skipped 0")
	assert.Contains(t, stderr, "12/12", "the progress bar counts to the end")
	assert.Contains(t, stderr, "Hits@1")
	assert.Contains(t, stderr, "the 2 seeds give the same run", "greedy decoding is named")
	// Resume: nothing left to do.
	code, stdout, stderr = runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig, "--dataset", "demo",
		"--out", out, "--limit", "6", "--seeds", "1,2", "--no-progress")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "ran 0, skipped 12")

	md, js := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.json")
	code, _, stderr = runParog(t, nil, "eval", "report", out, "--md", md, "--json", js)
	require.Equal(t, 0, code, stderr)
	mdText, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(mdText), "| 1 | 6 |")
	assert.Contains(t, string(mdText), "| 2 | 6 |")
	var rep report.Report
	data, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	require.Len(t, rep.Runs, 1)
	assert.Equal(t, 6, rep.Runs[0].Questions)
	assert.Equal(t, 2, rep.Runs[0].Hits1.N)

	// Side by side with a PoG result file, scored against the demo input.
	pog := filepath.Join(dir, "pog.jsonl")
	require.NoError(t, os.WriteFile(pog, []byte(`{"question": "What country bordering France contains an airport that serves Nijmegen?", "results": "{Yes}. {Germany}", "reasoning_chains": [], "call_num": 7, "total_token": 3000, "input_token": 2800, "output_token": 200, "time": 12.5}`+"\n"), 0o644))
	code, stdout, stderr = runParog(t, nil, "eval", "report", "--dataset", "demo", "--input", "../../kgqa/kg/demokg/questions.json", out, pog)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "## Side by side")
	assert.Contains(t, stdout, "| pog.jsonl | pog | 1 | 4.5% |", "one PoG hit over the 22 expected demo questions")
}

func TestEvalSeedsSample(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, stderr := runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig, "--dataset", "demo",
		"--out", out, "--limit", "1", "--seeds", "1,2", "--seed-temperature", "0.7", "--no-progress")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "give the same run")
	seeds := map[int]bool{}
	for _, r := range srv.Requests() {
		assert.InDelta(t, 0.7, r.Chat.Temperature, 1e-6, "stage %s", r.Stage)
		require.NotNil(t, r.Chat.Seed, "stage %s", r.Stage)
		seeds[*r.Chat.Seed] = true
	}
	assert.Equal(t, map[int]bool{1: true, 2: true}, seeds)
}

func TestEvalCLIBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"not": "an array"}`), 0o644))
	badAlias := filepath.Join(dir, "alias.json")
	require.NoError(t, os.WriteFile(badAlias, []byte(`{"q": 3}`), 0o644))
	notOurs := filepath.Join(dir, "notours.jsonl")
	require.NoError(t, os.WriteFile(notOurs, []byte("[\n1,\n2]\n"), 0o644))
	env := evalEnv(llmtest.New(t).URL()) // up: the checks before a run pass
	base := []string{"eval", "--config", demoConfig, "--no-progress"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no out", []string{"--dataset", "demo"}, 2, "--out FILE is required"},
		{"unknown dataset", []string{"--dataset", "nope", "--out", filepath.Join(dir, "o")}, 2, `unknown format "nope"`},
		{"bad shard", []string{"--dataset", "demo", "--out", filepath.Join(dir, "o"), "--shard", "5/4"}, 2, "want i/n"},
		{"bad seeds", []string{"--dataset", "demo", "--out", filepath.Join(dir, "o"), "--seeds", "1,x"}, 2, "not an integer"},
		{"input needed", []string{"--dataset", "cwq", "--out", filepath.Join(dir, "o")}, 2, "--input FILE is required"},
		{"missing input", []string{"--dataset", "cwq", "--input", filepath.Join(dir, "none.json"), "--out", filepath.Join(dir, "o")}, 1, "no such file"},
		{"malformed input", []string{"--dataset", "cwq", "--input", bad, "--out", filepath.Join(dir, "o")}, 1, "want a JSON array"},
		{"malformed alias", []string{"--dataset", "demo", "--alias", badAlias, "--out", filepath.Join(dir, "o")}, 1, `bad alias file: key "q"`},
		{"out is not a results file", []string{"--dataset", "demo", "--out", notOurs}, 1, "line 1: not a result line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runParog(t, env, append(append([]string{}, base...), tc.args...)...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one-line error: %s", stderr)
		})
	}
	after, err := os.ReadFile(notOurs)
	require.NoError(t, err)
	assert.Equal(t, "[\n1,\n2]\n", string(after), "a file that is not ours is left alone")

	code, _, stderr := runParog(t, nil, "eval", "report", notOurs)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a result line")
	code, _, stderr = runParog(t, nil, "eval", "report")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "at least one results file")
}

// refusedURL is a model endpoint URL on which nothing listens.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())
	return url
}

// An eval that cannot run fails before it writes anything, with the
// message ask gives, instead of filling the results file with error rows
// that a rerun would skip.
func TestEvalChecksEndpointsFirst(t *testing.T) {
	noModel := evalEnv("")
	delete(noModel, "PAROG_LLM_REASONER_BASE_URL")
	plannerDown := evalEnv(llmtest.New(t).URL())
	plannerDown["PAROG_LLM_PLANNER_BASE_URL"], plannerDown["PAROG_LLM_PLANNER_MODEL"] = refusedURL(t), "p"
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no model", noModel, errNoReasoner.Error()},
		{"reasoner refuses connections", evalEnv(refusedURL(t)), "llm: reasoner: model endpoint 127.0.0.1:"},
		{"planner refuses connections", plannerDown, "llm: planner: model endpoint 127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.jsonl")
			code, stdout, stderr := runParog(t, tc.env, "eval", "--config", demoConfig, "--dataset", "demo", "--out", out, "--no-progress")
			assert.Equal(t, 1, code, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.NoFileExists(t, out)
		})
	}
	t.Run("ask says the same", func(t *testing.T) {
		code, _, stderr := runParog(t, noModel, "ask", "--config", demoConfig, "What borders France?")
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, errNoReasoner.Error())
	})
}

// TestEvalKill9 builds the real binary, kills it with SIGKILL in the middle
// of a run, checks that every line of the results file reads, and that a
// second run completes only the remainder.
func TestEvalKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the parog binary; skipped with -short")
	}
	dir := t.TempDir()
	bin := buildParog(t)

	srv := llmtest.New(t, llmtest.WithHandler(evalModel()), llmtest.WithDelay(40*time.Millisecond))
	out := filepath.Join(dir, "r.jsonl")
	args := []string{"eval", "--config", demoConfig, "--dataset", "demo", "--out", out, "--concurrency", "2", "--seeds", "1,2", "--no-progress"}
	environ := os.Environ()
	for k, v := range evalEnv(srv.URL()) {
		environ = append(environ, k+"="+v)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = environ
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for countLines(t, out) < 5 {
		select {
		case err := <-exited:
			t.Fatalf("parog eval exited early (%v): %s", err, stderr.String())
		case <-deadline:
			require.NoError(t, cmd.Process.Kill())
			<-exited
			t.Fatalf("no progress: %s", stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, <-exited, "the process was killed")
	stderr.Reset()

	rf, err := eval.ReadResults(out)
	require.NoError(t, err, "every line reads after kill -9")
	first := len(rf.Latest())
	total := 2 * 22
	require.Greater(t, first, 0)
	require.Less(t, first, total, "killed before the end")
	t.Logf("killed after %d of %d (question, seed) pairs; torn line: %q", first, total, rf.Torn)

	cmd = exec.Command(bin, args...)
	cmd.Env = environ
	var stdout2 bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout2, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Contains(t, stdout2.String(), fmt.Sprintf("ran %d, skipped %d", total-first, first))

	rf, err = eval.ReadResults(out)
	require.NoError(t, err)
	assert.Len(t, rf.Results, total, "no pair answered twice")
	assert.Len(t, rf.Latest(), total)
}

var parogBinary struct {
	once sync.Once
	path string
	err  error
}

// buildParog builds the parog binary once per test process and returns
// its path; tests that need real processes (kill -9, shards) run it.
func buildParog(t testing.TB) string {
	t.Helper()
	parogBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "parog-bin-")
		if err != nil {
			parogBinary.err = err
			return
		}
		parogBinary.path = filepath.Join(dir, "parog")
		build := exec.Command("go", "build", "-o", parogBinary.path, ".")
		build.Stderr = os.Stderr
		parogBinary.err = build.Run()
	})
	require.NoError(t, parogBinary.err, "go build ./cmd/parog")
	return parogBinary.path
}

func countLines(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		n++
	}
	return n
}

// PoG's released GrailQA results: n/a without gold, both rules with it,
// the dataset taken from the file names.
func TestEvalReportPoGFile(t *testing.T) {
	results := realdata.Path(t, "pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl")
	gold := realdata.Path(t, "pog/grailqa_gold.json")
	code, stdout, stderr := runParog(t, nil, "eval", "report", results)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Dataset: grailqa")
	assert.Contains(t, stdout, "**Hits@1 n/a**")
	assert.NotContains(t, stdout, "**Hits@1 0.0%")
	assert.Contains(t, stdout, "| SPARQL queries | n/a |")

	for _, tc := range []struct{ scoring, headline string }{{"strict", "**Hits@1 68.3%**"}, {"pog", "**Hits@1 76.5%**"}} {
		t.Run(tc.scoring, func(t *testing.T) {
			code, stdout, stderr := runParog(t, nil, "eval", "report", results, "--input", gold, "--scoring", tc.scoring)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, tc.headline)
			assert.Contains(t, stdout, "By scoring rule: strict 68.3% (683/1000); pog 76.5% (765/1000).")
			assert.Contains(t, stdout, "| LLM calls | 6.5 | 4.0 | 11.0 |")
		})
	}
}

// The same on the excerpt in testdata (PoG's first 30 GrailQA rows and
// their gold), which a fresh clone has. The pog figure, 27 of 30, is what
// PoG's own script gives on these rows (see dataset/eval/report's
// TestPoGRuleReproducesPoGScriptOnExcerpts); the strict one, 26, was
// counted by reading the rows: the top answer of rows 3 ("RSS reader
// software"), 4 ("Meters, centimeters, millimeters, etc."), 13 ("Fine art")
// and 21 ("Parliament of South Australia") names no gold answer. The
// calls' mean (6.3) and median (4) were computed from call_num with jq.
func TestEvalReportPoGExcerpt(t *testing.T) {
	results := realdata.Excerpt(t, "pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl")
	gold := realdata.Excerpt(t, "pog/grailqa_gold.json")
	for _, tc := range []struct{ scoring, headline string }{{"strict", "**Hits@1 86.7%**"}, {"pog", "**Hits@1 90.0%**"}} {
		t.Run(tc.scoring, func(t *testing.T) {
			code, stdout, stderr := runParog(t, nil, "eval", "report", results, "--input", gold, "--scoring", tc.scoring)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "Dataset: grailqa")
			assert.Contains(t, stdout, tc.headline)
			assert.Contains(t, stdout, "By scoring rule: strict 86.7% (26/30); pog 90.0% (27/30).")
			assert.Contains(t, stdout, "| LLM calls | 6.3 | 4.0 |")
		})
	}
}
