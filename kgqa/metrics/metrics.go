// Package metrics is the program's Prometheus metrics: HTTP requests,
// model calls (requests that reached the endpoint, tokens, call duration
// and the wait for a concurrency slot, apart), KG queries and cache hits,
// and questions by stop reason. The program wires them once, for every
// command; parog serve serves them at /metrics.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/parog/parog-go/kgqa"
)

// Metrics are the Prometheus metrics of the program, in a registry of
// their own (so that several servers can live in one process, as in
// tests).
type Metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	inFlight   prometheus.Gauge
	llmCalls   *prometheus.CounterVec
	llmTokens  *prometheus.CounterVec
	llmLatency *prometheus.HistogramVec
	llmWait    *prometheus.HistogramVec
	llmReqs    *prometheus.CounterVec
	sparql     prometheus.Counter
	sparqlTime *prometheus.HistogramVec
	cacheHits  prometheus.Counter
	cacheMiss  prometheus.Counter
	questions  *prometheus.CounterVec
	handler    http.Handler
	// The series a model call adds to, each looked up once (six label
	// lookups a call made a question's calls cost 1.5% of the server's
	// CPU); a series still appears at its first use, as with
	// WithLabelValues.
	callsBy sync.Map // llmKey{role, stage, outcome} -> prometheus.Counter
	waitBy  sync.Map // role -> prometheus.Observer
	sentBy  sync.Map // llmKey{role, stage} -> *sentSeries
}

type llmKey struct{ role, stage, outcome string }

// sentSeries are the series of the calls of one role and stage that
// reached the endpoint.
type sentSeries struct {
	reqs, prompt, completion prometheus.Counter
	latency                  prometheus.Observer
}

// cached is m's value for k, made by mk the first time.
func cached[K comparable, V any](m *sync.Map, k K, mk func() V) V {
	if v, ok := m.Load(k); ok {
		return v.(V)
	}
	v, _ := m.LoadOrStore(k, mk())
	return v.(V)
}

// New registers the metrics, with the Go runtime and process collectors,
// in a new registry.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parog_http_requests_total", Help: "HTTP requests by route, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "parog_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"route", "method"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "parog_http_in_flight_requests", Help: "HTTP requests being served.",
		}),
		llmCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parog_llm_calls_total",
			Help: "LLM chat calls by role, stage and outcome: ok, error (reached the endpoint and failed) or unsent (cancelled before a request reached it).",
		}, []string{"role", "stage", "outcome"}),
		llmReqs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parog_llm_requests_total",
			Help: "HTTP requests that reached an LLM endpoint, by role and stage (retries, parameter fallbacks and repair turns each count).",
		}, []string{"role", "stage"}),
		llmTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parog_llm_tokens_total", Help: "LLM tokens by role, stage and kind (prompt or completion).",
		}, []string{"role", "stage", "kind"}),
		llmLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "parog_llm_call_duration_seconds",
			Help:    "LLM call latency by role and stage, from the first request to the reply (retries included, waiting for a concurrency slot excluded); calls that never reached the endpoint are left out.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"role", "stage"}),
		llmWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "parog_llm_slot_wait_seconds",
			Help:    "Time LLM calls waited for a concurrency slot of their role (llm.<role>.concurrency), by role; calls cancelled while waiting included.",
			Buckets: []float64{.001, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"role"}),
		sparql: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "parog_sparql_queries_total", Help: "SPARQL queries sent to the KG backend.",
		}),
		sparqlTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "parog_sparql_query_duration_seconds",
			Help:    "SPARQL query latency as the client saw it, by kind (relations, relations-batch, neighbors, neighbors-batch, names, mediators, name, search-*, count, linked, select, statements); failed queries included.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"kind"}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "parog_kg_cache_hits_total", Help: "KG primitive calls answered from the cache.",
		}),
		cacheMiss: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "parog_kg_cache_misses_total", Help: "KG primitive calls that went to the backend.",
		}),
		questions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parog_questions_total", Help: "Questions answered, by stop reason.",
		}, []string{"stop_reason"}),
	}
	reg.MustRegister(m.requests, m.latency, m.inFlight, m.llmCalls, m.llmReqs, m.llmTokens, m.llmLatency, m.llmWait,
		m.sparql, m.sparqlTime, m.cacheHits, m.cacheMiss, m.questions,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	return m
}

// Registry is the registry the metrics live in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveLLM records one LLM call; pass it to llm.WithObserver.
func (m *Metrics) ObserveLLM(c kgqa.Call) {
	role, stage := string(c.Role), string(c.Stage)
	outcome := "ok"
	switch {
	case c.Requests == 0:
		outcome = "unsent"
	case c.Err != "":
		outcome = "error"
	}
	cached(&m.callsBy, llmKey{role, stage, outcome}, func() prometheus.Counter {
		return m.llmCalls.WithLabelValues(role, stage, outcome)
	}).Inc()
	cached(&m.waitBy, role, func() prometheus.Observer { return m.llmWait.WithLabelValues(role) }).Observe(c.Wait.Seconds())
	if c.Requests == 0 {
		return
	}
	s := cached(&m.sentBy, llmKey{role: role, stage: stage}, func() *sentSeries {
		return &sentSeries{
			reqs:       m.llmReqs.WithLabelValues(role, stage),
			prompt:     m.llmTokens.WithLabelValues(role, stage, "prompt"),
			completion: m.llmTokens.WithLabelValues(role, stage, "completion"),
			latency:    m.llmLatency.WithLabelValues(role, stage),
		}
	})
	s.reqs.Add(float64(c.Requests))
	s.prompt.Add(float64(c.PromptTokens))
	s.completion.Add(float64(c.CompletionTokens))
	s.latency.Observe(c.Latency.Seconds())
}

// ObserveKG adds KG work: queries sent, and cache hits and misses.
func (m *Metrics) ObserveKG(queries, hits, misses int64) {
	m.sparql.Add(float64(queries))
	m.cacheHits.Add(float64(hits))
	m.cacheMiss.Add(float64(misses))
}

// ObserveKGQueries records the latency of each query of u by kind (u may
// be nil).
func (m *Metrics) ObserveKGQueries(u *kgqa.KGUsage) {
	if u == nil {
		return
	}
	for _, q := range u.Queries {
		m.sparqlTime.WithLabelValues(q.Kind).Observe(q.MS / 1000)
	}
}

// ObserveAnswer records a question's stop reason and the KG work the
// engine counted for it (the engine keeps its own per-question counts).
func (m *Metrics) ObserveAnswer(a *kgqa.Answer) {
	if a == nil {
		return
	}
	stop := string(a.Stop)
	if stop == "" {
		stop = "unknown"
	}
	m.questions.WithLabelValues(stop).Inc()
	m.ObserveKG(a.Usage.SPARQLQueries, a.Usage.CacheHits, a.Usage.CacheMisses)
	m.ObserveKGQueries(a.Usage.KG)
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler { return m.handler }

// RequestStarted counts an HTTP request in flight; RequestDone ends it.
func (m *Metrics) RequestStarted() { m.inFlight.Inc() }

// RequestDone records an HTTP request that ended with code after d, by
// its route template and method.
func (m *Metrics) RequestDone(route, method string, code int, d time.Duration) {
	m.inFlight.Dec()
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route, method).Observe(d.Seconds())
}
