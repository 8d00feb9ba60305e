package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

// endpointGraph opens the sparql backend on an endpoint that answers every
// query with handler, counting the requests.
func endpointGraph(t *testing.T, kgTimeout time.Duration, handler http.HandlerFunc) (kg.Graph, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := config.Default().KG
	cfg.Backend, cfg.Endpoint, cfg.Retries, cfg.Timeout, cfg.CacheSize = "sparql", srv.URL, 2, kgTimeout, 0
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	return g, &n
}

func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// hang answers nothing until the request is gone. It reads the form
// first: the server notices a closed connection only once the body is read.
func hang(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	<-r.Context().Done()
}

// A /sparql query the endpoint refuses is the client's 400 with the
// endpoint's reason, sent once; an endpoint failure is 502 with the
// reason, sent once; only 429 and 503 are retried; a timeout, whoever
// noticed it, is 504.
func TestSPARQLEndpointErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		handler   http.HandlerFunc
		kgTimeout time.Duration
		status    int
		reason    string
		sent      int64
	}{
		{"query error", answer(400, "Virtuoso 37000 Error SP030: syntax error"), time.Minute, 400, "SP030: syntax error", 1},
		{"Virtuoso's query error", answer(500, "Virtuoso 22012 Error SR084: Division by 0."), time.Minute, 400, "Division by 0", 1},
		{"endpoint failure", answer(500, "java.lang.NullPointerException"), time.Minute, 502, "NullPointerException", 1},
		{"busy", answer(503, "busy"), time.Minute, 503, "", 3},
		{"rate-limited", answer(429, "slow down"), time.Minute, 503, "", 3},
		{"the endpoint's timeout", answer(500, "Virtuoso S1T00 Error SR171: Transaction timed out"), time.Minute, 504, "", 1},
		{"sparql_timeout", hang, time.Minute, 504, "", 1},
		{"kg.timeout shorter than sparql_timeout", hang, 500 * time.Millisecond, 504, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, sent := endpointGraph(t, tc.kgTimeout, tc.handler)
			h := newHarness(t, setup{noLLM: true, graph: g, edit: func(c *config.Config) { c.Server.SPARQLTimeout = 2 * time.Second }})
			r := h.call(t, "GET", "/sparql?query="+url.QueryEscape("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"), "", nil)
			require.Equal(t, tc.status, r.status, "%s", r.body)
			assert.Contains(t, r.errorBody(t).Error, tc.reason)
			assert.Equal(t, tc.sent, sent.Load(), "requests the endpoint got")
		})
	}
}

// Queries that pass the gate and that Virtuoso refuses when it runs them
// (it answers 500 to each): the client gets 400 with Virtuoso's reason,
// and Virtuoso gets the query once, not once per retry.
func TestSPARQLVirtuosoQueryErrors(t *testing.T) {
	srv := sharedVirtuoso(t)
	target, err := url.Parse(srv.GraphURL(virtuosotest.Graph))
	require.NoError(t, err)
	var sent atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.RawQuery = target.RawQuery
		}}).ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	h := newHarness(t, setup{noLLM: true, graph: virtuosoGraph(t, proxy.URL)})
	for _, tc := range []struct{ query, reason string }{
		{`SELECT (1/0 AS ?x) WHERE { } LIMIT 1`, "Division by 0"},
		{`SELECT ?s WHERE { ?s ?p ?o FILTER(REGEX(STR(?o), "(")) } LIMIT 1`, "regexp error"},
		{`SELECT (SUBSTR("abc", "x") AS ?x) WHERE { } LIMIT 1`, "rdf_substr_impl"},
		{`SELECT (STRLANG("a", "") AS ?x) WHERE { } LIMIT 1`, "valid language ID"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			before := sent.Load()
			r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(tc.query), "", nil)
			require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Contains(t, r.errorBody(t).Error, tc.reason)
			assert.EqualValues(t, 1, sent.Load()-before, "requests Virtuoso got")
		})
	}
	r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(`SELECT ?n WHERE { ?e <http://rdf.freebase.com/ns/type.object.name> ?n } LIMIT 1`), "", nil)
	assert.Equal(t, http.StatusOK, r.status, "a good query through the same proxy: %s", r.body)
}
