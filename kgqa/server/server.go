// Package server is PARoG's HTTP API (Gin): ask, plan, streamed reasoning,
// an OpenAI-compatible chat endpoint, entity lookup, a read-only SPARQL
// endpoint over the KG, health, readiness, metrics, the OpenAPI document
// and the trace viewer's pages (kgqa/ui). The wire types live in kgqa/api.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/netutil"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/metrics"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/parog/parog-go/kgqa/ui"
)

func init() {
	// Gin's debug mode prints route tables and warnings to stdout; the
	// server logs through slog instead.
	gin.SetMode(gin.ReleaseMode)
}

// Engine is what the server needs of the PARoG engine; *kgqa.Engine
// implements it.
type Engine interface {
	// Ask answers a question; on failure it returns the partial answer
	// together with the error.
	Ask(ctx context.Context, req engine.Request) (*kgqa.Answer, error)
	// Plan returns the validated plan of a question.
	Plan(ctx context.Context, question string) (*kgqa.Plan, kgqa.PlanInfo, error)
	// RetrievalPlan returns the route, category tags and subgoal packs
	// the engine would follow for a question with plan.
	RetrievalPlan(question string, plan *kgqa.Plan) (*retrieval.Plan, map[string]retrieval.Pack)
	// Budgets returns the budgets a question with overrides o would run
	// under, or an error naming the override out of its bounds.
	Budgets(o engine.Overrides) (config.Engine, error)
}

var _ Engine = (*engine.Engine)(nil)

// Server is the HTTP API. Build it with New; serve Handler with any
// http.Server, or call Serve.
type Server struct {
	cfg     config.Server
	graph   kg.Graph
	engine  Engine
	llmCfg  config.LLM
	caps    func(kgqa.Role) (llm.Capabilities, bool)
	log     *slog.Logger
	metrics *metrics.Metrics
	getenv  func(string) (string, bool)
	pinger  Pinger
	pingErr error // why no pinger could be built
	files   string
	demo    Demo

	keys         [][]byte
	limiter      *limiter
	authFailures *failureLimiter
	ready        readiness
	handler      *gin.Engine

	admission      *admission
	sparqlSlots    chan struct{}
	sparqlInFlight prometheus.Gauge
	answers        *answerBudget
}

// Option configures a Server.
type Option func(*Server)

// WithEngine sets the engine behind /v1/ask, /v1/plan and
// /v1/chat/completions. Without one (or without a configured reasoner, see
// WithLLMConfig) those endpoints answer 503.
func WithEngine(e Engine) Option { return func(s *Server) { s.engine = e } }

// WithLLMConfig tells the server which model endpoints exist, for /readyz
// and for the 503 that names the missing settings. Its URLs come from the
// configuration only; no request can choose one.
func WithLLMConfig(cfg config.LLM) Option { return func(s *Server) { s.llmCfg = cfg } }

// WithCapabilities tells /readyz what each model endpoint has been found
// to accept (pass the LLM client's Capabilities method).
func WithCapabilities(fn func(kgqa.Role) (llm.Capabilities, bool)) Option {
	return func(s *Server) { s.caps = fn }
}

// Pinger checks that a role's model endpoint answers; *llm.Client is one.
type Pinger interface {
	// Ping reports whether role's endpoint answers GET /models.
	Ping(ctx context.Context, role kgqa.Role) error
}

// WithPinger sets what /readyz asks about the model endpoints; pass the
// engine's *llm.Client so that readiness uses the calls' own key and
// transport. Default: a client built from WithLLMConfig's settings.
func WithPinger(p Pinger) Option { return func(s *Server) { s.pinger = p } }

// WithLogger sets the logger (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// WithMetrics sets the metrics the server records into; pass the same
// Metrics to the LLM client's observer (llm.WithObserver(m.ObserveLLM)).
// Default: a fresh Metrics with its own registry.
func WithMetrics(m *metrics.Metrics) Option { return func(s *Server) { s.metrics = m } }

// WithGetenv sets how environment variables (server.api_keys_env, LLM API
// keys for readiness probes) are read; default os.LookupEnv.
func WithGetenv(getenv func(string) (string, bool)) Option {
	return func(s *Server) { s.getenv = getenv }
}

// WithReadinessTTL sets how long /readyz reuses its probe of the KG and
// the model endpoints (default 5 s; 0 probes on every call).
func WithReadinessTTL(d time.Duration) Option { return func(s *Server) { s.ready.ttl = d } }

// New builds the server for cfg over graph g. It fails when cfg.Addr is not
// a loopback address and no API key is configured.
func New(cfg config.Server, g kg.Graph, opts ...Option) (*Server, error) {
	if g == nil {
		return nil, errors.New("server: new: no knowledge graph")
	}
	s := &Server{cfg: cfg, graph: g, getenv: lookupEnv}
	s.ready.ttl = defaultReadyTTL
	for _, o := range opts {
		o(s)
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.metrics == nil {
		s.metrics = metrics.New()
	}
	if s.pinger == nil {
		c, err := llm.New(s.llmCfg, llm.WithGetenv(s.getenv), llm.WithLogger(s.log))
		if err != nil {
			s.pingErr = err
		} else {
			s.pinger = c
		}
	}
	s.keys = apiKeys(cfg, s.getenv)
	if err := CheckAddr(cfg.Addr, len(s.keys) > 0); err != nil {
		return nil, err
	}
	s.limiter = newLimiter(cfg.RateLimit, cfg.RateBurst)
	s.authFailures = newFailureLimiter()
	n := cfg.SPARQLConcurrency
	if n <= 0 {
		n = defaultSPARQLConcurrency
	}
	s.sparqlSlots = make(chan struct{}, n)
	s.sparqlGauges()
	maxAnswer := cfg.SPARQLMaxBytes
	if maxAnswer <= 0 {
		maxAnswer = defaultSPARQLMaxBytes
	}
	s.answers = newAnswerBudget(cfg.SPARQLAnswerBudget, maxAnswer, s.metrics.Registry())
	budgets := config.Default().Engine
	if s.engine != nil {
		if b, err := s.engine.Budgets(engine.Overrides{}); err == nil {
			budgets = b
		}
	}
	s.admission = newAdmission(cfg, s.llmCfg, budgets, s.metrics.Registry())
	s.handler = s.routes()
	return s, nil
}

// Handler is the server's http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Metrics returns the server's metrics.
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// routes registers every route; it is the one route table of the API.
func (s *Server) routes() *gin.Engine {
	r := gin.New()
	// No proxy is trusted: the rate limit keys anonymous clients by their
	// connection's address, which a forwarding header cannot change.
	_ = r.SetTrustedProxies(nil)
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	r.Use(s.requestID, s.observe, s.recovery, s.crossOrigin)
	r.NoRoute(func(c *gin.Context) {
		s.fail(c, errorf(http.StatusNotFound, "no such endpoint: %s", c.Request.URL.Path))
	})
	r.NoMethod(func(c *gin.Context) {
		s.fail(c, errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})
	// Every GET route answers HEAD too (net/http drops the body).
	get := func(g gin.IRoutes, path string, h gin.HandlerFunc) {
		g.GET(path, h)
		g.HEAD(path, h)
	}

	get(r, "/healthz", s.healthz)
	get(r, "/readyz", s.readyz)
	get(r, "/openapi.yaml", s.openapi)
	get(r, "/", s.uiIndex)
	get(r, "/ui/", s.uiIndex)
	get(r, "/ui/auth", s.uiAuth)
	get(r, "/ui/assets/*file", gin.WrapH(ui.Assets()))
	// A scraper has no share in the callers' rate limit.
	get(r.Group("/", s.authenticate), "/metrics", s.metricsHandler)

	p := r.Group("/", s.authenticate, s.rateLimit, s.limitBody, s.requireNonSimplePost)
	p.POST("/v1/ask", s.ask)
	p.POST("/v1/plan", s.plan)
	get(p, "/v1/entities", s.searchEntities)
	get(p, "/v1/entities/:id", s.entity)
	get(p, "/v1/models", s.models)
	p.POST("/v1/chat/completions", s.chatCompletions)
	get(p, "/sparql", s.sparql)
	p.POST("/sparql", s.sparql)
	get(p, "/ui/files/*path", s.uiFile)
	return r
}

// Defaults of the connection settings when unset.
const (
	defaultReadTimeout = 30 * time.Second
	defaultMaxConns    = 1024
)

// Serve serves on ln until ctx is done, then stops accepting connections
// and gives in-flight requests server.shutdown_grace to finish.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	readTimeout := s.cfg.ReadTimeout
	if readTimeout <= 0 {
		readTimeout = defaultReadTimeout
	}
	maxConns := s.cfg.MaxConns
	if maxConns <= 0 {
		maxConns = defaultMaxConns
	}
	// A client trickling its request is cut off by the read deadlines; the
	// connection cap stops a crowd of them from exhausting the process.
	ln = netutil.LimitListener(ln, maxConns)
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: min(10*time.Second, readTimeout),
		ReadTimeout:       readTimeout,
		IdleTimeout:       time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down", "grace", s.cfg.ShutdownGrace)
	grace := s.cfg.ShutdownGrace
	if grace <= 0 {
		grace = 30 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		hs.Close()
		return fmt.Errorf("server: shutdown: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// CheckAddr refuses to serve on an address other than loopback without an
// API key: the API spends model tokens and exposes the KG.
func CheckAddr(addr string, hasKeys bool) error {
	if hasKeys {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("server: server.addr %q: %w", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	return fmt.Errorf("server: server.addr %q is not a loopback address and no API key is configured: "+
		"set server.api_keys or server.api_keys_env (e.g. PAROG_SERVER_API_KEYS_ENV=PAROG_API_KEYS), or listen on 127.0.0.1", addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckConfig runs the start-up checks of New that need no KG: the API
// keys (server.api_keys, server.api_keys_env) and the address rule, so that
// a command can refuse to start before loading a graph.
func CheckConfig(cfg config.Server, getenv func(string) (string, bool)) error {
	if getenv == nil {
		getenv = lookupEnv
	}
	return CheckAddr(cfg.Addr, len(apiKeys(cfg, getenv)) > 0)
}
