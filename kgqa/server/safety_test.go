package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/parog/parog-go/kgqa/server"
)

// funcEngine is an engine whose behaviour a test supplies.
type funcEngine struct {
	ask  func(ctx context.Context, req engine.Request) (*kgqa.Answer, error)
	plan func(ctx context.Context, q string) (*kgqa.Plan, kgqa.PlanInfo, error)
}

var _ server.Engine = funcEngine{}

func (f funcEngine) Ask(ctx context.Context, req engine.Request) (*kgqa.Answer, error) {
	return f.ask(ctx, req)
}

func (f funcEngine) Plan(ctx context.Context, q string) (*kgqa.Plan, kgqa.PlanInfo, error) {
	return f.plan(ctx, q)
}

// Budgets checks overrides as the real engine does, over the defaults.
func (f funcEngine) Budgets(o engine.Overrides) (config.Engine, error) {
	return engine.MergeOverrides(config.Default().Engine, o)
}

func (f funcEngine) RetrievalPlan(string, *kgqa.Plan) (*retrieval.Plan, map[string]retrieval.Pack) {
	return &retrieval.Plan{Route: retrieval.RouteKG}, nil
}

func TestAuth(t *testing.T) {
	h := newHarness(t, setup{edit: func(c *config.Config) { c.Server.APIKeys = []string{"s3cret"} }})
	for _, tc := range []struct {
		name, path string
		hdr        []string
		status     int
	}{
		{"no token", "/v1/entities/" + france, nil, 401},
		{"wrong token", "/v1/entities/" + france, []string{"Authorization", "Bearer nope"}, 401},
		{"not bearer", "/v1/entities/" + france, []string{"Authorization", "Basic czNjcmV0"}, 401},
		{"right token", "/v1/entities/" + france, []string{"Authorization", "Bearer s3cret"}, 200},
		{"metrics need a token", "/metrics", nil, 401},
		{"healthz is open", "/healthz", nil, 200},
		{"readyz is open", "/readyz", nil, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(t, "GET", tc.path, "", nil, tc.hdr...)
			require.Equal(t, tc.status, r.status, "%s", r.body)
			if tc.status == 401 {
				r.errorBody(t)
				assert.NotEmpty(t, r.header.Get("WWW-Authenticate"))
			}
		})
	}
	c, err := api.NewClient(h.http.URL, api.WithAPIKey("s3cret"))
	require.NoError(t, err)
	_, err = c.Entity(context.Background(), france)
	require.NoError(t, err)
}

func TestRefusesPublicAddressWithoutKeys(t *testing.T) {
	g := newHarness(t, setup{noLLM: true}).graph
	for _, tc := range []struct {
		addr string
		keys []string
		env  string
		ok   bool
	}{
		{"127.0.0.1:8080", nil, "", true},
		{"[::1]:8080", nil, "", true},
		{"localhost:0", nil, "", true},
		{"0.0.0.0:8080", nil, "", false},
		{":8080", nil, "", false},
		{"192.0.2.1:8080", nil, "", false},
		{"0.0.0.0:8080", []string{"k"}, "", true},
		{"0.0.0.0:8080", nil, "k1,k2", true},
	} {
		t.Run(tc.addr+" keys="+strconv.Itoa(len(tc.keys))+" env="+tc.env, func(t *testing.T) {
			cfg := config.Default().Server
			cfg.Addr, cfg.APIKeys, cfg.APIKeysEnv = tc.addr, tc.keys, "TEST_PAROG_KEYS"
			getenv := func(k string) (string, bool) { return tc.env, tc.env != "" && k == "TEST_PAROG_KEYS" }
			_, err := server.New(cfg, g, server.WithGetenv(getenv))
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "server.api_keys")
		})
	}
}

func TestRateLimit(t *testing.T) {
	h := newHarness(t, setup{edit: func(c *config.Config) { c.Server.RateLimit, c.Server.RateBurst = 0.5, 2 }})
	statuses := []int{}
	var last reply
	for range 3 {
		last = h.call(t, "GET", "/v1/entities/"+france, "", nil)
		statuses = append(statuses, last.status)
	}
	assert.Equal(t, []int{200, 200, 429}, statuses)
	ra, err := strconv.Atoi(last.header.Get("Retry-After"))
	require.NoError(t, err)
	assert.Equal(t, 2, ra, "one token per 2 s")
	assert.Contains(t, last.errorBody(t).Error, "rate limit")
	assert.Equal(t, 200, h.call(t, "GET", "/healthz", "", nil).status, "health checks are not limited")
}

func TestForwardingHeadersDoNotEvadeTheRateLimit(t *testing.T) {
	h := newHarness(t, setup{edit: func(c *config.Config) { c.Server.RateLimit, c.Server.RateBurst = 0.5, 1 }})
	first := h.call(t, "GET", "/v1/entities/"+france, "", nil, "X-Forwarded-For", "10.0.0.1")
	second := h.call(t, "GET", "/v1/entities/"+france, "", nil, "X-Forwarded-For", "10.0.0.2", "X-Real-Ip", "10.0.0.3")
	assert.Equal(t, 200, first.status)
	assert.Equal(t, 429, second.status, "a new forwarded address is the same client")
}

func TestPanicIsRecovered(t *testing.T) {
	g := newHarness(t, setup{noLLM: true}).graph
	var logs bytes.Buffer
	var mu sync.Mutex
	cfg := config.Default()
	cfg.LLM.Reasoner.BaseURL = "http://127.0.0.1:1/v1"
	eng := funcEngine{ask: func(context.Context, engine.Request) (*kgqa.Answer, error) { panic("engine bug") }}
	srv, err := server.New(cfg.Server, g, server.WithEngine(eng), server.WithLLMConfig(cfg.LLM),
		server.WithLogger(slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))))
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/v1/ask", "application/json", strings.NewReader(`{"question":"q?"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 500, resp.StatusCode)
	rid := resp.Header.Get(api.RequestIDHeader)
	require.NotEmpty(t, rid)
	var e api.ErrorResponse
	require.NoError(t, decodeJSON(resp, &e))
	assert.Contains(t, e.Error, rid)
	assert.NotContains(t, e.Error, "engine bug", "the panic value is not leaked")
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, logs.String(), "engine bug")
	assert.Contains(t, logs.String(), "request_id="+rid)
	// The server still serves.
	r2, err := http.Get(ts.URL + "/healthz")
	require.NoError(t, err)
	r2.Body.Close()
	assert.Equal(t, 200, r2.StatusCode)
}

// Shutdown lets a request in flight finish.
func TestGracefulShutdown(t *testing.T) {
	g := newHarness(t, setup{noLLM: true}).graph
	cfg := config.Default()
	cfg.LLM.Reasoner.BaseURL = "http://127.0.0.1:1/v1"
	cfg.Server.ShutdownGrace = 5 * time.Second
	started := make(chan struct{})
	eng := funcEngine{ask: func(ctx context.Context, req engine.Request) (*kgqa.Answer, error) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return &kgqa.Answer{Question: req.Question, Text: "done", Stop: kgqa.StopPlanComplete}, nil
	}}
	srv, err := server.New(cfg.Server, g, server.WithEngine(eng), server.WithLLMConfig(cfg.LLM), server.WithLogger(discardLogger()))
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	c, err := api.NewClient("http://" + ln.Addr().String())
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		ans, err := c.Ask(context.Background(), api.AskRequest{Question: "q?"})
		if err == nil && ans.Answer != "done" {
			err = assert.AnError
		}
		got <- err
	}()
	<-started
	stop()
	select {
	case err := <-got:
		require.NoError(t, err, "the request in flight was answered")
	case <-time.After(5 * time.Second):
		t.Fatal("request in flight was not answered")
	}
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
	_, err = net.DialTimeout("tcp", ln.Addr().String(), time.Second)
	assert.Error(t, err, "the listener is closed")
}
