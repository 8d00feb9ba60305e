package llm

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// The error bodies below are those the servers send for a response_format
// they cannot use, as their documentation and source give them:
//   - OpenAI, gpt-3.5-turbo and gpt-4-0613 (Structured Outputs guide);
//   - vLLM before json_schema support: FastAPI's RequestValidationError
//     rendered as vLLM's top-level ErrorResponse, status 400;
//   - Ollama's runner, whose grammar conversion fails (status 500, the
//     OpenAI layer's {"error":{...}} with type api_error);
//   - the llama.cpp server before json_schema (utils.hpp
//     oaicompat_completion_params_parse: a runtime_error, status 500).
const (
	openAISchemaBody = `{"error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model. Learn more about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs", "type": "invalid_request_error", "param": null, "code": null}}`
	openAIObjectBody = `{"error": {"message": "Invalid parameter: 'response_format' of type 'json_object' is not supported with this model.", "type": "invalid_request_error", "param": "response_format", "code": null}}`
	vllmSchemaBody   = `{"object":"error","message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]","type":"BadRequestError","param":null,"code":400}`
	ollamaSchemaBody = `{"error":{"message":"invalid JSON schema in format","type":"api_error","param":null,"code":null}}`
	llamaSchemaBody  = `{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}`
	openAIMaxTokens  = `{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}`
	openAISeedBody   = `{"error": {"message": "Unsupported parameter: 'seed' is not supported with this model.", "type": "invalid_request_error", "param": "seed", "code": "unsupported_parameter"}}`
)

// refusing answers like a server that refuses the response_format types
// in refused with body and status, and otherwise answers the JSON.
func refusing(status int, body string, refused ...openai.ChatCompletionResponseFormatType) llmtest.Handler {
	return func(req openai.ChatCompletionRequest) llmtest.Reply {
		if req.ResponseFormat != nil {
			for _, r := range refused {
				if req.ResponseFormat.Type == r {
					return llmtest.Reply{Status: status, Body: body}
				}
			}
		}
		return llmtest.Text(`{"answer": "Germany"}`)
	}
}

func formatOf(r llmtest.Request) string {
	if r.Chat.ResponseFormat == nil {
		return "none"
	}
	return string(r.Chat.ResponseFormat.Type)
}

func TestFallbackWhenResponseFormatIsRejected(t *testing.T) {
	schema, object := openai.ChatCompletionResponseFormatTypeJSONSchema, openai.ChatCompletionResponseFormatTypeJSONObject
	tests := []struct {
		name    string
		status  int
		body    string
		refused []openai.ChatCompletionResponseFormatType
		want    Format
		formats []string // response_format of each request of two asks
	}{
		{"openai gpt-3.5-turbo", 400, openAISchemaBody, []openai.ChatCompletionResponseFormatType{schema}, FormatJSONObject,
			[]string{"json_schema", "json_object", "json_object"}},
		{"openai gpt-4-0613", 400, openAIObjectBody, []openai.ChatCompletionResponseFormatType{schema, object}, FormatPrompt,
			[]string{"json_schema", "json_object", "none", "none"}},
		{"vllm before json_schema", 400, vllmSchemaBody, []openai.ChatCompletionResponseFormatType{schema}, FormatJSONObject,
			[]string{"json_schema", "json_object", "json_object"}},
		{"ollama runner", 500, ollamaSchemaBody, []openai.ChatCompletionResponseFormatType{schema}, FormatJSONObject,
			[]string{"json_schema", "json_object", "json_object"}},
		{"llama.cpp server", 500, llamaSchemaBody, []openai.ChatCompletionResponseFormatType{schema}, FormatJSONObject,
			[]string{"json_schema", "json_object", "json_object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithHandler(refusing(tt.status, tt.body, tt.refused...)))
			c := newClient(t, srv, nil)
			ledger := kgqa.NewLedger()
			ctx := kgqa.WithLedger(context.Background(), ledger)
			for i := 0; i < 2; i++ {
				var out answer
				_, err := c.JSON(ctx, jsonReq("final"), &out, nonEmpty(&out))
				require.NoError(t, err, "ask %d", i+1)
				assert.Equal(t, "Germany", out.Answer)
			}
			var got []string
			for _, r := range srv.Requests() {
				got = append(got, formatOf(r))
			}
			assert.Equal(t, tt.formats, got, "only the first request carries json_schema")
			last := srv.Requests()[len(got)-1]
			assert.Contains(t, llmtest.LastUser(last.Chat), string(answerSchema), "the schema moves into the prompt")
			assert.Contains(t, strings.ToLower(llmtest.LastUser(last.Chat)), "json")
			capa, ok := c.Capabilities(kgqa.Reasoner)
			require.True(t, ok)
			assert.Equal(t, tt.want, capa.Format)
			assert.NotEmpty(t, capa.Learned)
			u := ledger.Summary()
			assert.Equal(t, len(got)-2, u.Fallbacks)
			assert.Zero(t, u.Retries, "a rejected parameter is not retried as is")
			assert.Zero(t, u.Failed)
		})
	}
}

func TestFallbackForOtherParameters(t *testing.T) {
	seed := 7
	tests := []struct {
		name   string
		body   string
		reject func(r []byte) bool
		check  func(t *testing.T, c Capabilities, last llmtest.Request)
	}{
		{"max_tokens", openAIMaxTokens, func(b []byte) bool { return bytes.Contains(b, []byte(`"max_tokens"`)) },
			func(t *testing.T, c Capabilities, last llmtest.Request) {
				assert.True(t, c.CompletionTokens)
				assert.Equal(t, 1024, last.Chat.MaxCompletionTokens)
				assert.NotContains(t, string(last.Body), `"max_tokens"`)
			}},
		{"seed", openAISeedBody, func(b []byte) bool { return bytes.Contains(b, []byte(`"seed"`)) },
			func(t *testing.T, c Capabilities, last llmtest.Request) {
				assert.False(t, c.Seed)
				assert.NotContains(t, string(last.Body), `"seed"`)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *llmtest.Server
			srv = llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply {
				reqs := srv.Requests()
				if tt.reject(reqs[len(reqs)-1].Body) {
					return llmtest.Reply{Status: http.StatusBadRequest, Body: tt.body}
				}
				return llmtest.Text("Germany")
			}))
			c := newClient(t, srv, func(e *config.Endpoint) { e.Seed = &seed })
			for i := 0; i < 2; i++ {
				resp, err := c.Chat(context.Background(), ask("final", "Which country?"))
				require.NoError(t, err)
				assert.Equal(t, "Germany", resp.Content)
			}
			require.Len(t, srv.Requests(), 3, "one rejected request, then two that fit")
			capa, _ := c.Capabilities(kgqa.Reasoner)
			tt.check(t, capa, srv.Requests()[2])
		})
	}
}

func TestRejectionsThatAreNotAboutParameters(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"context length names max_tokens", `{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 2048 tokens and your request has 1500 input tokens","type":"BadRequestError","param":null,"code":400}`},
		{"bad schema is not a format refusal", `{"error":{"message":"Invalid schema for response_format 'x': In context=(), 'additionalProperties' is required to be supplied and to be false.","type":"invalid_request_error","param":"response_format","code":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Reply{Status: http.StatusBadRequest, Body: tt.body}))
			c := newClient(t, srv, nil)
			var out answer
			_, err := c.JSON(context.Background(), jsonReq("final"), &out, nil)
			require.ErrorIs(t, err, kgqa.ErrModelRejected)
			assert.Equal(t, 1, srv.Count())
			capa, _ := c.Capabilities(kgqa.Reasoner)
			assert.Equal(t, FormatJSONSchema, capa.Format)
			assert.Empty(t, capa.Learned)
		})
	}
}

func TestConfiguredPromptOnlyPutsTheSchemaInThePrompt(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text(`{"answer": "Germany"}`)))
	c := newClient(t, srv, func(e *config.Endpoint) { e.JSONSchema = false })
	var out answer
	_, err := c.JSON(context.Background(), jsonReq("final"), &out, nil)
	require.NoError(t, err)
	r := srv.Requests()[0]
	assert.Nil(t, r.Chat.ResponseFormat)
	assert.True(t, strings.HasPrefix(llmtest.LastUser(r.Chat), "Which country?"), "the prompt is kept, the schema appended")
	assert.Contains(t, llmtest.LastUser(r.Chat), string(answerSchema))
}

func TestRunSeedSamples(t *testing.T) {
	tests := []struct {
		name     string
		seedTemp float64
		runSeed  *int
		wantTemp float32
		wantSeed *int
	}{
		{"no run seed decodes greedily", 0.7, nil, 0, nil},
		{"run seed samples at seed_temperature", 0.7, ptr(2), 0.7, ptr(2)},
		{"run seed without seed_temperature stays greedy", 0, ptr(3), 0, ptr(3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text("Germany")))
			c := newClient(t, srv, func(e *config.Endpoint) { e.SeedTemperature = tt.seedTemp })
			ctx := context.Background()
			if tt.runSeed != nil {
				ctx = WithSeed(ctx, *tt.runSeed)
			}
			_, err := c.Chat(ctx, ask("final", "Which country?"))
			require.NoError(t, err)
			r := srv.Requests()[0].Chat
			assert.InDelta(t, tt.wantTemp, r.Temperature, 1e-6)
			assert.Equal(t, tt.wantSeed, r.Seed)
		})
	}
}

func ptr(n int) *int { return &n }
