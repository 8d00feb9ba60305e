package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/parog/parog-go/kgqa/llm/llmtest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	askOffered = regexp.MustCompile(`(?m)^- (\S+) \((out|in)\): [^\n]*team mascot`)
	askFact    = regexp.MustCompile(`(?m)^F(\d+)\. .*team mascot\]-> .*\[(m\.[^\]]+)\]$`)
)

// askModel reads each prompt: it plans one step, keeps the offered mascot
// relation and answers from the fact that names the mascot.
func askModel(req openai.ChatCompletionRequest) llmtest.Reply {
	user := req.Messages[1].Content
	switch llmtest.StageOf(req) {
	case "plan":
		return llmtest.Text(`{"version":1,"subgoals":[{"id":"s1","text":"Find the mascot of the San Francisco Giants.","op":"find"}]}`)
	case "tentative":
		return llmtest.JSON(map[string]any{"answer": "Lou Seal", "entities": []string{"Lou Seal"}})
	case "relations":
		m := askOffered.FindStringSubmatch(user)
		if m == nil {
			return llmtest.JSON(map[string]any{"relations": []any{}})
		}
		return llmtest.JSON(map[string]any{"relations": []map[string]string{{"id": m[1], "dir": m[2]}}})
	case "refine":
		m := askFact.FindStringSubmatch(user)
		if m == nil {
			return llmtest.JSON(map[string]any{"aligned": false, "answer": "", "entities": []string{}, "used_facts": []int{}})
		}
		return llmtest.Text(`{"aligned":true,"answer":"Lou Seal","entities":["` + m[2] + `"],"used_facts":[` + m[1] + `]}`)
	}
	return llmtest.Error(500, "unexpected stage")
}

func writeAskConfig(t *testing.T, url string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ask.yaml")
	cfg := "kg:\n  backend: embedded\n  dialect: freebase\n  files: [builtin:demo-freebase]\nllm:\n  reasoner:\n    base_url: " + url + "\n    model: scripted\n  planner:\n    base_url: " + url + "\n    model: scripted\n"
	require.NoError(t, os.WriteFile(p, []byte(cfg), 0o600))
	return p
}

func TestAsk(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(askModel))
	cfgPath := writeAskConfig(t, srv.URL())
	env := func() (*Env, *bytes.Buffer, *bytes.Buffer) {
		var out, errb bytes.Buffer
		return &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) (string, bool) { return "", false }}, &out, &errb
	}
	t.Run("readable trace", func(t *testing.T) {
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--topic", "m.0713r", "Who is the mascot of the San Francisco Giants?"}, e)
		require.Equal(t, 0, code, errb.String())
		assert.Contains(t, out.String(), "Answer: Lou Seal")
		assert.Contains(t, out.String(), "refinement: aligned=true")
		assert.Contains(t, out.String(), "Stopped: plan_complete")
	})
	t.Run("json", func(t *testing.T) {
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--json", "--topic", "m.0713r", "Who is the mascot of the San Francisco Giants?"}, e)
		require.Equal(t, 0, code, errb.String())
		var ans struct {
			Answer   string `json:"answer"`
			Entities []struct {
				ID string `json:"id"`
			} `json:"entities"`
			StopReason string `json:"stop_reason"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &ans))
		assert.Equal(t, "Lou Seal", ans.Answer)
		require.Len(t, ans.Entities, 1)
		assert.Equal(t, "m.03_dwn", ans.Entities[0].ID)
	})
	t.Run("bad topic id", func(t *testing.T) {
		e, _, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--topic", "m.0713r> ; DROP", "Who?"}, e)
		assert.Equal(t, 1, code)
		assert.Contains(t, errb.String(), "malformed topic entity id")
	})
	t.Run("no question", func(t *testing.T) {
		e, _, _ := env()
		assert.Equal(t, 2, Main(context.Background(), []string{"ask", "--config", cfgPath}, e))
	})
}
