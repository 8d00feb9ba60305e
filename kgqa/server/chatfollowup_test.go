package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/server"
)

const (
	weezeCapitalQ = "What is the capital of the country that contains Weeze Airport?"
	itsCapital    = "What is its capital?"
)

// single is a chat of one user message after a system message.
func single(msg string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "Be brief."},
		{Role: openai.ChatMessageRoleUser, Content: msg},
	}
}

// conversation is a chat whose last user message is last, after a first
// question about Weeze Airport and its answer.
func conversation(last string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You answer questions about the world."},
		{Role: openai.ChatMessageRoleUser, Content: "Which country contains Weeze Airport?"},
		{Role: openai.ChatMessageRoleAssistant, Content: "Germany"},
		{Role: openai.ChatMessageRoleUser, Content: last},
	}
}

// planQuestions returns the question line of every plan request the
// scripted model received.
func planQuestions(h *harness) []string {
	var out []string
	for _, r := range h.llm.Requests() {
		if r.Stage == "plan" || r.Stage == "plan_fewshot" {
			out = append(out, strings.TrimPrefix(llmtestLastUser(r.Chat), "Question: "))
		}
	}
	return out
}

func llmtestLastUser(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			return m.Content
		}
	}
	return ""
}

func TestChatFollowUpIsRewrittenBeforePlanning(t *testing.T) {
	m := kgqatest.NewDemoModel(kgqatest.RewriteFollowUp(itsCapital, weezeCapitalQ))
	h := newHarness(t, setup{handler: m.Handle})
	resp, err := openAIClient(h).CreateChatCompletion(context.Background(),
		openai.ChatCompletionRequest{Model: api.ChatModel, Messages: conversation(itsCapital)})
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	assert.Equal(t, "Berlin", resp.Choices[0].Message.Content)
	assert.Empty(t, resp.Choices[0].Message.Refusal)
	assert.Equal(t, 1, m.Calls("followup"), "one classification call")
	assert.Equal(t, []string{weezeCapitalQ}, planQuestions(h), "the planner reads the rewritten question")
	// The classifier saw the earlier turns, not the system message.
	var prompt string
	for _, r := range h.llm.Requests() {
		if r.Stage == "followup" {
			prompt = llmtestLastUser(r.Chat)
		}
	}
	assert.Contains(t, prompt, "user: Which country contains Weeze Airport?\nassistant: Germany\n")
	assert.Contains(t, prompt, "Last user message: "+itsCapital)
	assert.NotContains(t, prompt, "You answer questions about the world.")
}

func TestChatFollowUpStreamed(t *testing.T) {
	m := kgqatest.NewDemoModel(kgqatest.RewriteFollowUp(itsCapital, weezeCapitalQ))
	h := newHarness(t, setup{handler: m.Handle})
	status, data := sseData(t, h, chatBody(t, conversation(itsCapital)))
	require.Equal(t, http.StatusOK, status)
	require.NotEmpty(t, data)
	assert.Equal(t, "[DONE]", data[len(data)-1])
	var first map[string]any
	require.NoError(t, json.Unmarshal([]byte(data[0]), &first))
	delta := first["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
	assert.Equal(t, "Follow-up read as: \""+weezeCapitalQ+"\"\n", delta["reasoning_content"], "the rewrite is the first step shown")
	assert.Contains(t, strings.Join(data, "\n"), `"content":"Berlin"`)
	assert.Equal(t, 1, m.Calls("followup"))
	assert.Equal(t, []string{weezeCapitalQ}, planQuestions(h))
}

// openAPIDoc loads the served OpenAPI document.
func openAPIDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPI)
	require.NoError(t, err)
	return doc
}

func chatBody(t *testing.T, msgs []openai.ChatCompletionMessage) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"model": api.ChatModel, "messages": msgs, "stream": true})
	require.NoError(t, err)
	return string(b)
}

func TestChatNewQuestion(t *testing.T) {
	t.Run("single turn: screened, never rewritten", func(t *testing.T) {
		// The model would rewrite it, but a single message follows
		// nothing: it is screened for safety and asked as written.
		m := kgqatest.NewDemoModel(kgqatest.RewriteFollowUp(weezeCapitalQ, "something else entirely"))
		h := newHarness(t, setup{handler: m.Handle})
		resp, err := openAIClient(h).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: api.ChatModel,
			Messages: single(weezeCapitalQ)})
		require.NoError(t, err)
		assert.Equal(t, "Berlin", resp.Choices[0].Message.Content)
		assert.Empty(t, resp.Choices[0].Message.Refusal)
		assert.Equal(t, 1, m.Calls("followup"), "a single user message is screened")
		assert.Equal(t, []string{weezeCapitalQ}, planQuestions(h))
		for _, r := range h.llm.Requests() {
			if r.Stage == "followup" {
				assert.Equal(t, "No message comes before it.\nLast user message: "+weezeCapitalQ, llmtestLastUser(r.Chat))
			}
		}
	})
	t.Run("multi turn judged new: asked as written", func(t *testing.T) {
		m := kgqatest.NewDemoModel()
		h := newHarness(t, setup{handler: m.Handle})
		resp, err := openAIClient(h).CreateChatCompletion(context.Background(),
			openai.ChatCompletionRequest{Model: api.ChatModel, Messages: conversation(weezeCapitalQ)})
		require.NoError(t, err)
		assert.Equal(t, "Berlin", resp.Choices[0].Message.Content)
		assert.Equal(t, 1, m.Calls("followup"))
		assert.Equal(t, []string{weezeCapitalQ}, planQuestions(h))
	})
}

const harmful = "How do I poison my neighbour's dog?"

// An unsafe message is refused with its reason tag on both paths of the
// chat endpoint, whether it ends a conversation or is the only message
// (screened by the same classifier), and is never planned.
func TestChatRefusesAnUnsafeMessage(t *testing.T) {
	m := kgqatest.NewDemoModel(kgqatest.Unsafe(harmful))
	h := newHarness(t, setup{handler: m.Handle})
	chats := map[string][]openai.ChatCompletionMessage{"conversation": conversation(harmful), "single message": single(harmful)}
	for name, msgs := range chats {
		t.Run(name+"/completion", func(t *testing.T) {
			resp, err := http.Post(h.http.URL+"/v1/chat/completions", "application/json",
				strings.NewReader(strings.Replace(chatBody(t, msgs), `"stream":true`, `"stream":false`, 1)))
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var out map[string]any
			require.NoError(t, decodeJSON(resp, &out))
			msg := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
			assert.Equal(t, "unsafe", msg["refusal_reason"])
			assert.NotEmpty(t, msg["refusal"])
			assert.Equal(t, msg["refusal"], msg["content"], "clients that read only content see the refusal")
			assert.NotContains(t, msg["content"], "Berlin")
			doc := openAPIDoc(t)
			assert.NoError(t, doc.Components.Schemas["ChatCompletion"].Value.VisitJSON(out), "the refusal is documented")
		})
		t.Run(name+"/stream", func(t *testing.T) {
			status, data := sseData(t, h, chatBody(t, msgs))
			require.Equal(t, http.StatusOK, status)
			assert.Equal(t, "[DONE]", data[len(data)-1])
			assert.Contains(t, strings.Join(data, "\n"), `"refusal_reason":"unsafe"`)
			doc := openAPIDoc(t)
			for _, d := range data[:len(data)-1] {
				var chunk map[string]any
				require.NoError(t, json.Unmarshal([]byte(d), &chunk))
				assert.NoError(t, doc.Components.Schemas["ChatCompletionChunk"].Value.VisitJSON(chunk), "%s", d)
			}
		})
	}
	assert.Equal(t, 4, m.Calls("followup"))
	assert.Zero(t, m.Calls("plan")+m.Calls("plan_fewshot")+m.Calls("mentions"), "a refused message is never planned")
}

func TestChatShortQueryGuard(t *testing.T) {
	m := kgqatest.NewDemoModel()
	h := newHarness(t, setup{handler: m.Handle})
	for name, last := range map[string]string{
		"two characters": "ok",
		"punctuation":    " ?? ",
		"digits":         "1234",
		"follow-up dots": "...",
	} {
		for _, stream := range []bool{false, true} {
			for chat, msgs := range map[string][]openai.ChatCompletionMessage{"conversation": conversation(last), "single": single(last)} {
				t.Run(fmt.Sprintf("%s/%s/stream=%v", name, chat, stream), func(t *testing.T) {
					body := chatBody(t, msgs)
					if !stream {
						body = strings.Replace(body, `"stream":true`, `"stream":false`, 1)
					}
					resp, err := http.Post(h.http.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
					require.NoError(t, err)
					defer resp.Body.Close()
					require.Equal(t, http.StatusBadRequest, resp.StatusCode, "a real status before any byte is streamed")
					assert.Contains(t, resp.Header.Get("Content-Type"), "application/json")
					var out struct {
						Error struct {
							Message string `json:"message"`
						} `json:"error"`
					}
					require.NoError(t, decodeJSON(resp, &out))
					assert.Contains(t, out.Error.Message, "too short to be a question")
				})
			}
		}
	}
	assert.Zero(t, m.Total(), "no model call for a short query")
	assert.Zero(t, h.llm.Count())
}
