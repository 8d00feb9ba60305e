// Package api is the public HTTP API of a PARoG server: the request and
// response types of every endpoint, and a Go client (Client) that speaks it.
// The server (kgqa/server) and the CLI (parog ask --server) both use these
// types, so what is documented here is what goes over the wire.
package api

import (
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// AskRequest is the body of POST /v1/ask.
type AskRequest struct {
	// Question is the natural-language question (required, at most the
	// server's max_question_len characters).
	Question string `json:"question"`
	// TopicEntities are entity ids in the KG's dialect ("m.0f8l9c",
	// "Q142") to start from; empty lets the engine link them from the
	// question.
	TopicEntities []string `json:"topic_entities,omitempty"`
	// Options overrides reasoning budgets for this question; nil keeps the
	// server's.
	Options *Options `json:"options,omitempty"`
	// Seed, when set, is sent to the models as the sampling seed.
	Seed *int `json:"seed,omitempty"`
	// Stream asks for one NDJSON line (an Event) per engine step instead of
	// one JSON response.
	Stream bool `json:"stream,omitempty"`
}

// Options are per-question reasoning budgets. A nil field keeps the
// server's configured value; a value outside the documented range is a 400.
type Options struct {
	// Width is the number of entities kept per subgoal after pruning
	// (1..MaxWidth).
	Width *int `json:"width,omitempty"`
	// Depth is the number of hops explored per subgoal (1..MaxDepth).
	Depth *int `json:"depth,omitempty"`
	// MaxRounds is the number of exploration rounds per subgoal
	// (1..MaxRounds).
	MaxRounds *int `json:"max_rounds,omitempty"`
	// MaxEntitiesPerRelation caps the facts kept per (entity, relation)
	// pair (1..MaxEntitiesPerRelation).
	MaxEntitiesPerRelation *int `json:"max_entities_per_relation,omitempty"`
	// MaxRelationsPerEntity caps the relations chosen per anchor entity
	// (1..MaxRelationsPerEntity).
	MaxRelationsPerEntity *int `json:"max_relations_per_entity,omitempty"`
	// Parallelism is the number of independent subgoals run at once
	// (1..MaxParallelism).
	Parallelism *int `json:"parallelism,omitempty"`
	// FuseSufficiency asks the sufficiency question inside the refine call.
	FuseSufficiency *bool `json:"fuse_sufficiency,omitempty"`
	// PlanTentatives asks the planner for the find subgoals' tentative
	// answers inside the plan reply, saving a call per find subgoal.
	PlanTentatives *bool `json:"plan_tentatives,omitempty"`
	// DeadlineMS is the question's deadline in milliseconds; it can only
	// shorten the server's request timeout.
	DeadlineMS *int64 `json:"deadline_ms,omitempty"`
}

// Upper bounds of Options and of other request fields, so that one request
// cannot ask for unbounded work.
const (
	MaxWidth                 = kgqa.MaxWidth
	MaxDepth                 = kgqa.MaxDepth
	MaxRounds                = kgqa.MaxRounds
	MaxEntitiesPerRelation   = kgqa.MaxEntitiesPerRelation
	MaxRelationsPerEntity    = kgqa.MaxRelationsPerEntity
	MaxParallelism           = kgqa.MaxParallelism
	MaxTopicEntities         = 16
	MaxSearchLimit           = 100
	DefaultSearchLimit       = 10
	MaxEntityRelationsListed = 500
)

// Wire constants.
const (
	// ChatModel is the model name of the OpenAI-compatible endpoint.
	ChatModel = "parog"
	// RequestIDHeader carries the request id in both directions: a
	// well-formed id sent by the client is kept, otherwise one is made.
	RequestIDHeader = "X-Request-ID"
	// NDJSONContentType is the content type of a streamed /v1/ask.
	NDJSONContentType = "application/x-ndjson"
	// SPARQLResultsContentType is the content type of /sparql results.
	SPARQLResultsContentType = "application/sparql-results+json"
)

// AskResponse is the body of a successful POST /v1/ask, and the Answer of
// the final stream event.
type AskResponse struct {
	// RequestID is the server's id of the request (also in the
	// X-Request-ID header), for finding it in the server's log.
	RequestID string `json:"request_id,omitempty"`
	// Question as asked.
	Question string `json:"question"`
	// Answer is the answer in words ("" when none was reached).
	Answer string `json:"answer"`
	// Entities are the answer's terms: entities (id and name) or typed
	// literals (name holds the value, datatype its type).
	Entities []kgqa.Term `json:"entities"`
	// Plan is the plan that was executed (nil when planning failed).
	Plan *kgqa.Plan `json:"plan,omitempty"`
	// Certificate is the SPARQL query that reproduces the answer from the
	// KG, whether the engine verified it, and how much of the answer it
	// covers.
	Certificate *kgqa.Certificate `json:"certificate,omitempty"`
	// Trace says how the answer was reached.
	Trace Trace `json:"trace"`
	// Usage is the cost of the question (LLM calls and tokens per role and
	// stage, SPARQL queries, cache hits, wall time).
	Usage kgqa.Usage `json:"usage"`
}

// Trace is the engine's record of one question.
type Trace struct {
	// Rewrite records how a chat's last message became the question
	// answered (its verdict is the reason tag); nil for a single question.
	Rewrite *kgqa.Rewrite `json:"rewrite,omitempty"`
	// PlanInfo says how the plan was obtained.
	PlanInfo kgqa.PlanInfo `json:"plan_info"`
	// Topics are the topic entities used and where they came from.
	Topics []kgqa.Topic `json:"topic_entities"`
	// Mentions reports entity linking when topics were not given.
	Mentions []kgqa.Mention `json:"mentions,omitempty"`
	// RetrievalPlan is the question's route (kg, direct, boundary), its
	// category tags and the reason for the route; each subgoal's pack is
	// in its record.
	RetrievalPlan *retrieval.Plan `json:"retrieval_plan,omitempty"`
	// Subgoals holds one record per plan subgoal, in plan order.
	Subgoals []*kgqa.SubgoalRecord `json:"subgoals"`
	// Final is set when the answer came from a sufficiency or final-answer
	// call rather than the answer subgoal's result.
	Final *kgqa.FinalRecord `json:"final,omitempty"`
	// TentativeAnswer is the question's parametric answer composed from
	// the subgoals' tentative answers (see kgqa.TentativeAnswer).
	TentativeAnswer *kgqa.TentativeAnswer `json:"tentative_answer,omitempty"`
	// Stop says why the engine stopped.
	Stop kgqa.StopReason `json:"stop_reason"`
	// Error is the engine's error text when it stopped early.
	Error string `json:"error,omitempty"`
	// Transcript is every model call's messages and reply and every SPARQL
	// query, when the server traces prompts (engine.trace_prompts).
	Transcript *kgqa.Transcript `json:"transcript,omitempty"`
	// Prompts names the prompt template set that answered.
	Prompts string `json:"prompts,omitempty"`
	// Recoveries are the judgements the engine revisited (kgqa.Recovery).
	Recoveries []kgqa.Recovery `json:"recoveries,omitempty"`
}

// FromAnswer converts the engine's answer into the API shape.
func FromAnswer(a *kgqa.Answer) *AskResponse {
	if a == nil {
		return nil
	}
	return &AskResponse{
		Question: a.Question, Answer: a.Text, Entities: a.Entities, Plan: a.Plan, Certificate: a.Certificate,
		Trace: Trace{
			Rewrite: a.Rewrite, PlanInfo: a.PlanInfo, Topics: a.Topics, Mentions: a.Mentions, RetrievalPlan: a.RetrievalPlan,
			Subgoals: a.Subgoals, Final: a.Final, TentativeAnswer: a.TentativeAnswer,
			Stop: a.Stop, Error: a.Error, Transcript: a.Transcript, Prompts: a.Prompts, Recoveries: a.Recoveries,
		},
		Usage: a.Usage,
	}
}

// EngineAnswer converts r back into the engine's Answer, for printing it
// the way `parog ask` prints a local answer.
func (r *AskResponse) EngineAnswer() *kgqa.Answer {
	return &kgqa.Answer{
		Question: r.Question, Text: r.Answer, Entities: r.Entities, Plan: r.Plan,
		Rewrite: r.Trace.Rewrite, PlanInfo: r.Trace.PlanInfo, Topics: r.Trace.Topics, Mentions: r.Trace.Mentions, RetrievalPlan: r.Trace.RetrievalPlan,
		Subgoals: r.Trace.Subgoals, Final: r.Trace.Final, TentativeAnswer: r.Trace.TentativeAnswer, Stop: r.Trace.Stop,
		Error: r.Trace.Error, Usage: r.Usage, Certificate: r.Certificate, Transcript: r.Trace.Transcript, Prompts: r.Trace.Prompts,
		Recoveries: r.Trace.Recoveries,
	}
}

// Event is one line of a streamed /v1/ask response (NDJSON: one JSON object
// per line, in the order the steps happen). It is the engine's event
// (answer.Event: type, seq, elapsed_ms, subgoal and the step's payload) with
// the final answer in the API shape, or, as the last line of a stream that
// failed after it began, an error.
type Event struct {
	kgqa.Event
	// Answer is set on the final event (type "final").
	Answer *AskResponse `json:"answer,omitempty"`
	// Error is set on the error event (type "error"): the status the
	// request would have had, had the failure happened before the first
	// line, and the partial answer when the question ran out of time.
	Error *Error `json:"error,omitempty"`
}

// The stream event types the server adds to the engine's own
// (answer.EventPlan, answer.EventSubgoalStarted, ..., answer.EventFinal).
const (
	// EventError is the last line of a stream that failed after it began.
	EventError kgqa.EventType = "error"
)

// PlanRequest is the body of POST /v1/plan.
type PlanRequest struct {
	// Question is the natural-language question (required).
	Question string `json:"question"`
}

// PlanResponse is the body of a successful POST /v1/plan.
type PlanResponse struct {
	// RequestID is the server's id of the request.
	RequestID string `json:"request_id,omitempty"`
	// Question as asked.
	Question string `json:"question"`
	// Plan is the validated plan.
	Plan *kgqa.Plan `json:"plan"`
	// PlanInfo says how it was obtained (planner or reasoner few-shot).
	PlanInfo *kgqa.PlanInfo `json:"plan_info,omitempty"`
	// RetrievalPlan is the route and category tags the engine would
	// follow (before linking: kg or direct).
	RetrievalPlan *retrieval.Plan `json:"retrieval_plan,omitempty"`
	// RetrievalPacks are the subgoals' parameter packs, by subgoal id.
	RetrievalPacks map[string]retrieval.Pack `json:"retrieval_packs,omitempty"`
	// Usage is the LLM cost of planning.
	Usage *kgqa.Usage `json:"usage,omitempty"`
}

// EntityResponse is the body of GET /v1/entities/{id}.
type EntityResponse struct {
	// ID is the entity id in the KG's dialect.
	ID string `json:"id"`
	// Name is the entity's name ("" for a nameless mediator node or an id
	// the KG does not know).
	Name string `json:"name"`
	// Relations are the entity's relations, outgoing and incoming, noise
	// removed (at most MaxEntityRelationsListed).
	Relations []kgqa.Relation `json:"relations"`
	// Truncated is true when Relations was cut to the cap.
	Truncated bool `json:"truncated,omitempty"`
}

// SearchResponse is the body of GET /v1/entities?name=...
type SearchResponse struct {
	// Name is the name searched for.
	Name string `json:"name"`
	// Entities are the matches, best first.
	Entities []kgqa.Entity `json:"entities"`
}

// HealthResponse is the body of GET /healthz and GET /readyz.
type HealthResponse struct {
	// Status is "ok" or "unavailable".
	Status string `json:"status"`
	// Checks are the dependency checks (readyz only), in a fixed order.
	Checks []Check `json:"checks,omitempty"`
	// Model says what answers questions when it is not a configured
	// language model ("scripted demo model: answers the demo questions");
	// empty otherwise (readyz only).
	Model string `json:"model,omitempty"`
}

// Check is the outcome of one readiness check.
type Check struct {
	// Name is the dependency: "kg", "llm.planner", "llm.reasoner".
	Name string `json:"name"`
	// Status is "ok", "unavailable" or "not_configured".
	Status string `json:"status"`
	// Detail says what failed, or what endpoint was checked.
	Detail string `json:"detail,omitempty"`
	// Capabilities says, for a model endpoint, how JSON replies are asked
	// for and which request parameters it takes, as learned from what it
	// rejected so far (for example "response_format json_object,
	// max_tokens").
	Capabilities string `json:"capabilities,omitempty"`
	// LatencyMS is how long the check took.
	LatencyMS int64 `json:"latency_ms"`
}

// ErrorResponse is the one error shape of every endpoint except
// /v1/chat/completions (which answers in OpenAI's error shape so that
// OpenAI SDKs can read it).
type ErrorResponse struct {
	// Error says what went wrong, in words meant for the caller.
	Error string `json:"error"`
	// RequestID is the server's id of the request.
	RequestID string `json:"request_id,omitempty"`
	// Partial is the partial answer when a question ran out of time (504).
	Partial *AskResponse `json:"partial,omitempty"`
	// Usage is what a question of /v1/ask cost before it failed (model
	// calls and tokens, SPARQL queries), in the shape of a successful
	// answer's usage; absent when the request failed before the engine
	// ran.
	Usage *kgqa.Usage `json:"usage,omitempty"`
}
