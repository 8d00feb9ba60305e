package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/prompts"
)

const demoFile = "../../kgqa/kg/demokg/questions.json"

// lockedBuffer is a bytes.Buffer safe for the server's goroutine to write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start boots the real program on a free port and stops it at cleanup.
func start(t *testing.T, args ...string) (string, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var logs lockedBuffer
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, append([]string{"--format", "demo", "--input", demoFile, "--addr", "127.0.0.1:0"}, args...), &logs, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("oracle-llm stopped: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("oracle-llm did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("oracle-llm did not stop")
		}
	})
	return "http://" + addr + "/v1", &logs
}

func planRequest(t *testing.T, question string) openai.ChatCompletionRequest {
	t.Helper()
	req, err := prompts.Builtin.Request(kgqa.Planner, prompts.Plan, prompts.PlanData{Question: question, Ops: []string{"find"}})
	require.NoError(t, err)
	out := openai.ChatCompletionRequest{Model: "oracle", ResponseFormat: &openai.ChatCompletionResponseFormat{
		Type: openai.ChatCompletionResponseFormatTypeJSONSchema, JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: req.SchemaName, Schema: req.Schema}}}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	return out
}

func TestServesThePlanOfTheQuestionFile(t *testing.T) {
	url, logs := start(t)
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	c := openai.NewClientWithConfig(cfg)
	ctx := context.Background()

	models, err := c.ListModels(ctx)
	require.NoError(t, err)
	require.Len(t, models.Models, 1)
	assert.Equal(t, "oracle", models.Models[0].ID)

	q := "What is the capital of the country that contains Weeze Airport?"
	resp, err := c.CreateChatCompletion(ctx, planRequest(t, q))
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	assert.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
	var plan kgqa.Plan
	require.NoError(t, json.Unmarshal([]byte(resp.Choices[0].Message.Content), &plan))
	require.NoError(t, plan.Validate())
	assert.Len(t, plan.Subgoals, 2, "the gold query has two hops")
	assert.Positive(t, resp.Usage.PromptTokens)
	assert.Equal(t, resp.Usage.PromptTokens+resp.Usage.CompletionTokens, resp.Usage.TotalTokens)

	t.Run("streaming with usage", func(t *testing.T) {
		req := planRequest(t, q)
		req.Stream, req.StreamOptions = true, &openai.StreamOptions{IncludeUsage: true}
		s, err := c.CreateChatCompletionStream(ctx, req)
		require.NoError(t, err)
		defer s.Close()
		var text strings.Builder
		var usage *openai.Usage
		for {
			chunk, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			for _, ch := range chunk.Choices {
				text.WriteString(ch.Delta.Content)
			}
			if chunk.Usage != nil {
				usage = chunk.Usage
			}
		}
		assert.JSONEq(t, resp.Choices[0].Message.Content, text.String())
		require.NotNil(t, usage)
		assert.Equal(t, resp.Usage, *usage)
	})

	t.Run("a question not in the file is refused", func(t *testing.T) {
		_, err := c.CreateChatCompletion(ctx, planRequest(t, "Who wrote Hamlet?"))
		var apiErr *openai.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 400, apiErr.HTTPStatusCode)
		assert.Contains(t, apiErr.Message, "not in the question file")
	})
	assert.Contains(t, logs.String(), "22 questions, 0 without a gold plan")
}

// TestSemanticFamily: with --noise-kinds semantic every plan the oracle
// serves is a plan error: still a valid plan, not the gold one.
func TestSemanticFamily(t *testing.T) {
	url, logs := start(t, "--noise", "1", "--noise-kinds", "semantic", "--sufficiency", "never")
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	c := openai.NewClientWithConfig(cfg)
	resp, err := c.CreateChatCompletion(context.Background(), planRequest(t, "What is the capital of the country that contains Weeze Airport?"))
	require.NoError(t, err)
	var plan kgqa.Plan
	require.NoError(t, json.Unmarshal([]byte(resp.Choices[0].Message.Content), &plan))
	require.NoError(t, plan.Validate(), "a plan error is still a valid plan")
	gold := []string{"s1", "s2"}
	var got []string
	for _, s := range plan.Subgoals {
		got = append(got, s.ID+strings.Join(s.Needs, ","))
	}
	assert.NotEqual(t, []string{"s1", "s2s1"}, got, "not the gold plan %v", gold)
	assert.Contains(t, logs.String(), "kinds wrong_relation,wrong_entity,plan_dropped_constraint")
	assert.Contains(t, logs.String(), "sufficiency never")
}

// TestQuestionWording: with --wording question the plan's subgoals keep
// to the question's words: "directed by" and "place of birth" are the
// gold relations' words, not the question's.
func TestQuestionWording(t *testing.T) {
	for wording, want := range map[string]bool{"gold": true, "question": false} {
		url, logs := start(t, "--wording", wording)
		cfg := openai.DefaultConfig("")
		cfg.BaseURL = url
		resp, err := openai.NewClientWithConfig(cfg).CreateChatCompletion(context.Background(), planRequest(t, "Where was the director of Amélie born?"))
		require.NoError(t, err)
		var plan kgqa.Plan
		require.NoError(t, json.Unmarshal([]byte(resp.Choices[0].Message.Content), &plan))
		require.NoError(t, plan.Validate())
		text := ""
		for _, s := range plan.Subgoals {
			text += s.Text + " "
		}
		assert.Equal(t, want, strings.Contains(text, "directed by") || strings.Contains(text, "place of birth"), "--wording %s: %s", wording, text)
		assert.Contains(t, logs.String(), "wording "+wording)
	}
}

// TestLatencyPreset: --latency takes a preset by name and says which
// figures it serves with.
func TestLatencyPreset(t *testing.T) {
	_, logs := start(t, "--latency", "gpt-4o-mini")
	assert.Contains(t, logs.String(), "latency gpt-4o-mini (prefill=5000,decode=59,overhead=300)")
}

func TestBadCommandLines(t *testing.T) {
	for name, args := range map[string][]string{
		"no format":       {"--input", demoFile},
		"unknown format":  {"--format", "lcquad", "--input", demoFile},
		"no input":        {"--format", "webqsp"},
		"bad policy":      {"--format", "demo", "--input", demoFile, "--tentative", "mixed:2"},
		"bad noise":       {"--format", "demo", "--input", demoFile, "--noise", "1.5"},
		"bad kind":        {"--format", "demo", "--input", demoFile, "--noise-kinds", "fence,typo"},
		"bad family":      {"--format", "demo", "--input", demoFile, "--noise-kinds", "semantics"},
		"bad sufficiency": {"--format", "demo", "--input", demoFile, "--sufficiency", "lax"},
		"bad wording":     {"--format", "demo", "--input", demoFile, "--wording", "schema"},
		"unknown latency": {"--format", "demo", "--input", demoFile, "--latency", "gpt-5"},
		"bad latency":     {"--format", "demo", "--input", demoFile, "--latency", "prefill=1000,decode=0"},
		"unknown flag":    {"--colour"},
	} {
		t.Run(name, func(t *testing.T) {
			var logs lockedBuffer
			err := Run(context.Background(), args, &logs, nil)
			require.Error(t, err)
			assert.Equal(t, 2, exitCode(err), "a usage error exits 2: %v", err)
			assert.NotEmpty(t, logs.String(), "the error is printed")
		})
	}
}

// TestDemoNeedsNoInput runs the command docs/oracle.md gives as written:
// --format demo alone serves the demo graph's built-in questions.
func TestDemoNeedsNoInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var logs lockedBuffer
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"--format", "demo", "--addr", "127.0.0.1:0"}, &logs, func(a string) { addrc <- a })
	}()
	select {
	case <-addrc:
	case err := <-done:
		t.Fatalf("oracle-llm stopped: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("oracle-llm did not start")
	}
	cancel()
	require.NoError(t, <-done)
	assert.Contains(t, logs.String(), fmt.Sprintf("oracle-llm: %d questions, 0 without a gold plan", len(demokg.FreebaseQuestions())))
}
