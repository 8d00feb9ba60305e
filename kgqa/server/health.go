package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
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
		public := api.HealthResponse{Status: resp.Status}
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
	roles := []llm.Role{"", llm.Planner, llm.Reasoner}
	var wg sync.WaitGroup
	for i := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			if i == 0 {
				checks[i].Status, checks[i].Detail = s.checkKG(ctx)
			} else {
				checks[i].Status, checks[i].Detail = s.checkLLM(ctx, eps[i])
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
	resp := api.HealthResponse{Status: "ok", Checks: checks}
	for _, ch := range checks {
		if ch.Status == "unavailable" {
			resp.Status = "unavailable"
		}
	}
	s.ready.at, s.ready.result = time.Now(), resp
	return resp
}

func (s *Server) capabilities(role llm.Role) (llm.Capabilities, bool) {
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
	probe := "m.0"
	if d.Name() == "wikidata" {
		probe = "Q1"
	}
	if _, err := s.graph.Name(ctx, probe); err != nil {
		s.log.Warn("readiness: kg", "error", err)
		return "unavailable", "knowledge graph (" + d.Name() + ") did not answer: " + classify(err).msg
	}
	return "ok", d.Name()
}

// checkLLM asks an endpoint for its models. Only configured URLs are
// probed; the detail names the setting, not the URL's secrets.
func (s *Server) checkLLM(ctx context.Context, ep config.Endpoint) (string, string) {
	if ep.BaseURL == "" {
		return "not_configured", ""
	}
	u := strings.TrimRight(ep.BaseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "unavailable", "bad base_url"
	}
	key := ep.APIKey
	if key == "" && ep.APIKeyEnv != "" {
		key, _ = s.getenv(ep.APIKeyEnv)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := s.probe.Do(req)
	if err != nil {
		s.log.Warn("readiness: llm", "model", ep.Model, "error", err)
		return "unavailable", fmt.Sprintf("model endpoint %s did not answer GET /models", hostOf(ep.BaseURL))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "unavailable", fmt.Sprintf("model endpoint %s answered GET /models with %d", hostOf(ep.BaseURL), resp.StatusCode)
	}
	return "ok", ep.Model + " at " + hostOf(ep.BaseURL)
}

// hostOf is the host of a URL, without credentials or path.
func hostOf(raw string) string {
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	return rest
}
