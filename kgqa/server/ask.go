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
	"github.com/parog/parog-go/kgqa/kg"
)

// ask serves POST /v1/ask: one JSON answer, or NDJSON events with
// stream:true.
func (s *Server) ask(c *gin.Context) {
	serveQuestion(s, c, true, func(req api.AskRequest) (engine.Request, bool, error) {
		kreq, err := s.engineRequest(req)
		return kreq, req.Stream, err
	}, s.streamAsk, s.answerAsk)
}

// serveQuestion is the preamble of the handlers that answer a question
// (ask and chat): it decodes the body into a request R (strictly: unknown
// fields refused), validates it into the engine's request once (prepare,
// which also says whether to stream), admits it under its deadline, and
// streams it or runs it.
func serveQuestion[R any](s *Server, c *gin.Context, strict bool, prepare func(R) (engine.Request, bool, error), stream, run func(*gin.Context, engine.Request)) {
	var req R
	if err := decode(c, &req, strict); err != nil {
		s.fail(c, err)
		return
	}
	kreq, streaming, err := prepare(req)
	if err != nil {
		s.fail(c, err)
		return
	}
	release, ok := s.admit(c, kreq.Overrides.Deadline)
	if !ok {
		return
	}
	defer release()
	if streaming {
		stream(c, kreq)
		return
	}
	run(c, kreq)
}

// answerAsk runs an admitted /v1/ask and writes its one JSON answer.
func (s *Server) answerAsk(c *gin.Context, kreq engine.Request) {
	ans, err := s.runAsk(c.Request.Context(), kreq)
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
func (s *Server) runAsk(ctx context.Context, req engine.Request) (*kgqa.Answer, error) {
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
func (s *Server) engineRequest(req api.AskRequest) (engine.Request, error) {
	if err := s.checkQuestion(req.Question); err != nil {
		return engine.Request{}, err
	}
	if err := s.checkEngine(); err != nil {
		return engine.Request{}, err
	}
	if len(req.TopicEntities) > api.MaxTopicEntities {
		return engine.Request{}, errorf(http.StatusBadRequest, "topic_entities: at most %d allowed, got %d", api.MaxTopicEntities, len(req.TopicEntities))
	}
	d := s.graph.Dialect()
	for i, id := range req.TopicEntities {
		if !d.ValidEntity(id) {
			return engine.Request{}, errorf(http.StatusBadRequest, "topic_entities[%d]: %q is not a %s entity id", i, truncate(id, 64), d.Name())
		}
	}
	ov, err := s.overrides(req.Options)
	if err != nil {
		return engine.Request{}, err
	}
	return engine.Request{
		Question: strings.TrimSpace(req.Question), TopicEntities: req.TopicEntities,
		Overrides: ov, Seed: req.Seed,
	}, nil
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

// checkPlanText refuses, before the planner reads it, a question whose
// text no query may hold (kg.CheckText). /v1/ask leaves this to the
// engine, which checks before its first model call; /v1/plan calls the
// planner directly.
func checkPlanText(q string) error {
	if err := kg.CheckText(q); err != nil {
		return &httpError{status: http.StatusBadRequest, msg: "question: " + err.Error(), cause: err}
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

// overrides turns a request's options into the engine's overrides
// (overridesOf) and checks them against the engine's own merge (400 with
// the engine's reason). The question's deadline is the shorter of
// server.request_timeout and deadline_ms; the engine applies it, with its
// own engine.deadline, once.
func (s *Server) overrides(o *api.Options) (engine.Overrides, error) {
	ov, err := overridesOf(o, s.requestTimeout())
	if err != nil {
		return ov, err
	}
	if _, err := s.engine.Budgets(ov); err != nil {
		return ov, errorf(http.StatusBadRequest, "options.%s", strings.TrimPrefix(err.Error(), engine.ErrBadOverride.Error()+": "))
	}
	return ov, nil
}

// overridesOf maps the API's options to the engine's overrides, one field
// to one (TestOverridesOfMapsEveryField fails on a field of either left
// out), with the deadline timeout unless deadline_ms shortens it.
func overridesOf(o *api.Options, timeout time.Duration) (engine.Overrides, error) {
	ov := engine.Overrides{Deadline: &timeout}
	if o == nil {
		return ov, nil
	}
	ov.Width, ov.Depth, ov.MaxRounds = o.Width, o.Depth, o.MaxRounds
	ov.MaxEntitiesPerRelation, ov.MaxRelationsPerEntity = o.MaxEntitiesPerRelation, o.MaxRelationsPerEntity
	ov.Parallelism, ov.FuseSufficiency, ov.PlanTentatives = o.Parallelism, o.FuseSufficiency, o.PlanTentatives
	if o.DeadlineMS != nil {
		// Compared in milliseconds: a huge value would overflow a
		// Duration and read as already past.
		if *o.DeadlineMS < 1 || *o.DeadlineMS > timeout.Milliseconds() {
			return ov, errorf(http.StatusBadRequest, "options.deadline_ms must be between 1 and %d, got %d", timeout.Milliseconds(), *o.DeadlineMS)
		}
		d := time.Duration(*o.DeadlineMS) * time.Millisecond
		ov.Deadline = &d
	}
	return ov, nil
}

// requestTimeout is server.request_timeout, or its default.
func (s *Server) requestTimeout() time.Duration {
	if s.cfg.RequestTimeout > 0 {
		return s.cfg.RequestTimeout
	}
	return config.Default().Server.RequestTimeout
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
	if err := checkPlanText(req.Question); err != nil {
		s.fail(c, err)
		return
	}
	if err := s.checkEngine(); err != nil {
		s.fail(c, err)
		return
	}
	timeout := s.requestTimeout()
	release, ok := s.admit(c, &timeout)
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
	rp, packs := s.engine.RetrievalPlan(strings.TrimSpace(req.Question), plan)
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
