package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/retrieval"
)

func TestEndpoints(t *testing.T) {
	h := newHarness(t, setup{})
	tests := []struct {
		name, method, path string
		status             int
		check              func(t *testing.T, r reply)
	}{
		{"healthz", "GET", "/healthz", 200, func(t *testing.T, r reply) {
			var b api.HealthResponse
			r.json(t, &b)
			assert.Equal(t, "ok", b.Status)
		}},
		{"readyz", "GET", "/readyz", 200, func(t *testing.T, r reply) {
			var b api.HealthResponse
			r.json(t, &b)
			require.Len(t, b.Checks, 4)
			assert.Equal(t, []string{"ok", "not_configured", "ok", "ok"}, []string{b.Checks[0].Status, b.Checks[1].Status, b.Checks[2].Status, b.Checks[3].Status})
		}},
		{"openapi", "GET", "/openapi.yaml", 200, func(t *testing.T, r reply) {
			assert.Contains(t, string(r.body), "openapi: 3.")
		}},
		{"entity", "GET", "/v1/entities/" + france, 200, func(t *testing.T, r reply) {
			var b api.EntityResponse
			r.json(t, &b)
			assert.Equal(t, "France", b.Name)
			assert.Contains(t, b.Relations, kgRel("location.country.capital", "out"))
		}},
		{"entity not in the KG", "GET", "/v1/entities/m.0zzzzzz", 404, func(t *testing.T, r reply) {
			assert.Equal(t, "entity m.0zzzzzz is not in the knowledge graph", r.errorBody(t).Error)
		}},
		{"mediator node: no name, but relations", "GET", "/v1/entities/m.0g8ct0", 200, func(t *testing.T, r reply) {
			var b api.EntityResponse
			r.json(t, &b)
			assert.Equal(t, "", b.Name)
			assert.Contains(t, b.Relations, kgRel("location.adjoining_relationship.adjoins", "out"))
		}},
		{"malformed entity id", "GET", "/v1/entities/" + url.PathEscape("m.0f8l9c> ?p ?o"), 400, func(t *testing.T, r reply) {
			assert.Contains(t, r.errorBody(t).Error, "not a freebase entity id")
		}},
		{"search", "GET", "/v1/entities?name=France", 200, func(t *testing.T, r reply) {
			var b api.SearchResponse
			r.json(t, &b)
			require.NotEmpty(t, b.Entities)
			assert.Equal(t, france, b.Entities[0].ID)
		}},
		{"search without name", "GET", "/v1/entities", 400, func(t *testing.T, r reply) {
			assert.Contains(t, r.errorBody(t).Error, "name is required")
		}},
		{"search with bad limit", "GET", "/v1/entities?name=France&limit=1000", 400, func(t *testing.T, r reply) {
			assert.Contains(t, r.errorBody(t).Error, "limit")
		}},
		{"models", "GET", "/v1/models", 200, func(t *testing.T, r reply) {
			assert.Contains(t, string(r.body), `"id":"parog"`)
		}},
		{"unknown route", "GET", "/v2/nothing", 404, func(t *testing.T, r reply) { r.errorBody(t) }},
		{"wrong method", "DELETE", "/v1/ask", 405, func(t *testing.T, r reply) { r.errorBody(t) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(t, tc.method, tc.path, "", nil)
			require.Equal(t, tc.status, r.status, "body: %s", r.body)
			assert.NotEmpty(t, r.header.Get(api.RequestIDHeader))
			tc.check(t, r)
		})
	}
}

func TestPlanEndpoint(t *testing.T) {
	h := newHarness(t, setup{})
	r := h.call(t, "POST", "/v1/plan", "application/json", mustJSON(t, api.PlanRequest{Question: capitalQ}))
	require.Equal(t, 200, r.status, "%s", r.body)
	var b api.PlanResponse
	r.json(t, &b)
	require.NotNil(t, b.Plan)
	assert.Len(t, b.Plan.Subgoals, 1)
	require.NotNil(t, b.Usage)
	assert.Equal(t, 1, b.Usage.LLM.Calls)
	require.NotNil(t, b.RetrievalPlan, "the retrieval plan is in the response")
	assert.Equal(t, retrieval.RouteKG, b.RetrievalPlan.Route)
	pack, ok := b.RetrievalPacks[b.Plan.Subgoals[0].ID]
	require.True(t, ok, "%s", r.body)
	assert.Equal(t, "engine_budget", pack.Reasons["width"])

	r = h.call(t, "POST", "/v1/plan", "application/json", mustJSON(t, api.PlanRequest{Question: "Hello!"}))
	require.Equal(t, 200, r.status, "%s", r.body)
	b = api.PlanResponse{}
	r.json(t, &b)
	assert.Equal(t, retrieval.RouteDirect, b.RetrievalPlan.Route, "ask would answer it without the KG")
	assert.Equal(t, "greeting", b.RetrievalPlan.Reasons["route"])
}

func TestAskBadInput(t *testing.T) {
	h := newHarness(t, setup{edit: func(c *config.Config) {
		c.Server.MaxQuestionLen = 50
		c.Server.MaxBodyBytes = 4096
	}})
	tests := []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"empty body", "application/json", "", 400, "missing request body"},
		{"malformed JSON", "application/json", `{"question": `, 400, "malformed JSON"},
		{"not JSON", "application/json", `question=hi`, 400, "malformed JSON"},
		{"wrong type", "application/json", `{"question": 42}`, 400, "question must be a string"},
		{"wrong option type", "application/json", `{"question": "q?", "options": {"width": "wide"}}`, 400, "options.width must be a number"},
		{"unknown field", "application/json", `{"question": "q?", "upstream_url": "http://evil"}`, 400, `unknown field "upstream_url"`},
		{"two objects", "application/json", `{"question": "q?"} {"question": "r?"}`, 400, "one JSON object"},
		{"empty question", "application/json", `{"question": "  "}`, 400, "question is required"},
		{"question too long", "application/json", `{"question": "` + strings.Repeat("é", 51) + `"}`, 400, "51 characters long, at most 50"},
		{"body too large", "application/json", `{"question": "` + strings.Repeat("a", 5000) + `"}`, 413, "larger than 4096 bytes"},
		{"malformed topic id", "application/json", `{"question": "q?", "topic_entities": ["m.0f8l9c> } DROP ALL #"]}`, 400, "topic_entities[0]"},
		{"wikidata id on freebase", "application/json", `{"question": "q?", "topic_entities": ["Q142"]}`, 400, "not a freebase entity id"},
		{"option out of range", "application/json", `{"question": "q?", "options": {"depth": 99}}`, 400, "options.depth must be between 1 and 4"},
		{"deadline out of range", "application/json", `{"question": "q?", "options": {"deadline_ms": 0}}`, 400, "options.deadline_ms"},
		{"wrong content type", "text/plain", `{"question": "q?"}`, 415, "Content-Type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(t, "POST", "/v1/ask", tc.contentType, []byte(tc.body))
			require.Equal(t, tc.status, r.status, "body: %s", r.body)
			assert.Contains(t, r.errorBody(t).Error, tc.want)
		})
	}
	assert.Zero(t, h.llm.Count(), "bad input must not reach the model")
}

func TestNoLLMConfigured(t *testing.T) {
	h := newHarness(t, setup{noLLM: true})
	for _, path := range []string{"/v1/ask", "/v1/plan"} {
		r := h.call(t, "POST", path, "application/json", mustJSON(t, api.AskRequest{Question: capitalQ}))
		require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
		msg := r.errorBody(t).Error
		for _, s := range []string{"llm.reasoner.base_url", "PAROG_LLM_REASONER_BASE_URL", "llm.reasoner.model"} {
			assert.Contains(t, msg, s)
		}
	}
	r := h.call(t, "GET", "/readyz", "", nil)
	assert.Equal(t, 503, r.status, "/v1/ask answers 503, so the server is not ready for questions")
	var b api.HealthResponse
	r.json(t, &b)
	assert.Equal(t, api.Check{Name: "ask", Status: "unavailable"}, b.Checks[3])
	assert.Equal(t, "ok", b.Checks[0].Status, "the KG is up")
}

// Every body-taking endpoint refuses bad input with a status the OpenAPI
// document lists (h.call checks it), not only /v1/ask.
func TestBadInputStatusesAreDocumented(t *testing.T) {
	h := newHarness(t, setup{edit: func(c *config.Config) { c.Server.MaxBodyBytes = 4096 }})
	long := `{"model": "parog", "question": "` + strings.Repeat("a", 5000) + `"}`
	tests := []struct {
		name, method, path, contentType, body string
		status                                int
		want                                  string
	}{
		{"plan wrong content type", "POST", "/v1/plan", "text/plain", `{"question": "q?"}`, 415, "Content-Type"},
		{"plan body too large", "POST", "/v1/plan", "application/json", long, 413, "larger than 4096 bytes"},
		{"chat wrong content type", "POST", "/v1/chat/completions", "text/plain", `{"model": "parog"}`, 415, "Content-Type"},
		{"chat body too large", "POST", "/v1/chat/completions", "application/json", long, 413, "larger than 4096 bytes"},
		{"sparql query too long in the URL", "GET", "/sparql?query=" + url.QueryEscape("SELECT * WHERE { ?s ?p ?o } #"+strings.Repeat("x", 100_000)), "", "", 414, "at most 100000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(t, tc.method, tc.path, tc.contentType, []byte(tc.body))
			require.Equal(t, tc.status, r.status, "body: %s", r.body)
			assert.Contains(t, string(r.body), tc.want)
			if tc.path == "/v1/chat/completions" {
				assert.NotContains(t, string(r.body), "topic_entities", "a chat client has no such field")
			}
		})
	}
}
