package endpoint

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// formatEndpoint answers each request with the next of replies (media
// type and body) and records the Accept header of each.
func formatEndpoint(t *testing.T, replies ...[2]string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var accepts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := len(accepts)
		accepts = append(accepts, r.Header.Get("Accept"))
		mu.Unlock()
		reply := replies[min(n, len(replies)-1)]
		w.Header().Set("Content-Type", reply[0])
		_, _ = w.Write([]byte(reply[1]))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), accepts...)
	}
}

const (
	acceptTSV   = "text/tab-separated-values, application/sparql-results+json;q=0.9"
	acceptXML   = "application/sparql-results+xml, application/sparql-results+json;q=0.9"
	formatXML   = `<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head><results><result><binding name="x"><literal xml:lang="en">a</literal></binding></result></results></sparql>`
	formatJSON  = `{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": "a", "xml:lang": "en"}}]}}`
	formatTSV   = "?x\n\"a\"@en\n"
	virtuosoTSV = "\"x\"\n\"a\"\n"
)

// TestResultsFormat: the client asks for the configured format and reads
// the reply by its Content-Type; a tab-separated reply it cannot read is
// asked for again once, as JSON.
func TestResultsFormat(t *testing.T) {
	want := &backend.Table{Vars: []string{"x"}, Rows: []map[string]backend.Node{{"x": {Kind: backend.NodeLiteral, Value: "a", Lang: "en"}}}}
	for _, tc := range []struct {
		name    string
		results string
		replies [][2]string
		accepts []string
	}{
		{"json by default", "", [][2]string{{"application/sparql-results+json", formatJSON}}, []string{mediaJSON}},
		{"json", "json", [][2]string{{"application/sparql-results+json; charset=UTF-8", formatJSON}}, []string{mediaJSON}},
		{"tsv", "tsv", [][2]string{{"text/tab-separated-values; charset=UTF-8", formatTSV}}, []string{acceptTSV}},
		{"tsv asked, json answered", "tsv", [][2]string{{"application/sparql-results+json", formatJSON}}, []string{acceptTSV}},
		{"xml", "xml", [][2]string{{"application/sparql-results+xml; charset=UTF-8", formatXML}}, []string{acceptXML}},
		{"xml not read, asked again as json", "xml", [][2]string{{"application/sparql-results+xml", strings.Replace(formatXML, ">a<", ">a&#1;<", 1)}, {"application/sparql-results+json", formatJSON}}, []string{acceptXML, mediaJSON}},
		{"tsv not read, asked again as json", "tsv", [][2]string{{"text/tab-separated-values", virtuosoTSV}, {"application/sparql-results+json", formatJSON}}, []string{acceptTSV, mediaJSON}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, accepts := formatEndpoint(t, tc.replies...)
			c, err := New(srv.URL, Options{Results: tc.results, Timeout: time.Minute})
			require.NoError(t, err)
			got, err := c.Query(context.Background(), "SELECT ?x WHERE { ?s ?p ?x }")
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, tc.accepts, accepts())
		})
	}
}

// An endpoint that answers the second ask (as JSON) with the same
// unread tab-separated values fails as a bad response after the two
// requests, and no more: a bad response is not retried.
func TestResultsFormatUnreadTwice(t *testing.T) {
	srv, accepts := formatEndpoint(t, [2]string{"text/tab-separated-values", virtuosoTSV})
	c, err := New(srv.URL, Options{Results: "tsv", Retries: 2, Timeout: time.Minute, Backoff: time.Millisecond})
	require.NoError(t, err)
	_, err = c.Query(context.Background(), "SELECT ?x WHERE { ?s ?p ?x }")
	require.ErrorIs(t, err, backend.ErrBadResponse)
	assert.Equal(t, []string{acceptTSV, mediaJSON}, accepts())
}

func TestResultsFormatUnknown(t *testing.T) {
	_, err := New("http://127.0.0.1:1/sparql", Options{Results: "csv"})
	require.ErrorContains(t, err, "kg.results")
}
