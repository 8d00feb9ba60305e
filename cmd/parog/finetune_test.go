package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

const sftFixture = "../../finetune/testdata/sft_small.jsonl"

func runParog(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code = Main(context.Background(), args, e)
	return code, out.String(), errb.String()
}

func TestFinetuneExportCLI(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runParog(t, nil, "finetune", "export", "--in", sftFixture, "--format", "llamafactory", "--out", dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "llamafactory: 4 train, 3 validation records (0 skipped)")
	for _, f := range []string{"parog_planner_train.json", "parog_planner_validation.json", "dataset_info.json", "manifest.json"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}

	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing flags", []string{"finetune", "export", "--in", sftFixture}, 2, "--in, --format and --out are required"},
		{"bad format", []string{"finetune", "export", "--in", sftFixture, "--format", "alpaca", "--out", dir}, 2, `unknown format "alpaca"`},
		{"missing input", []string{"finetune", "export", "--in", "nope.jsonl", "--format", "hf", "--out", dir}, 1, "no such file"},
		{"unknown subcommand", []string{"finetune", "train"}, 2, `unknown command "train"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runParog(t, nil, tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, errOut, tc.msg)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			assert.Contains(t, lines[len(lines)-1], tc.msg, "the error is the last line")
		})
	}
}

func TestEvalPlannerCLI(t *testing.T) {
	// A planner that answers every question with a one-subgoal plan, except
	// one reply that is not JSON at all (twice, so the repair fails too).
	srv := llmtest.New(t, llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if strings.HasPrefix(req.Messages[1].Content, "What is the capital") {
			return llmtest.Text("Paris.")
		}
		return llmtest.Text(`{"subgoals":[{"id":"s1","text":"x","op":"find"},{"id":"s2","text":"y","needs":["s1"],"op":"find"}]}`)
	}))
	dir := t.TempDir()
	prefix := filepath.Join(dir, "base")
	code, out, errOut := runParog(t, nil, "finetune", "eval-planner", "--planner-url", srv.URL(), "--model", "scripted",
		"--data", sftFixture, "--out", prefix)
	require.Equal(t, 0, code, errOut)
	// Validation split: cwq-0005 (2 subgoals, compare), cwq-0006 (the
	// capital: no plan), cwq-0007 (3 subgoals). Valid 2/3; exact count only
	// cwq-0005; graph match none (cwq-0005 ends in compare, not find).
	assert.Contains(t, out, "scripted on 3 questions: valid 66.7% (first reply 66.7%), exact subgoal count 33.3%")
	assert.Contains(t, out, "graph match 0.0%")
	assert.Contains(t, errOut, "3/3", "progress bar")
	md, err := os.ReadFile(prefix + ".md")
	require.NoError(t, err)
	assert.Contains(t, string(md), "| cwq-0006 | invalid |")

	// Compare the report with itself through both entry points.
	code, out, errOut = runParog(t, nil, "finetune", "eval-planner", "--planner-url", srv.URL(), "--model", "scripted",
		"--data", sftFixture, "--out", filepath.Join(dir, "again"), "--compare", prefix+".json", "--quiet")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "| valid plan | 66.7% | 66.7% | +0.0 pt |")
	assert.FileExists(t, filepath.Join(dir, "again.compare.md"))
	assert.Empty(t, errOut)

	code, out, errOut = runParog(t, nil, "finetune", "compare", prefix+".json", filepath.Join(dir, "again.json"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "# Planner comparison: scripted vs scripted")

	code, _, errOut = runParog(t, nil, "finetune", "eval-planner", "--data", sftFixture)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--planner-url and --model are required")

	code, _, errOut = runParog(t, nil, "finetune", "eval-planner", "--planner-url", srv.URL(), "--model", "m", "--data", sftFixture, "--split", "test")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--split "test"`)
}

// An eval-planner run against an endpoint that is not there fails at once
// with the connection error instead of scoring every plan invalid.
func TestEvalPlannerEndpointDown(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "down")
	code, out, errOut := runParog(t, nil, "finetune", "eval-planner", "--planner-url", refusedURL(t), "--model", "m",
		"--data", sftFixture, "--out", prefix, "--quiet")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, errOut, "did not answer GET /models")
	assert.Contains(t, errOut, "connection refused")
	assert.NoFileExists(t, prefix+".json")
}

// TestEvalPlannerFromConfig takes the planner endpoint from a PARoG config
// and the environment, as `parog serve` would.
func TestEvalPlannerFromConfig(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.Text(`{"subgoals":[{"id":"s1","text":"x","op":"find"}]}`)
	}))
	dir := t.TempDir()
	env := map[string]string{"PAROG_LLM_PLANNER_BASE_URL": srv.URL(), "VLLM_API_KEY": "k-123"}
	code, out, errOut := runParog(t, env, "finetune", "eval-planner", "--config", "../../configs/finetune/parog-planner-vllm.yaml",
		"--data", sftFixture, "--split", "all", "--out", filepath.Join(dir, "r"), "--quiet")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "parog-planner on 7 questions: valid 100.0%")
	reqs := srv.Requests()
	require.Len(t, reqs, 7)
	assert.Equal(t, "parog-planner", reqs[0].Chat.Model)
	assert.Equal(t, "Bearer k-123", reqs[0].Header.Get("Authorization"))
}
