package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/server"
)

func chatReq(stream bool) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model:    api.ChatModel,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: capitalQ}},
		Stream:   stream,
	}
}

// sseData posts a streamed chat request and returns the status and the
// data of every event, checking the framing: each event one "data: "
// line followed by a blank line.
func sseData(t *testing.T, h *harness, body string) (int, []string) {
	t.Helper()
	resp, err := http.Post(h.http.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var data []string
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadString('\n')
		if line == "" && errors.Is(err, io.EOF) {
			return resp.StatusCode, data
		}
		require.NoError(t, err, "event cut short: %q", line)
		require.True(t, strings.HasPrefix(line, "data: "), "not a data line: %q", line)
		blank, err := rd.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "\n", blank, "an event ends with a blank line")
		data = append(data, strings.TrimSuffix(strings.TrimPrefix(line, "data: "), "\n"))
	}
}

// markers are texts of the engine's own records, one per step, in the
// order the NDJSON stream of /v1/ask reports them; the reasoning lines of
// the chat stream must name them in that order.
func markers(t *testing.T, h *harness) (steps int, marks []string, answer string) {
	t.Helper()
	ans, err := h.client.AskStream(context.Background(), api.AskRequest{Question: capitalQ}, func(ev api.Event) error {
		if ev.Type == kgqa.EventFinal {
			return nil
		}
		steps++
		m := ""
		switch ev.Type {
		case kgqa.EventPlan:
			m = ev.Plan.Subgoals[0].Text
		case kgqa.EventSubgoalStarted:
			if len(ev.Anchors) > 0 {
				m = ev.Anchors[0].Name
			}
		case kgqa.EventTentative:
			m = ev.Tentative.Answer
		case kgqa.EventExploration:
			if len(ev.Round.Chosen) > 0 {
				m = ev.Round.Chosen[0].ID
			}
		case kgqa.EventRefinement:
			m = ev.Verdict.Answer
		case kgqa.EventSubgoalDone:
			if len(ev.Result.Entities) > 0 {
				m = ev.Result.Entities[0].Name
			}
		}
		if m != "" {
			marks = append(marks, m)
		}
		return nil
	})
	require.NoError(t, err)
	return steps, marks, ans.Answer
}

func TestChatStreamsReasoning(t *testing.T) {
	h := newHarness(t, setup{})
	c := openAIClient(h)
	steps, marks, answer := markers(t, h)
	require.GreaterOrEqual(t, len(marks), 5, "plan, anchor, tentative, relation, verdict, result: %q", marks)
	require.Contains(t, answer, "Paris")

	st, err := c.CreateChatCompletionStream(context.Background(), chatReq(true))
	require.NoError(t, err)
	defer st.Close()
	var chunks []openai.ChatCompletionStreamResponse
	for {
		chunk, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		chunks = append(chunks, chunk)
	}
	require.NotEmpty(t, chunks)
	var reasoning, content strings.Builder
	reasoningChunks, finishes := 0, 0
	for i, ch := range chunks {
		require.Len(t, ch.Choices, 1, "chunk %d", i)
		d := ch.Choices[0].Delta
		assert.Equal(t, "chat.completion.chunk", ch.Object)
		assert.Equal(t, chunks[0].ID, ch.ID, "one id for the completion")
		if i == 0 {
			assert.Equal(t, openai.ChatMessageRoleAssistant, d.Role, "the first chunk carries the role")
		} else {
			assert.Empty(t, d.Role, "chunk %d", i)
		}
		if d.ReasoningContent != "" {
			reasoningChunks++
			assert.Empty(t, content.String(), "reasoning chunk %d after the content", i)
			assert.True(t, strings.HasSuffix(d.ReasoningContent, "\n"), "a reasoning chunk is whole lines: %q", d.ReasoningContent)
		}
		reasoning.WriteString(d.ReasoningContent)
		content.WriteString(d.Content)
		if ch.Choices[0].FinishReason != "" {
			finishes++
			assert.Equal(t, openai.FinishReasonStop, ch.Choices[0].FinishReason)
			assert.Equal(t, len(chunks)-1, i, "the finish chunk is the last")
			require.NotNil(t, ch.Usage)
			assert.Positive(t, ch.Usage.TotalTokens)
		}
	}
	assert.Equal(t, 1, finishes, "exactly one finish chunk")
	assert.Equal(t, steps, reasoningChunks, "one reasoning chunk per engine step")
	assert.Equal(t, answer, content.String(), "the content is the answer")
	text := reasoning.String()
	at := 0
	for _, m := range marks {
		i := strings.Index(text[at:], m)
		require.NotEqual(t, -1, i, "%q not in the reasoning after offset %d:\n%s", m, at, text)
		at += i + len(m)
	}

	t.Run("framing ends in one [DONE]", func(t *testing.T) {
		status, data := sseData(t, h, `{"model":"parog","stream":true,"messages":[{"role":"user","content":"`+capitalQ+`"}]}`)
		require.Equal(t, http.StatusOK, status)
		require.GreaterOrEqual(t, len(data), 3)
		assert.Equal(t, "[DONE]", data[len(data)-1])
		doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPI)
		require.NoError(t, err)
		schema := doc.Components.Schemas["ChatCompletionChunk"]
		require.NotNil(t, schema, "the chunk is documented")
		for i, d := range data[:len(data)-1] {
			assert.NotEqual(t, "[DONE]", d, "event %d", i)
			var chunk map[string]any
			require.NoError(t, json.Unmarshal([]byte(d), &chunk), "event %d: %s", i, d)
			assert.NotContains(t, chunk, "error")
			assert.NoError(t, schema.Value.VisitJSON(chunk), "event %d: %s", i, d)
		}
	})
	t.Run("non-streaming carries the same reasoning", func(t *testing.T) {
		resp, err := c.CreateChatCompletion(context.Background(), chatReq(false))
		require.NoError(t, err)
		require.Len(t, resp.Choices, 1)
		assert.Equal(t, answer, resp.Choices[0].Message.Content)
		assert.Equal(t, text, resp.Choices[0].Message.ReasoningContent)
	})
}

func TestChatStreamFailures(t *testing.T) {
	t.Run("deadline after the first chunk: an error event, no [DONE]", func(t *testing.T) {
		h := newHarness(t, setup{delay: 150 * time.Millisecond, edit: func(c *config.Config) { c.Engine.Deadline = 400 * time.Millisecond }})
		st, err := openAIClient(h).CreateChatCompletionStream(context.Background(), chatReq(true))
		require.NoError(t, err)
		defer st.Close()
		reasoning := 0
		for {
			chunk, err := st.Recv()
			if err != nil {
				require.NotErrorIs(t, err, io.EOF, "the stream must not end as if complete")
				var ae *openai.APIError
				require.ErrorAs(t, err, &ae)
				assert.Contains(t, ae.Message, "deadline exceeded")
				assert.Equal(t, "server_error", ae.Type)
				break
			}
			require.Len(t, chunk.Choices, 1)
			assert.Empty(t, chunk.Choices[0].Delta.Content, "no answer before the deadline")
			assert.Empty(t, chunk.Choices[0].FinishReason)
			if chunk.Choices[0].Delta.ReasoningContent != "" {
				reasoning++
			}
		}
		assert.Positive(t, reasoning, "the plan was streamed before the deadline")

		status, data := sseData(t, h, `{"model":"parog","stream":true,"messages":[{"role":"user","content":"`+capitalQ+`"}]}`)
		require.Equal(t, http.StatusOK, status)
		require.NotEmpty(t, data)
		assert.NotContains(t, data, "[DONE]")
		var last struct {
			Error struct{ Message, Type, Code string } `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(data[len(data)-1]), &last))
		assert.Equal(t, http.StatusText(http.StatusGatewayTimeout), last.Error.Code)
	})
	t.Run("model down before the first byte: the real status", func(t *testing.T) {
		h := newHarness(t, setup{handler: func(openaiRequest) llmtest.Reply { return llmtest.ServerError() }})
		_, err := openAIClient(h).CreateChatCompletionStream(context.Background(), chatReq(true))
		var ae *openai.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusServiceUnavailable, ae.HTTPStatusCode)
		assert.Contains(t, ae.Message, "language model unavailable")
	})
	// A question naming no entity of the KG is answered from the model's
	// own knowledge, as PoG does, not refused.
	t.Run("nothing linked: answered from the model's knowledge", func(t *testing.T) {
		h := newHarness(t, setup{})
		req := chatReq(true)
		req.Messages[0].Content = "Why?"
		st, err := openAIClient(h).CreateChatCompletionStream(context.Background(), req)
		require.NoError(t, err)
		defer st.Close()
		var content strings.Builder
		for {
			chunk, err := st.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			if len(chunk.Choices) > 0 {
				content.WriteString(chunk.Choices[0].Delta.Content)
			}
		}
		assert.NotEmpty(t, content.String())
	})
}

// A chat client that disconnects mid-stream cancels the engine: the model
// stops being called and no goroutine is left behind.
func TestChatStreamCanceledClientLeavesNoGoroutine(t *testing.T) {
	h := newHarness(t, setup{handler: holdAfterPlan()})
	tr := &http.Transport{}
	cfg := openai.DefaultConfig("unused")
	cfg.BaseURL = h.http.URL + "/v1"
	cfg.HTTPClient = &http.Client{Transport: tr}
	c := openai.NewClientWithConfig(cfg)
	opts := []goleak.Option{goleak.IgnoreCurrent()}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.CreateChatCompletionStream(ctx, chatReq(true))
	require.NoError(t, err)
	chunk, err := st.Recv()
	require.NoError(t, err)
	require.Len(t, chunk.Choices, 1)
	assert.True(t, strings.HasPrefix(chunk.Choices[0].Delta.ReasoningContent, "Plan"), "%q", chunk.Choices[0].Delta.ReasoningContent)
	cancel()
	_ = st.Close()
	tr.CloseIdleConnections()

	assertEngineStopped(t, h, opts)
}
