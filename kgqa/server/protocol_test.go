package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
)

type sparqlJSON struct {
	Head struct {
		Vars []string `json:"vars"`
	} `json:"head"`
	Results struct {
		Bindings []map[string]map[string]string `json:"bindings"`
	} `json:"results"`
}

func TestSPARQLProtocol(t *testing.T) {
	h := newHarness(t, setup{edit: func(c *config.Config) { c.Server.SPARQLMaxRows = 3 }})
	const capital = `PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?c ?n WHERE { ns:m.0f8l9c ns:location.country.capital ?c . ?c ns:type.object.name ?n }`
	const many = `SELECT ?s WHERE { ?s ?p ?o } LIMIT 50`
	form := "application/x-www-form-urlencoded"
	tests := []struct {
		name, method, path, ct, body string
		status                       int
		want                         string
	}{
		{"GET", "GET", "/sparql?query=" + url.QueryEscape(capital), "", "", 200, ""},
		{"POST form", "POST", "/sparql", form, "query=" + url.QueryEscape(capital), 200, ""},
		{"POST direct", "POST", "/sparql", "application/sparql-query", capital, 200, ""},
		{"update by form", "POST", "/sparql", form, "update=" + url.QueryEscape("INSERT DATA { <a:b> <a:c> <a:d> }"), 403, "read-only"},
		{"update by body", "POST", "/sparql", "application/sparql-update", "CLEAR ALL", 403, "read-only"},
		{"update smuggled in a query", "GET", "/sparql?query=" + url.QueryEscape("SELECT * WHERE { ?s ?p ?o } ; DELETE WHERE { ?s ?p ?o }"), "", "", 400, "one query per request"},
		{"not a SELECT", "GET", "/sparql?query=" + url.QueryEscape("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"), "", "", 400, "only SELECT"},
		{"SERVICE refused", "GET", "/sparql?query=" + url.QueryEscape("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"), "", "", 400, "SERVICE"},
		{"no query", "GET", "/sparql", "", "", 400, "query parameter"},
		{"two queries", "GET", "/sparql?query=a&query=b", "", "", 400, "exactly one"},
		{"graph parameters", "GET", "/sparql?query=" + url.QueryEscape(capital) + "&default-graph-uri=x", "", "", 400, "not supported"},
		{"wrong content type", "POST", "/sparql", "text/plain", capital, 415, "application/sparql-query"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.ct == form {
				hdr = []string{"X-Requested-With", "parog-test"}
			}
			r := h.call(t, tc.method, tc.path, tc.ct, []byte(tc.body), hdr...)
			require.Equal(t, tc.status, r.status, "%s", r.body)
			if tc.status != 200 {
				assert.Contains(t, r.errorBody(t).Error, tc.want)
				return
			}
			assert.Equal(t, api.SPARQLResultsContentType, r.header.Get("Content-Type"))
			var res sparqlJSON
			r.json(t, &res)
			assert.Equal(t, []string{"c", "n"}, res.Head.Vars)
			require.Len(t, res.Results.Bindings, 1)
			b := res.Results.Bindings[0]
			assert.Equal(t, map[string]string{"type": "uri", "value": "http://rdf.freebase.com/ns/" + paris}, b["c"])
			assert.Equal(t, map[string]string{"type": "literal", "value": "Paris", "xml:lang": "en"}, b["n"])
		})
	}
	t.Run("row cap", func(t *testing.T) {
		r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(many), "", nil)
		require.Equal(t, 200, r.status)
		var res sparqlJSON
		r.json(t, &res)
		assert.Len(t, res.Results.Bindings, 3)
		assert.Equal(t, "true", r.header.Get("X-Parog-Truncated"))
	})
}

func openAIClient(h *harness) *openai.Client {
	cfg := openai.DefaultConfig("unused")
	cfg.BaseURL = h.http.URL + "/v1"
	return openai.NewClientWithConfig(cfg)
}

func TestChatCompletionsWithOpenAISDK(t *testing.T) {
	h := newHarness(t, setup{})
	c := openAIClient(h)
	req := openai.ChatCompletionRequest{
		Model: api.ChatModel,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You answer from the KG."},
			{Role: openai.ChatMessageRoleUser, Content: "What is the capital of Germany?"},
			{Role: openai.ChatMessageRoleAssistant, Content: "Berlin."},
			{Role: openai.ChatMessageRoleUser, Content: capitalQ},
		},
	}
	t.Run("non-streaming", func(t *testing.T) {
		resp, err := c.CreateChatCompletion(context.Background(), req)
		require.NoError(t, err)
		require.Len(t, resp.Choices, 1)
		assert.Equal(t, openai.ChatMessageRoleAssistant, resp.Choices[0].Message.Role)
		assert.Contains(t, resp.Choices[0].Message.Content, "Paris", "the last user message is the question")
		assert.NotContains(t, resp.Choices[0].Message.Content, "Berlin")
		assert.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
		assert.Equal(t, api.ChatModel, resp.Model)
		assert.Positive(t, resp.Usage.TotalTokens)
	})
	t.Run("streaming", func(t *testing.T) {
		sreq := req
		sreq.Stream = true
		st, err := c.CreateChatCompletionStream(context.Background(), sreq)
		require.NoError(t, err)
		defer st.Close()
		var text strings.Builder
		chunks := 0
		for {
			chunk, err := st.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			assert.Equal(t, "chat.completion.chunk", chunk.Object)
			chunks++
			for _, ch := range chunk.Choices {
				text.WriteString(ch.Delta.Content)
			}
		}
		assert.GreaterOrEqual(t, chunks, 2)
		assert.Contains(t, text.String(), "Paris")
	})
	t.Run("unknown model is an OpenAI error", func(t *testing.T) {
		bad := req
		bad.Model = "gpt-4o"
		_, err := c.CreateChatCompletion(context.Background(), bad)
		var ae *openai.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusNotFound, ae.HTTPStatusCode)
		assert.Contains(t, ae.Message, "parog")
	})
	t.Run("no user message", func(t *testing.T) {
		r := h.call(t, "POST", "/v1/chat/completions", "application/json",
			[]byte(`{"model":"parog","messages":[{"role":"system","content":"hi"}]}`))
		require.Equal(t, 400, r.status)
		var e struct {
			Error struct{ Message, Type string } `json:"error"`
		}
		require.NoError(t, json.Unmarshal(r.body, &e))
		assert.Equal(t, "invalid_request_error", e.Error.Type)
	})
	t.Run("content parts", func(t *testing.T) {
		r := h.call(t, "POST", "/v1/chat/completions", "application/json",
			[]byte(`{"model":"parog","messages":[{"role":"user","content":[{"type":"text","text":"`+capitalQ+`"}]}],"temperature":0.2}`))
		require.Equal(t, 200, r.status, "%s", r.body)
		assert.Contains(t, string(r.body), "Paris")
	})
}

func TestMetrics(t *testing.T) {
	h := newHarness(t, setup{})
	_, err := h.client.Ask(context.Background(), api.AskRequest{Question: capitalQ, TopicEntities: []string{france}})
	require.NoError(t, err)
	_, err = h.client.Entity(context.Background(), france)
	require.NoError(t, err)
	r := h.call(t, "GET", "/metrics", "", nil)
	require.Equal(t, 200, r.status)
	body := string(r.body)
	for _, want := range []string{
		`parog_http_requests_total{code="200",method="POST",route="/v1/ask"} 1`,
		`parog_http_request_duration_seconds_bucket{method="GET",route="/v1/entities/:id"`,
		`parog_llm_calls_total{outcome="ok",role="reasoner",stage="plan_fewshot"} 1`,
		`parog_llm_tokens_total{kind="prompt",role="reasoner",stage="refine"}`,
		`parog_questions_total{stop_reason=`,
		`parog_sparql_queries_total `,
		`parog_kg_cache_hits_total `,
		`parog_sparql_query_duration_seconds_count{kind="relations"} `,
		`parog_sparql_query_duration_seconds_count{kind="name"} `,
		`process_resident_memory_bytes`,
	} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, "parog_sparql_queries_total 0\n", "SPARQL queries were counted")
}
