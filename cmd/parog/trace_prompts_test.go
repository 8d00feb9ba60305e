package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

const giantsQuestion = "Who is the mascot of the San Francisco Giants?"

// askJSON runs parog ask --json and decodes the answer.
func askJSON(t *testing.T, env map[string]string, args ...string) (kgqa.Answer, string) {
	t.Helper()
	code, stdout, stderr := runParog(t, env, append([]string{"ask", "--config", demoConfig, "--json"}, args...)...)
	require.Equal(t, 0, code, stderr)
	var ans kgqa.Answer
	require.NoError(t, json.Unmarshal([]byte(stdout), &ans))
	return ans, stdout
}

// --trace-prompts puts every model call the server received, with its
// messages and the reply it sent, into the trace by subgoal and round, and
// the SPARQL of every KG query; without it the trace has none.
func TestAskTracePrompts(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel(kgqatest.Believe("mascot", "Lou Seal"))))
	plain, _ := askJSON(t, evalEnv(srv.URL()), "--topic", "m.0713r", giantsQuestion)
	assert.Nil(t, plain.Transcript)
	assert.Equal(t, "builtin", plain.Prompts)
	before := srv.Count()

	ans, _ := askJSON(t, evalEnv(srv.URL()), "--trace-prompts", "--topic", "m.0713r", giantsQuestion)
	require.NotNil(t, ans.Transcript)
	reqs := srv.Requests()[before:]
	require.Len(t, ans.Transcript.Calls, len(reqs), "one exchange per request the model received")
	require.Equal(t, ans.Usage.LLM.Calls, len(ans.Transcript.Calls))
	sent := map[string]bool{}
	for _, r := range reqs {
		sent[r.Chat.Messages[len(r.Chat.Messages)-1].Content] = true
	}
	stages := map[kgqa.Stage]kgqa.Step{}
	for _, c := range ans.Transcript.Calls {
		require.NotEmpty(t, c.Messages)
		assert.True(t, sent[c.Messages[len(c.Messages)-1].Content], "the traced prompt is the one sent (%s)", c.Stage)
		assert.NotEmpty(t, c.Reply, c.Stage)
		stages[c.Stage] = c.Step
	}
	assert.Equal(t, kgqa.Step{Subgoal: "s1"}, stages["tentative"], "the tentative answer comes before exploration")
	assert.Equal(t, kgqa.Step{Subgoal: "s1", Round: 1}, stages["relations"])
	assert.Equal(t, kgqa.Step{Subgoal: "s1", Round: 1}, stages["refine"])
	require.NotEmpty(t, ans.Transcript.Queries)
	assert.EqualValues(t, ans.Usage.SPARQLQueries, len(ans.Transcript.Queries))
	for _, q := range ans.Transcript.Queries {
		assert.Contains(t, q.SPARQL, "SELECT")
	}
}

// eval --trace-prompts keeps the transcript in every row's trace; the size
// it adds per question is logged (README: "Every call on record").
func TestEvalTracePromptsSize(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	dir := t.TempDir()
	sizes := map[bool]int{}
	for _, traced := range []bool{false, true} {
		out := filepath.Join(dir, map[bool]string{false: "plain.jsonl", true: "traced.jsonl"}[traced])
		args := []string{"eval", "--config", demoConfig, "--dataset", "demo", "--out", out, "--no-progress"}
		if traced {
			args = append(args, "--trace-prompts")
		}
		code, _, stderr := runParog(t, evalEnv(srv.URL()), args...)
		require.Equal(t, 0, code, stderr)
		rf, err := eval.ReadResults(out)
		require.NoError(t, err)
		rows := rf.Latest()
		require.Len(t, rows, 22)
		for _, r := range rows {
			var tr struct {
				Transcript *kgqa.Transcript `json:"transcript"`
				Prompts    string           `json:"prompts"`
			}
			require.NoError(t, json.Unmarshal(r.Trace, &tr))
			assert.Equal(t, traced, tr.Transcript != nil, r.ID)
			assert.Equal(t, "builtin", tr.Prompts)
			if traced {
				assert.Len(t, tr.Transcript.Calls, r.CallNum, r.ID)
			}
		}
		st, err := os.Stat(out)
		require.NoError(t, err)
		sizes[traced] = int(st.Size())
	}
	assert.Greater(t, sizes[true], sizes[false])
	md := filepath.Join(dir, "r.md")
	code, _, stderr := runParog(t, nil, "eval", "report", filepath.Join(dir, "traced.jsonl"), "--md", md)
	require.Equal(t, 0, code, stderr)
	text, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(text), "Prompt templates: builtin.")
	t.Logf("results file for 22 demo questions: %d bytes plain, %d bytes traced: %.1f KB more per question (x%.1f)",
		sizes[false], sizes[true], float64(sizes[true]-sizes[false])/22/1024, float64(sizes[true])/float64(sizes[false]))
}

// llm-cache dump lists every recorded call as one JSON line: the key the
// replay looks up, the request with its messages, and the reply text.
func TestLLMCacheDump(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	code, _, stderr := runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig, "--dataset", "demo",
		"--out", filepath.Join(dir, "r.jsonl"), "--limit", "3", "--llm-cache", cache, "--no-progress")
	require.Equal(t, 0, code, stderr)

	code, stdout, stderr := runParog(t, nil, "llm-cache", "dump", cache)
	require.Equal(t, 0, code, stderr)
	replies := map[string]bool{}
	for _, r := range srv.Requests() {
		replies[r.Chat.Messages[len(r.Chat.Messages)-1].Content] = true
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Key     string `json:"key"`
			Request struct {
				Messages []kgqa.Message `json:"messages"`
			} `json:"request"`
			Reply  string `json:"reply"`
			Status int    `json:"status"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		assert.Regexp(t, `^[0-9a-f]{64}$`, line.Key)
		require.NotEmpty(t, line.Request.Messages)
		assert.True(t, replies[line.Request.Messages[len(line.Request.Messages)-1].Content], "a request the model received")
		assert.NotEmpty(t, line.Reply)
		assert.Equal(t, 200, line.Status)
		n++
	}
	assert.Positive(t, n)
	assert.LessOrEqual(t, n, srv.Count(), "identical requests share one entry")

	code, _, stderr = runParog(t, nil, "llm-cache", "dump", filepath.Join(dir, "none"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no such file")
}

// prompts dump writes a set that --prompts-dir loads: an edit reaches the
// model and the trace names the set by digest; a broken set is refused at
// start-up with the first fault.
func TestPromptsDir(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel(kgqatest.Believe("mascot", "Lou Seal"))))
	dir := filepath.Join(t.TempDir(), "prompts")
	code, stdout, stderr := runParog(t, nil, "prompts", "dump", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "--prompts-dir "+dir)
	path := filepath.Join(dir, "tentative.tmpl")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, bytes.Replace(b, []byte("Be brief."), []byte("Be brief, and name your source."), 1), 0o644))

	before := srv.Count()
	ans, _ := askJSON(t, evalEnv(srv.URL()), "--prompts-dir", dir, "--topic", "m.0713r", giantsQuestion)
	assert.Regexp(t, `^dir:[0-9a-f]{12}$`, ans.Prompts)
	var edited int
	for _, r := range srv.Requests()[before:] {
		if strings.Contains(r.Chat.Messages[0].Content, "name your source") {
			edited++
		}
	}
	assert.Equal(t, 1, edited, "the tentative call used the edited template")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "prune.tmpl"), []byte(`{{define "prune.system"}}{{.Kept}}{{end}}{{define "prune.user"}}x{{end}}`), 0o644))
	code, _, stderr = runParog(t, evalEnv(srv.URL()), "ask", "--config", demoConfig, "--prompts-dir", dir, giantsQuestion)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "prompts.dir")
	assert.Contains(t, stderr, "prune.tmpl")
	assert.Contains(t, stderr, "can't evaluate field Kept")
}

// serve --trace-prompts answers /v1/ask with the transcript in the trace.
func TestServeTracePrompts(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel(kgqatest.Believe("mascot", "Lou Seal"))))
	logs := &syncBuffer{}
	envVars := evalEnv(srv.URL())
	env := &Env{Stdout: io.Discard, Stderr: logs, Getenv: func(k string) (string, bool) { v, ok := envVars[k]; return v, ok }}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--config", demoConfig, "--addr", "127.0.0.1:0", "--trace-prompts"}, env)
	}()
	base := "http://" + waitListening(t, logs)
	resp, err := http.Post(base+"/v1/ask", "application/json", strings.NewReader(`{"question":"`+giantsQuestion+`","topic_entities":["m.0713r"]}`))
	require.NoError(t, err)
	var ans api.AskResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ans))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotNil(t, ans.Trace.Transcript)
	assert.Len(t, ans.Trace.Transcript.Calls, ans.Usage.LLM.Calls)
	assert.Equal(t, "builtin", ans.Trace.Prompts)
	stop()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, "logs: %s", logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}
