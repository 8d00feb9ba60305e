package server

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
)

// healthz serves GET /healthz: the process is up.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, api.HealthResponse{Status: "ok"})
}

// defaultReadyTTL is how long a readiness result is reused: a probe
// costs a request to every model endpoint.
const defaultReadyTTL = 5 * time.Second

// readiness caches the last readiness result.
type readiness struct {
	ttl    time.Duration
	mu     sync.Mutex
	at     time.Time
	result api.HealthResponse
}

// readyz serves GET /readyz: the KG answers a cheap query, every
// configured model endpoint answers GET /models, and questions can be
// asked (a reasoner is configured). The checks run at once, and their
// result is reused for a few seconds (WithReadinessTTL); any unavailable one makes the status 503.
// Only a caller with a valid API key sees the details (endpoint, model,
// capabilities, what failed); anyone else sees ok or not per component.
func (s *Server) readyz(c *gin.Context) {
	resp := s.readiness(c.Request.Context())
	if !s.authenticated(c) {
		public := api.HealthResponse{Status: resp.Status, Model: resp.Model}
		for _, ch := range resp.Checks {
			public.Checks = append(public.Checks, api.Check{Name: ch.Name, Status: ch.Status})
		}
		resp = public
	}
	status := http.StatusOK
	if resp.Status != "ok" {
		status = http.StatusServiceUnavailable
	}
	c.JSON(status, resp)
}

// readiness returns the cached result, probing again when it is older
// than its time to live. Callers arriving during a probe wait for its result.
func (s *Server) readiness(ctx context.Context) api.HealthResponse {
	s.ready.mu.Lock()
	defer s.ready.mu.Unlock()
	if !s.ready.at.IsZero() && time.Since(s.ready.at) < s.ready.ttl {
		return s.ready.result
	}
	// The probe does not depend on the caller that happened to trigger it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	checks := []api.Check{{Name: "kg"}, {Name: "llm.planner"}, {Name: "llm.reasoner"}}
	eps := []config.Endpoint{{}, s.llmCfg.Planner, s.llmCfg.Reasoner}
	roles := []kgqa.Role{"", kgqa.Planner, kgqa.Reasoner}
	var wg sync.WaitGroup
	for i := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			if i == 0 {
				checks[i].Status, checks[i].Detail = s.checkKG(ctx)
			} else {
				checks[i].Status, checks[i].Detail = s.checkLLM(ctx, roles[i], eps[i])
				if capa, ok := s.capabilities(roles[i]); ok {
					checks[i].Capabilities = capa.String()
				}
			}
			checks[i].LatencyMS = time.Since(start).Milliseconds()
		}()
	}
	wg.Wait()
	ask := api.Check{Name: "ask", Status: "ok", Detail: "questions are answered"}
	if err := s.checkEngine(); err != nil {
		ask.Status, ask.Detail = "unavailable", classify(err).msg
	}
	checks = append(checks, ask)
	resp := api.HealthResponse{Status: "ok", Checks: checks, Model: s.demo.Label}
	for _, ch := range checks {
		if ch.Status == "unavailable" {
			resp.Status = "unavailable"
		}
	}
	s.ready.at, s.ready.result = time.Now(), resp
	return resp
}

func (s *Server) capabilities(role kgqa.Role) (llm.Capabilities, bool) {
	if s.caps == nil || role == "" {
		return llm.Capabilities{}, false
	}
	return s.caps(role)
}

// checkKG looks up the name of an entity id of the dialect's shape: one
// indexed lookup on any backend (an unknown id is an empty answer, not an
// error).
func (s *Server) checkKG(ctx context.Context) (string, string) {
	d := s.graph.Dialect()
	if err := kg.Ping(ctx, s.graph); err != nil {
		s.log.Warn("readiness: kg", "error", err)
		return "unavailable", "knowledge graph (" + d.Name() + ") did not answer: " + classify(err).msg
	}
	return "ok", d.Name()
}

// checkLLM pings a role's endpoint (llm.Client.Ping: GET /models with the
// key calls use). Only configured URLs are probed; the detail names the
// endpoint's host, not the URL's secrets.
func (s *Server) checkLLM(ctx context.Context, role kgqa.Role, ep config.Endpoint) (string, string) {
	if ep.BaseURL == "" {
		return "not_configured", ""
	}
	if s.pinger == nil {
		return "unavailable", "model client: " + s.pingErr.Error()
	}
	if err := s.pinger.Ping(ctx, role); err != nil {
		s.log.Warn("readiness: llm", "model", ep.Model, "error", err)
		var pe *llm.PingError
		if errors.As(err, &pe) {
			return "unavailable", pe.Detail
		}
		return "unavailable", "model endpoint " + llm.HostOf(ep.BaseURL) + " did not answer GET /models"
	}
	return "ok", ep.Model + " at " + llm.HostOf(ep.BaseURL)
}
