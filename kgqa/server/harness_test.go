package server_test

// The harness runs the real server wiring (kg.Open on the embedded demo KG,
// llm.New against the scripted OpenAI-compatible server, kgqa.New, the Gin
// handler) behind httptest. The model is kgqatest's scripted demo model,
// which answers by reading its prompts.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/metrics"
	"github.com/parog/parog-go/kgqa/server"
)

const (
	capitalQ = "What is the capital of France?"
	france   = "m.0f8l9c"
	paris    = "m.05qtj"
)

type harness struct {
	t      testing.TB
	cfg    config.Config
	graph  kg.Graph
	llm    *llmtest.Server
	srv    *server.Server
	http   *httptest.Server
	client *api.Client
	model  *llm.Client
}

type setup struct {
	noLLM   bool
	delay   time.Duration
	handler llmtest.Handler
	edit    func(*config.Config)
	graph   kg.Graph
	noLog   bool // the scripted server keeps no request log (load runs)
	// labels tags the goroutines of the scripted model and of the server
	// (side=model, side=server; the caller's stay side=harness) so that a
	// CPU profile of the process splits by side (pprof -tagfocus).
	labels bool
	opts   []server.Option
}

func newHarness(tb testing.TB, s setup) *harness {
	tb.Helper()
	h := &harness{t: tb, cfg: config.Default()}
	h.cfg.KG.Files = []string{"builtin:demo-freebase"}
	h.cfg.KG.CacheSize = 1000
	h.cfg.Server.Addr = "127.0.0.1:0"
	h.cfg.Server.RateLimit = 0
	h.cfg.Engine.Deadline = 20 * time.Second
	var opts []server.Option
	if !s.noLLM {
		handler := s.handler
		if handler == nil {
			handler = kgqatest.DemoModel()
		}
		lopts := []llmtest.Option{llmtest.WithHandler(handler), llmtest.WithDelay(s.delay)}
		if s.noLog {
			lopts = append(lopts, llmtest.WithoutLog())
		}
		setSide(s.labels, "model")
		h.llm = llmtest.New(tb, lopts...)
		h.cfg.LLM.Reasoner.BaseURL, h.cfg.LLM.Reasoner.Model = h.llm.URL(), "scripted"
		h.cfg.LLM.Reasoner.Concurrency = 1024
		h.cfg.LLM.Reasoner.Retries = 1
	}
	if s.edit != nil {
		s.edit(&h.cfg)
	}
	g := s.graph
	if g == nil {
		var err error
		g, err = kg.Open(context.Background(), h.cfg.KG, "", adapters.Open)
		require.NoError(tb, err)
		tb.Cleanup(func() { _ = g.Close() })
	}
	h.graph = g
	m := metrics.New()
	client, err := llm.New(h.cfg.LLM, llm.WithObserver(m.ObserveLLM), llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = client.Close() })
	h.model = client
	eng, err := engine.New(g, client, h.cfg.Engine)
	require.NoError(tb, err)
	opts = append(opts, server.WithEngine(eng), server.WithLLMConfig(h.cfg.LLM),
		server.WithCapabilities(client.Capabilities), server.WithMetrics(m), server.WithLogger(discardLogger()))
	h.srv, err = server.New(h.cfg.Server, g, append(opts, s.opts...)...)
	require.NoError(tb, err)
	setSide(s.labels, "server")
	h.http = httptest.NewServer(h.srv.Handler())
	setSide(s.labels, "harness")
	tb.Cleanup(h.http.Close)
	h.client, err = api.NewClient(h.http.URL)
	require.NoError(tb, err)
	return h
}

// setSide labels the calling goroutine, and so the goroutines it starts
// (the accept loops of httptest servers and all they spawn), with side.
func setSide(on bool, side string) {
	if on {
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("side", side)))
	}
}

func kgRel(id, dir string) kgqa.Relation { return kgqa.Relation{ID: id, Dir: kgqa.Direction(dir)} }

type openaiRequest = openai.ChatCompletionRequest

// inFlight reads the server's in-flight request gauge.
func inFlight(t testing.TB, h *harness) float64 {
	return gauge(t, h.srv, "parog_http_in_flight_requests")
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func decodeJSON(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
