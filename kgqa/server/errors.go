package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
)

// statusClientClosed is logged (never sent: nobody listens) when the client
// went away before the answer.
const statusClientClosed = 499

// noLLMMessage names the settings that make /v1/ask work.
const noLLMMessage = "no language model is configured: set llm.reasoner.base_url (PAROG_LLM_REASONER_BASE_URL) " +
	"and llm.reasoner.model (PAROG_LLM_REASONER_MODEL), e.g. --config configs/llm-ollama.yaml after the KG's config; optionally llm.planner.base_url and llm.planner.model for a fine-tuned planner. " +
	"Without a model, parog serve on the demo graph (make run) answers the demo questions with a scripted demo model"

// httpError is an error with the status it maps to and the message the
// caller sees. Handlers return it for what they reject themselves.
type httpError struct {
	status     int
	msg        string
	retryAfter int
	partial    *api.AskResponse
	usage      *kgqa.Usage
	cause      error
}

func (e *httpError) Error() string { return e.msg }

func (e *httpError) Unwrap() error { return e.cause }

func errorf(status int, format string, a ...any) *httpError {
	return &httpError{status: status, msg: fmt.Sprintf(format, a...)}
}

// classify maps an error of any layer to its status and public message.
// Internal failures get a generic message; the cause is logged by fail.
func classify(err error) *httpError {
	var he *httpError
	if errors.As(err, &he) {
		return he
	}
	var mbe *http.MaxBytesError
	var se *engine.StepError
	step := ""
	if errors.As(err, &se) {
		step = " (step " + se.Stage
		if se.Subgoal != "" {
			step += " of subgoal " + se.Subgoal
		}
		step += ")"
	}
	wrap := func(status int, msg string) *httpError {
		return &httpError{status: status, msg: msg, cause: err}
	}
	switch {
	case errors.As(err, &mbe):
		return wrap(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit))
	case errors.Is(err, engine.ErrEmptyQuestion):
		return wrap(http.StatusBadRequest, "question is empty")
	case errors.Is(err, engine.ErrBadTopic):
		return wrap(http.StatusBadRequest, err.Error())
	case errors.Is(err, engine.ErrNoTopicEntities):
		return wrap(http.StatusUnprocessableEntity, "no topic entity was given or could be linked from the question; pass topic_entities")
	case errors.Is(err, kg.ErrInvalidText):
		return wrap(http.StatusBadRequest, "text not accepted"+step+": "+err.Error())
	case errors.Is(err, kg.ErrQuery):
		// A query the server built (a lookup, an engine step) was refused
		// by the KG: an upstream failure, whose text (the endpoint's error
		// page) stays in the log. A client's own /sparql query is answered
		// by the handler with the reason.
		return wrap(http.StatusBadGateway, "knowledge graph rejected a query"+step)
	case errors.Is(err, kg.ErrEndpoint):
		return wrap(http.StatusBadGateway, "knowledge graph failed on a query"+step)
	case errors.Is(err, kg.ErrTooLarge):
		return wrap(http.StatusUnprocessableEntity, "knowledge graph result too large"+step)
	case errors.Is(err, kg.ErrUnavailable), errors.Is(err, kg.ErrBadResponse):
		return wrap(http.StatusServiceUnavailable, "knowledge graph unavailable"+step)
	case errors.Is(err, kgqa.ErrModelNotConfigured):
		return wrap(http.StatusServiceUnavailable, noLLMMessage)
	case errors.Is(err, kgqa.ErrModelUnavailable):
		he := wrap(http.StatusServiceUnavailable, "language model unavailable"+step)
		if d, limited := llm.RetryAfter(err); limited {
			he.msg = "language model rate-limited" + step
			he.retryAfter = max(1, int(math.Ceil(d.Seconds())))
		}
		return he
	case errors.Is(err, kgqa.ErrModelRejected):
		return wrap(http.StatusBadGateway, "language model rejected the request"+step)
	case errors.Is(err, kgqa.ErrSchema), errors.Is(err, kgqa.ErrInvalidPlan):
		return wrap(http.StatusBadGateway, "language model reply unusable"+step+": "+reason(err))
	case errors.Is(err, context.DeadlineExceeded):
		return wrap(http.StatusGatewayTimeout, "deadline exceeded before the answer was complete"+step)
	case errors.Is(err, context.Canceled):
		return wrap(statusClientClosed, "request canceled")
	}
	return wrap(http.StatusInternalServerError, "internal error")
}

// reason is why a model reply was refused: the schema error's reason, or
// the plan validation message.
func reason(err error) string {
	var se *kgqa.SchemaError
	if errors.As(err, &se) {
		return se.Reason
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if errors.Unwrap(e) == kgqa.ErrInvalidPlan {
			return e.Error()
		}
	}
	return "unexpected reply"
}

// fail writes err in the one error shape (OpenAI's on the chat endpoint),
// with the request id, and logs it: at error level with the cause for 5xx,
// at info level otherwise.
func (s *Server) fail(c *gin.Context, err error) {
	he := classify(err)
	rid := requestIDOf(c)
	c.Set(ctxError, he)
	level, cause := s.log.Info, ""
	if he.cause != nil {
		cause = he.cause.Error()
	}
	if he.status >= 500 {
		level = s.log.Error
	}
	level("request failed", "request_id", rid, "status", he.status, "route", c.FullPath(), "error", he.msg, "cause", cause)
	if he.status == statusClientClosed || c.Writer.Written() {
		c.Abort()
		return
	}
	if he.retryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(he.retryAfter))
	}
	if c.FullPath() == "/v1/chat/completions" {
		c.AbortWithStatusJSON(he.status, openAIError(he))
		return
	}
	c.AbortWithStatusJSON(he.status, api.ErrorResponse{Error: he.msg, RequestID: rid, Partial: he.partial, Usage: he.usage})
}

// openAIError is the error shape OpenAI SDKs parse.
func openAIError(he *httpError) gin.H {
	typ := "server_error"
	switch {
	case he.status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case he.status == http.StatusUnauthorized:
		typ = "authentication_error"
	case he.status < 500:
		typ = "invalid_request_error"
	}
	return gin.H{"error": gin.H{"message": he.msg, "type": typ, "code": http.StatusText(he.status)}}
}
