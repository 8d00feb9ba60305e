package server_test

import (
	"net/http"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// OpenAI's answer to json_schema from gpt-3.5-turbo.
const jsonSchemaRefused = `{"error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model. Learn more about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs", "type": "invalid_request_error", "param": null, "code": null}}`

func TestAskOnAModelWithoutStructuredOutputs(t *testing.T) {
	demo := kgqatest.DemoModel()
	h := newHarness(t, setup{handler: func(req openaiRequest) llmtest.Reply {
		if req.ResponseFormat != nil && req.ResponseFormat.Type == openai.ChatCompletionResponseFormatTypeJSONSchema {
			return llmtest.Reply{Status: http.StatusBadRequest, Body: jsonSchemaRefused}
		}
		return demo(req)
	}, edit: func(c *config.Config) { c.Server.APIKeys = []string{"k"} }})
	r := h.call(t, "POST", "/v1/ask", "application/json", mustJSON(t, api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}), "Authorization", "Bearer k")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var a api.AskResponse
	r.json(t, &a)
	require.NotEmpty(t, a.Entities)
	assert.Equal(t, paris, a.Entities[0].ID)
	withSchema := 0
	for _, req := range h.llm.Requests() {
		if req.Chat.ResponseFormat != nil && req.Chat.ResponseFormat.Type == openai.ChatCompletionResponseFormatTypeJSONSchema {
			withSchema++
		}
	}
	assert.Equal(t, 1, withSchema, "only the first request to the endpoint carries json_schema")

	rr := h.call(t, "GET", "/readyz", "", nil, "Authorization", "Bearer k")
	require.Equal(t, http.StatusOK, rr.status, "%s", rr.body)
	var hr api.HealthResponse
	rr.json(t, &hr)
	assert.Contains(t, hr.Checks[2].Capabilities, "response_format json_object")
}
