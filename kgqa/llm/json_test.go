package llm

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

type answer struct {
	Answer string `json:"answer"`
}

var answerSchema = json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`)

func jsonReq(stage kgqa.Stage) kgqa.ChatRequest {
	r := ask(stage, "Which country?")
	r.Schema, r.SchemaName = answerSchema, "final answer"
	return r
}

func nonEmpty(a *answer) func() error {
	return func() error {
		if a.Answer == "" {
			return errors.New("answer is empty")
		}
		return nil
	}
}

func TestJSONFirstReplyFits(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text("Here you go:\n```json\n{\"answer\": \"Germany\"}\n```\nAnything else?")))
	c := newClient(t, srv, nil)
	var out answer
	resp, err := c.JSON(context.Background(), jsonReq("final"), &out, nonEmpty(&out))
	require.NoError(t, err)
	assert.Equal(t, "Germany", out.Answer)
	assert.Equal(t, 1, srv.Count())
	assert.Zero(t, resp.Usage.Retries)
}

func TestJSONRepairedOnce(t *testing.T) {
	first := `Sure! {"answr": "Germany"}`
	srv := llmtest.New(t, llmtest.WithReplies(
		llmtest.Reply{Content: first, Usage: &openai.Usage{PromptTokens: 10, CompletionTokens: 4}},
		llmtest.Reply{Content: `{"answer": "Germany"}`, Usage: &openai.Usage{PromptTokens: 30, CompletionTokens: 3}},
	))
	c := newClient(t, srv, nil)
	ledger := kgqa.NewLedger()
	var out answer
	resp, err := c.JSON(kgqa.WithLedger(context.Background(), ledger), jsonReq("final"), &out, nonEmpty(&out))
	require.NoError(t, err)
	assert.Equal(t, "Germany", out.Answer)
	assert.Equal(t, 40, resp.Usage.PromptTokens)
	assert.Equal(t, 7, resp.Usage.CompletionTokens)

	sum := ledger.Summary()
	assert.Equal(t, 2, sum.Calls)
	assert.Equal(t, 40, sum.PromptTokens)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	msgs := reqs[1].Chat.Messages
	require.Len(t, msgs, 3)
	assert.Equal(t, "Which country?", msgs[0].Content)
	assert.Equal(t, openai.ChatMessageRoleAssistant, msgs[1].Role)
	assert.Equal(t, first, msgs[1].Content)
	assert.Equal(t, openai.ChatMessageRoleUser, msgs[2].Role)
	assert.Contains(t, msgs[2].Content, `unknown field "answr"`)
	assert.Contains(t, msgs[2].Content, string(answerSchema))
}

func TestJSONBrokenTwiceIsSchemaError(t *testing.T) {
	tests := []struct {
		name   string
		second string
		reason string
	}{
		{"check fails", `{"answer": ""}`, "answer is empty"},
		{"no json", `I cannot answer that.`, "no JSON"},
		{"wrong type", `{"answer": 3}`, `field "answer" must be a string, not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text(`{"answer": ""}`), llmtest.Text(tt.second)))
			c := newClient(t, srv, nil)
			ledger := kgqa.NewLedger()
			var out answer
			_, err := c.JSON(kgqa.WithLedger(context.Background(), ledger), jsonReq("final"), &out, nonEmpty(&out))
			require.ErrorIs(t, err, kgqa.ErrSchema)
			var se *kgqa.SchemaError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, kgqa.Stage("final"), se.Stage)
			assert.Contains(t, se.Reason, tt.reason)
			assert.Equal(t, tt.second, se.Reply)
			assert.Equal(t, 2, srv.Count())
			assert.Len(t, ledger.Calls(), 2)
		})
	}
}

func TestJSONResetsOutBetweenTurns(t *testing.T) {
	type pair struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text(`{"a": 1, "b": "stale"}`), llmtest.Text(`{"a": 2}`)))
	c := newClient(t, srv, nil)
	var out pair
	_, err := c.JSON(context.Background(), ask("x", "q"), &out, func() error {
		if out.A != 2 {
			return errors.New("a must be 2")
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, pair{A: 2}, out)
}

func TestJSONRejectsNonPointer(t *testing.T) {
	srv := llmtest.New(t)
	c := newClient(t, srv, nil)
	_, err := c.JSON(context.Background(), ask("x", "q"), answer{}, nil)
	require.Error(t, err)
	assert.Zero(t, srv.Count())
}

func TestResponseFormat(t *testing.T) {
	tests := []struct {
		name    string
		enabled bool
		schema  json.RawMessage
		want    bool
	}{
		{"enabled with schema", true, answerSchema, true},
		{"disabled", false, answerSchema, false},
		{"enabled without schema", true, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text(`{"answer":"x"}`)))
			c := newClient(t, srv, func(e *config.Endpoint) { e.JSONSchema = tt.enabled })
			req := jsonReq("final")
			req.Schema = tt.schema
			var out answer
			_, err := c.JSON(context.Background(), req, &out, nil)
			require.NoError(t, err)
			got := srv.Requests()[0]
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(got.Body, &raw))
			_, present := raw["response_format"]
			require.Equal(t, tt.want, present)
			if !tt.want {
				return
			}
			rf := got.Chat.ResponseFormat
			assert.Equal(t, openai.ChatCompletionResponseFormatTypeJSONSchema, rf.Type)
			assert.Equal(t, "final_answer", rf.JSONSchema.Name)
			assert.True(t, rf.JSONSchema.Strict)
			assert.JSONEq(t, string(answerSchema), string(rf.JSONSchema.Schema.(json.RawMessage)))
		})
	}
}

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bare object", `{"a":1}`, `{"a":1}`},
		{"bare array", ` [1, 2] `, `[1, 2]`},
		{"leading prose", "The plan is: {\"a\": [1, {\"b\": 2}]} as asked.", `{"a": [1, {"b": 2}]}`},
		{"code fence with tag", "Sure.\n```json\n{\"a\": 1}\n```", `{"a": 1}`},
		{"fence without tag", "```\n[\"x\"]\n```", `["x"]`},
		{"unclosed fence", "```json\n{\"a\": 1}", `{"a": 1}`},
		{"braces inside strings", `{"s": "a } and { and \" ]"}`, `{"s": "a } and { and \" ]"}`},
		{"bracketed prose first", `[note] the answer: {"a": 1}`, `{"a": 1}`},
		{"think block dropped", `<think>maybe {"a": 0}</think>{"a": 1}`, `{"a": 1}`},
		{"first of two values", `{"a": 1} or {"a": 2}`, `{"a": 1}`},
		{"a bare value whose strings hold tags and fences", "{\"a\": \"<think> and ``` x\"}", "{\"a\": \"<think> and ``` x\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractJSON(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	for _, bad := range []string{"", "no json here", `{"a": 1`, `{"a": tru}`, "<think>{\"a\":1}"} {
		_, err := ExtractJSON(bad)
		assert.Error(t, err, "input %q", bad)
	}
}
