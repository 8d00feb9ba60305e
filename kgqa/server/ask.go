package server

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
)

// ask serves POST /v1/ask: one JSON answer, or NDJSON events with
// stream:true.
func (s *Server) ask(c *gin.Context) {
	var req api.AskRequest
	if err := decode(c, &req, true); err != nil {
		s.fail(c, err)
		return
	}
	kreq, timeout, err := s.engineRequest(req)
	if err != nil {
		s.fail(c, err)
		return
	}
	release, ok := s.admit(c)
	if !ok {
		return
	}
	defer release()
	if req.Stream {
		s.streamAsk(c, kreq, timeout)
		return
	}
	ans, err := s.runAsk(c.Request.Context(), kreq, timeout)
	if err != nil {
		s.fail(c, s.askError(c, ans, err))
		return
	}
	resp := api.FromAnswer(ans)
	resp.RequestID = requestIDOf(c)
	c.JSON(http.StatusOK, resp)
}

// runAsk asks the engine under the request's deadline and records the
// outcome in the metrics.
func (s *Server) runAsk(ctx context.Context, req engine.Request, timeout time.Duration) (*kgqa.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := s.engine.Ask(ctx, req)
	s.metrics.ObserveAnswer(ans)
	return ans, err
}

// askError attaches what the question cost before it failed (the model
// calls and tokens already spent are billed all the same) and, to a
// deadline error (504), the partial answer.
func (s *Server) askError(c *gin.Context, ans *kgqa.Answer, err error) error {
	he := classify(err)
	if ans == nil {
		return he
	}
	out := *he
	usage := ans.Usage
	out.usage = &usage
	if he.status == http.StatusGatewayTimeout {
		out.partial = api.FromAnswer(ans)
		out.partial.RequestID = requestIDOf(c)
	}
	return &out
}

// engineRequest validates req once and turns it into the engine's request
// and the question's deadline.
func (s *Server) engineRequest(req api.AskRequest) (engine.Request, time.Duration, error) {
	if err := s.checkQuestion(req.Question); err != nil {
		return engine.Request{}, 0, err
	}
	if err := s.checkEngine(); err != nil {
		return engine.Request{}, 0, err
	}
	if len(req.TopicEntities) > api.MaxTopicEntities {
		return engine.Request{}, 0, errorf(http.StatusBadRequest, "topic_entities: at most %d allowed, got %d", api.MaxTopicEntities, len(req.TopicEntities))
	}
	d := s.graph.Dialect()
	for i, id := range req.TopicEntities {
		if !d.ValidEntity(id) {
			return engine.Request{}, 0, errorf(http.StatusBadRequest, "topic_entities[%d]: %q is not a %s entity id", i, truncate(id, 64), d.Name())
		}
	}
	budgets, timeout, err := s.applyOptions(req.Options)
	if err != nil {
		return engine.Request{}, 0, err
	}
	return engine.Request{
		Question: strings.TrimSpace(req.Question), TopicEntities: req.TopicEntities,
		Budgets: &budgets, Seed: req.Seed,
	}, timeout, nil
}

// checkQuestion enforces a non-empty question within server.max_question_len.
func (s *Server) checkQuestion(q string) error {
	if strings.TrimSpace(q) == "" {
		return errorf(http.StatusBadRequest, "question is required")
	}
	max := s.cfg.MaxQuestionLen
	if max <= 0 {
		max = config.Default().Server.MaxQuestionLen
	}
	if n := utf8.RuneCountInString(q); n > max {
		return errorf(http.StatusBadRequest, "question is %d characters long, at most %d allowed", n, max)
	}
	return nil
}

// checkEngine answers 503, naming the settings, when no model is
// configured to reason with.
func (s *Server) checkEngine() error {
	if s.engine == nil || s.llmCfg.Reasoner.BaseURL == "" {
		return &httpError{status: http.StatusServiceUnavailable, msg: noLLMMessage, cause: kgqa.ErrModelNotConfigured}
	}
	return nil
}

// applyOptions merges per-request budgets over the server's, within the
// bounds of package api, and returns the question's deadline: the
// shortest of server.request_timeout, engine.deadline and deadline_ms.
func (s *Server) applyOptions(o *api.Options) (config.Engine, time.Duration, error) {
	b := s.budgets
	timeout := s.cfg.RequestTimeout
	if timeout <= 0 {
		timeout = config.Default().Server.RequestTimeout
	}
	if b.Deadline > 0 && b.Deadline < timeout {
		timeout = b.Deadline
	}
	if o != nil {
		for _, f := range []struct {
			name string
			v    *int
			max  int
			dst  *int
		}{
			{"width", o.Width, api.MaxWidth, &b.Width},
			{"depth", o.Depth, api.MaxDepth, &b.Depth},
			{"max_rounds", o.MaxRounds, api.MaxRounds, &b.MaxRounds},
			{"max_entities_per_relation", o.MaxEntitiesPerRelation, api.MaxEntitiesPerRelation, &b.MaxEntitiesPerRelation},
			{"max_relations_per_entity", o.MaxRelationsPerEntity, api.MaxRelationsPerEntity, &b.MaxRelationsPerEntity},
			{"parallelism", o.Parallelism, api.MaxParallelism, &b.Parallelism},
		} {
			if f.v == nil {
				continue
			}
			if *f.v < 1 || *f.v > f.max {
				return b, 0, errorf(http.StatusBadRequest, "options.%s must be between 1 and %d, got %d", f.name, f.max, *f.v)
			}
			*f.dst = *f.v
		}
		if o.FuseSufficiency != nil {
			b.FuseSufficiency = *o.FuseSufficiency
		}
		if o.DeadlineMS != nil {
			// Compared in milliseconds: a huge value would overflow a
			// Duration and read as already past.
			if *o.DeadlineMS < 1 || *o.DeadlineMS > timeout.Milliseconds() {
				return b, 0, errorf(http.StatusBadRequest, "options.deadline_ms must be between 1 and %d, got %d", timeout.Milliseconds(), *o.DeadlineMS)
			}
			timeout = time.Duration(*o.DeadlineMS) * time.Millisecond
		}
	}
	b.Deadline = timeout
	return b, timeout, nil
}

// plan serves POST /v1/plan.
func (s *Server) plan(c *gin.Context) {
	var req api.PlanRequest
	if err := decode(c, &req, true); err != nil {
		s.fail(c, err)
		return
	}
	if err := s.checkQuestion(req.Question); err != nil {
		s.fail(c, err)
		return
	}
	if err := s.checkEngine(); err != nil {
		s.fail(c, err)
		return
	}
	_, timeout, err := s.applyOptions(nil)
	if err != nil {
		s.fail(c, err)
		return
	}
	release, ok := s.admit(c)
	if !ok {
		return
	}
	defer release()
	ledger := kgqa.NewLedger()
	ctx, cancel := context.WithTimeout(kgqa.WithLedger(c.Request.Context(), ledger), timeout)
	defer cancel()
	start := time.Now()
	plan, info, err := s.engine.Plan(ctx, strings.TrimSpace(req.Question))
	if err != nil {
		s.fail(c, err)
		return
	}
	rp, packs, err := s.engine.RetrievalPlan(strings.TrimSpace(req.Question), plan)
	if err != nil {
		s.fail(c, err)
		return
	}
	usage := kgqa.Usage{LLM: ledger.Summary(), WallMS: time.Since(start).Milliseconds()}
	c.JSON(http.StatusOK, api.PlanResponse{
		RequestID: requestIDOf(c), Question: req.Question, Plan: plan, PlanInfo: &info,
		RetrievalPlan: rp, RetrievalPacks: packs, Usage: &usage,
	})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
