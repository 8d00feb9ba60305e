package server_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/server"
)

// recordingEndpoint is a SPARQL endpoint that answers every query with no
// rows and keeps the queries it received.
type recordingEndpoint struct {
	mu      sync.Mutex
	queries []string
}

func (e *recordingEndpoint) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		e.mu.Lock()
		e.queries = append(e.queries, r.Form.Get("query"))
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/sparql-results+json")
		_, _ = w.Write([]byte(`{"head":{"vars":["s"]},"results":{"bindings":[]}}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/sparql"
}

func (e *recordingEndpoint) received() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.queries...)
}

// The probe's bypasses of the old lexical gate, with the sparql backend:
// none reaches the endpoint, and what does reach it is the gate's
// rewriting.
func TestSPARQLGateOnEndpoint(t *testing.T) {
	ep := &recordingEndpoint{}
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) {
		c.KG = config.Default().KG
		c.KG.Backend, c.KG.Endpoint, c.KG.CacheSize = "sparql", ep.start(t), 0
	}})
	for name, q := range map[string]string{
		"service after a dot":   `SELECT * WHERE { ?s ?p ?o.SERVICE <http://127.0.0.1:9/x> { ?a ?b ?c } } LIMIT 1`,
		"escaped service":       `SELECT * WHERE { ?s ?p ?o.\u0053ERVICE <http://127.0.0.1:9/x> { ?a ?b ?c } } LIMIT 1`,
		"define after a dot":    `SELECT * WHERE { ?s ?p ?x.DEFINE input:same-as "yes" }`,
		"insert after a dot":    `SELECT * WHERE { ?s ?p ?o.INSERT DATA { <http://a/b> <http://a/c> <http://a/d> } }`,
		"bif call":              `SELECT * WHERE { ?s ?p ?o FILTER(bif:getenv("HOME")) }`,
		"update after the end":  `SELECT * WHERE { ?s ?p ?o } ; DROP ALL`,
		"construct":             `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`,
		"undeclared prefix sql": `SELECT * WHERE { ?s sql:x ?o }`,
	} {
		t.Run(name, func(t *testing.T) {
			r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(q), "", nil)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		})
	}
	require.Empty(t, ep.received(), "a refused query reached the endpoint")

	r := h.call(t, "POST", "/sparql", "application/sparql-query",
		[]byte("PREFIX ns: <http://rdf.freebase.com/ns/>\nselect ?s where { ?s ns:type.object.name \"Paris\"@en } # a comment"))
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	got := ep.received()
	require.Len(t, got, 1)
	assert.Equal(t, `SELECT ?s WHERE { ?s <http://rdf.freebase.com/ns/type.object.name> "Paris"@en . } LIMIT 10001`, got[0],
		"the endpoint gets the gate's text, with the row cap pushed into it")
	assert.False(t, strings.Contains(got[0], "#"))
}

// The probe's query (three unconnected patterns, 89 million rows on the
// demo graph) is refused before it runs, and the /sparql gauges show no
// work left behind (TestSelectMemoryBound in kgqa/kg measures memory).
func TestSPARQLRefusesUnboundedQuery(t *testing.T) {
	h := newHarness(t, setup{noLLM: true})
	q := `PREFIX ns: <http://rdf.freebase.com/ns/> SELECT (COUNT(*) AS ?n) WHERE { ?a ns:type.object.name ?x . ?b ns:type.object.name ?y . ?c ns:type.object.name ?z }`
	r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(q), "", nil)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), "cartesian product")
	assert.Equal(t, 0.0, gauge(t, h.srv, "parog_sparql_requests_in_flight"))
	assert.Equal(t, 0.0, gauge(t, h.srv, "parog_kg_evaluations_running"))
}

// gauge reads a gauge of the server's registry.
func gauge(t testing.TB, srv *server.Server, name string) float64 {
	t.Helper()
	mfs, err := srv.Metrics().Registry().Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}
