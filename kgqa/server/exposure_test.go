package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/server"
)

// serveReal runs Serve (with its connection settings) on a loopback
// listener until the test ends.
func serveReal(t *testing.T, tune func(*config.Server)) string {
	t.Helper()
	cfg := config.Default().Server
	cfg.Addr = "127.0.0.1:0"
	if tune != nil {
		tune(&cfg)
	}
	srv, err := server.New(cfg, newHarness(t, setup{noLLM: true}).graph, server.WithLogger(discardLogger()))
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// A client trickling its body is cut off by the read timeout instead of
// holding the connection.
func TestSlowBodyIsCutOff(t *testing.T) {
	addr := serveReal(t, func(c *config.Server) { c.ReadTimeout = 300 * time.Millisecond })
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprint(conn, "POST /v1/ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	require.NoError(t, err)
	// The server gives up on the body and closes the connection; a guard
	// catches a server that would wait for ever.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the connection was held open")
	}
}

// Connections beyond server.max_conns wait to be accepted.
func TestConnectionCap(t *testing.T) {
	addr := serveReal(t, func(c *config.Server) { c.MaxConns = 2 })
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		// A request makes sure the server accepted this connection.
		_, err = fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		resp.Body.Close()
		held = append(held, c)
	}
	client := &http.Client{Timeout: 500 * time.Millisecond}
	_, err := client.Get("http://" + addr + "/healthz")
	require.Error(t, err, "a third connection was served")
	held[0].Close()
	client.Timeout = 30 * time.Second
	resp, err := client.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	held[1].Close()
}

// Wrong keys are throttled per address and key: the same wrong key sent
// again and again gets 429 with Retry-After after a burst, while the right
// key from the same address is answered every time (behind a NAT, one bad
// client must not lock everyone out).
func TestFailedAuthenticationThrottlesTheKeyNotTheAddress(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) { c.Server.APIKeys = []string{"s3cret"} }})
	bad := map[int]int{}
	for range 30 {
		r := h.call(t, "GET", "/v1/entities/"+france, "", nil, "Authorization", "Bearer guess")
		bad[r.status]++
		if r.status == http.StatusTooManyRequests {
			assert.NotEmpty(t, r.header.Get("Retry-After"))
		}
		r = h.call(t, "GET", "/v1/entities/"+france, "", nil, "Authorization", "Bearer s3cret")
		require.Equal(t, http.StatusOK, r.status, "the right key from a throttled address: %s", r.body)
	}
	assert.Equal(t, 10, bad[http.StatusUnauthorized], "statuses of the wrong key: %v", bad)
	assert.Equal(t, 20, bad[http.StatusTooManyRequests], "statuses of the wrong key: %v", bad)
	r := h.call(t, "GET", "/v1/entities/"+france, "", nil, "Authorization", "Bearer another-guess")
	assert.Equal(t, http.StatusUnauthorized, r.status, "another wrong key has its own count")
}

func TestBearerSchemeIgnoresCase(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) { c.Server.APIKeys = []string{"s3cret"} }})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		r := h.call(t, "GET", "/v1/entities/"+france, "", nil, "Authorization", scheme+" s3cret")
		assert.Equal(t, http.StatusOK, r.status, scheme)
	}
}

func TestHeadOnGetRoutes(t *testing.T) {
	h := newHarness(t, setup{noLLM: true})
	for _, path := range []string{"/healthz", "/openapi.yaml", "/v1/entities/" + france, "/metrics",
		"/sparql?query=" + url.QueryEscape("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")} {
		resp, err := http.Head(h.http.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
}

// Scraping /metrics takes nothing from the caller's rate limit.
func TestMetricsHasNoShareInTheRateLimit(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) { c.Server.RateLimit, c.Server.RateBurst = 0.1, 1 }})
	for range 5 {
		assert.Equal(t, http.StatusOK, h.call(t, "GET", "/metrics", "", nil).status)
	}
	assert.Equal(t, http.StatusOK, h.call(t, "GET", "/v1/entities/"+france, "", nil).status)
}

// A web page can post a form to a loopback server without a preflight;
// such a POST must carry a header a page cannot set across sites.
func TestCrossSiteForms(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) { c.Server.CORSOrigins = []string{"https://ui.example"} }})
	q := "query=" + url.QueryEscape("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
	form := "application/x-www-form-urlencoded"
	tests := []struct {
		name, path, ct, body string
		hdr                  []string
		status               int
	}{
		{"form to sparql", "/sparql", form, q, nil, http.StatusForbidden},
		{"form with X-Requested-With", "/sparql", form, q, []string{"X-Requested-With", "x"}, http.StatusOK},
		{"multipart to ask", "/v1/ask", "multipart/form-data; boundary=x", "--x--", nil, http.StatusForbidden},
		{"no content type to ask", "/v1/ask", "", `{"question":"q?"}`, nil, http.StatusForbidden},
		{"sparql-query needs a preflight anyway", "/sparql", "application/sparql-query", "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", nil, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(t, "POST", tc.path, tc.ct, []byte(tc.body), tc.hdr...)
			assert.Equal(t, tc.status, r.status, "%s", r.body)
		})
	}
	t.Run("cors", func(t *testing.T) {
		preflight := func(origin string) *http.Response {
			req, _ := http.NewRequest(http.MethodOptions, h.http.URL+"/v1/ask", nil)
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp
		}
		ok := preflight("https://ui.example")
		assert.Equal(t, http.StatusNoContent, ok.StatusCode)
		assert.Equal(t, "https://ui.example", ok.Header.Get("Access-Control-Allow-Origin"))
		other := preflight("https://evil.example")
		assert.Equal(t, http.StatusForbidden, other.StatusCode)
		assert.Empty(t, other.Header.Get("Access-Control-Allow-Origin"))
		r := h.call(t, "GET", "/healthz", "", nil, "Origin", "https://evil.example")
		assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"), "no CORS for an unlisted origin")
	})
}

// /readyz reuses its probe for a few seconds, and shows endpoints, models
// and upstream errors only to a caller with a key.
func TestReadinessIsCachedAndDiscreet(t *testing.T) {
	var probes atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		probes.Add(1)
		http.Error(w, "upstream secret text", http.StatusInternalServerError)
	}))
	defer upstream.Close()
	cfg := config.Default()
	cfg.Server.APIKeys = []string{"k"}
	cfg.LLM.Reasoner.BaseURL, cfg.LLM.Reasoner.Model = upstream.URL+"/v1", "secret-model"
	srv, err := server.New(cfg.Server, newHarness(t, setup{noLLM: true}).graph,
		server.WithLLMConfig(cfg.LLM), server.WithLogger(discardLogger()))
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	get := func(hdr ...string) (int, string) {
		req, _ := http.NewRequest("GET", ts.URL+"/readyz", nil)
		if len(hdr) == 2 {
			req.Header.Set(hdr[0], hdr[1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for range 50 {
		status, body := get()
		require.Equal(t, http.StatusServiceUnavailable, status)
		for _, secret := range []string{"secret", upstream.Listener.Addr().String(), "500"} {
			assert.NotContains(t, body, secret)
		}
	}
	assert.Equal(t, int64(1), probes.Load(), "50 calls, one probe")
	_, body := get("Authorization", "Bearer k")
	assert.Contains(t, body, upstream.Listener.Addr().String())
	assert.Contains(t, body, "answered GET /models with 500")
}

// The small defects of the probe, each answered 400 now.
func TestSmallInputDefects(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) {
		c.LLM.Reasoner.BaseURL, c.LLM.Reasoner.Model = "http://127.0.0.1:1/v1", "m"
	}})
	tests := []struct {
		name, method, path, body, want string
	}{
		{"deadline overflow", "POST", "/v1/ask", `{"question":"q?","options":{"deadline_ms":9223372036855}}`, "deadline_ms"},
		{"key in another case", "POST", "/v1/ask", `{"QUESTION":"q?"}`, "case-sensitive"},
		{"nested key in another case", "POST", "/v1/ask", `{"question":"q?","options":{"Deadline_MS":5}}`, "case-sensitive"},
		{"duplicate key", "POST", "/v1/ask", `{"question":"q?","question":"other?"}`, "twice"},
		{"duplicate chat key", "POST", "/v1/plan", `{"question":"a?","question":"b?"}`, "twice"},
		{"tab in a name", "GET", "/v1/entities?name=" + url.QueryEscape("Fr\tance"), "", "control characters"},
		{"control character in a name", "GET", "/v1/entities?name=" + url.QueryEscape("Fr\x01ance"), "", "control characters"},
		{"invalid UTF-8 in a name", "GET", "/v1/entities?name=%ff%fe", "", "UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			r := h.call(t, tc.method, tc.path, ct, []byte(tc.body))
			require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Contains(t, r.errorBody(t).Error, tc.want)
		})
	}
}

// A model endpoint that keeps answering 429 makes a 503 that passes its
// Retry-After on.
func TestUpstreamRateLimitCarriesRetryAfter(t *testing.T) {
	h := newHarness(t, setup{handler: func(openaiRequest) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"7"}}}
	}})
	r := h.call(t, "POST", "/v1/ask", "application/json", mustJSON(t, api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}))
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
	assert.Equal(t, "7", r.header.Get("Retry-After"))
}
