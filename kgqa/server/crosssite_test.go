package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

const nameQuery = `SELECT ?n WHERE { <http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/type.object.name> ?n }`

// counter reads a counter of the server's registry, summed over the
// series whose labels include want.
func counter(t testing.TB, h *harness, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := h.srv.Metrics().Registry().Gather()
	require.NoError(t, err)
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// A request a page of another site (or another port of this host) makes
// the browser send is refused before any work, GET included, unless
// server.cors_origins lists the page's origin.
func TestCrossSiteRequestsRefused(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) {
		c.Server.CORSOrigins = []string{"http://allowed.example"}
	}})
	self := h.http.URL
	sparql := "/sparql?query=" + url.QueryEscape(nameQuery)
	entities := "/v1/entities?name=France"
	tests := []struct {
		name, path string
		hdr        []string
		want       int
	}{
		{"no browser headers", sparql, nil, http.StatusOK},
		{"typed in the address bar", sparql, []string{"Sec-Fetch-Site", "none"}, http.StatusOK},
		{"same origin", entities, []string{"Sec-Fetch-Site", "same-origin", "Origin", self}, http.StatusOK},
		{"an <img> on another site", sparql, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"an <img> on another port", sparql, []string{"Sec-Fetch-Site", "same-site"}, http.StatusForbidden},
		{"a foreign origin", entities, []string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"a foreign origin, without fetch metadata", sparql, []string{"Origin", "http://127.0.0.1:1"}, http.StatusForbidden},
		{"an allowed origin", entities, []string{"Sec-Fetch-Site", "cross-site", "Origin", "http://allowed.example"}, http.StatusOK},
		{"a foreign referer alone", sparql, []string{"Referer", "http://evil.example/page.html"}, http.StatusForbidden},
		{"a referer of another port alone", entities, []string{"Referer", "http://127.0.0.1:1/"}, http.StatusForbidden},
		{"the viewer's own referer", sparql, []string{"Referer", self + "/ui/"}, http.StatusOK},
		{"an allowed origin's referer", entities, []string{"Referer", "http://allowed.example/app"}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call(t, "GET", tt.path, "", nil, tt.hdr...)
			require.Equal(t, tt.want, r.status, "%s", r.body)
			if tt.want == http.StatusForbidden {
				assert.Contains(t, string(r.body), "cross-site")
			}
		})
	}
}

// The probe's attack in a real browser: a page served from another port
// embeds <img src=".../sparql?query=...">. Chromium sends the request;
// the server refuses it and runs no query.
func TestCrossSiteImageInBrowser(t *testing.T) {
	b := browsertest.New(t)
	h := newHarness(t, setup{noLLM: true})
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><img id="probe" src="%s/sparql?query=%s">`, h.http.URL, url.QueryEscape(nameQuery))
	}))
	t.Cleanup(page.Close)
	before := counter(t, h, "parog_sparql_queries_total", nil)
	b.Run(30*time.Second, chromedp.Navigate(page.URL))
	deadline := time.Now().Add(10 * time.Second)
	for counter(t, h, "parog_http_requests_total", map[string]string{"route": "/sparql"}) == 0 {
		require.True(t, time.Now().Before(deadline), "the browser never sent the image request")
		time.Sleep(20 * time.Millisecond)
	}
	assert.Equal(t, 1.0, counter(t, h, "parog_http_requests_total", map[string]string{"route": "/sparql", "code": "403"}))
	assert.Equal(t, before, counter(t, h, "parog_sparql_queries_total", nil), "the page made the server query the KG")
	// The same query from the server's own origin does run, and counts.
	b.Run(30*time.Second, chromedp.Navigate(h.http.URL+"/sparql?query="+url.QueryEscape(nameQuery)))
	assert.Greater(t, counter(t, h, "parog_sparql_queries_total", nil), before)
}
