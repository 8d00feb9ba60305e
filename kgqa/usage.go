package kgqa

import "time"

// Role names which configured endpoint serves a call.
type Role string

// The roles a call can be made in.
const (
	// Planner is the (fine-tuned) model that turns a question into a Plan.
	Planner Role = "planner"
	// Reasoner answers, filters relations, refines and judges sufficiency.
	Reasoner Role = "reasoner"
	// Teacher renders subgoals for sparql2plan.
	Teacher Role = "teacher"
)

// Stage names the step of the pipeline a call belongs to, for accounting.
type Stage string

// Call is the accounting record of one chat completion.
type Call struct {
	// Role that served the call.
	Role Role `json:"role"`
	// Stage the call belongs to.
	Stage Stage `json:"stage"`
	// Model is the model name sent to the endpoint.
	Model string `json:"model,omitempty"`
	// PromptTokens as reported by the endpoint (estimated when it reports
	// none).
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens as reported by the endpoint (estimated when it
	// reports none).
	CompletionTokens int `json:"completion_tokens"`
	// Estimated is true when the endpoint reported no usage and the token
	// counts are estimates (about four characters per token).
	Estimated bool `json:"estimated,omitempty"`
	// Latency is the wall time of the call's requests, retries and their
	// backoff included, waiting for a concurrency slot excluded (see Wait).
	Latency time.Duration `json:"latency_ns"`
	// Wait is the time spent waiting for a concurrency slot of the role
	// (llm.<role>.concurrency) before the first request.
	Wait time.Duration `json:"wait_ns,omitempty"`
	// Requests is the number of HTTP requests of the call that reached the
	// endpoint (written to its connection, or answered by a recording in
	// its place): retries and parameter fallbacks each add one; a call
	// whose endpoint could not be reached has none.
	Requests int `json:"requests,omitempty"`
	// Retries is the number of retried attempts.
	Retries int `json:"retries,omitempty"`
	// Fallbacks counts requests the endpoint rejected for a parameter it
	// does not take (see Capabilities), each resent without it.
	Fallbacks int `json:"fallbacks,omitempty"`
	// Err is the error text when the call failed.
	Err string `json:"error,omitempty"`
	// Start is when the call got its concurrency slot and began sending
	// (Wait earlier it was queued); zero when unknown. It places the call
	// on the question's timeline.
	Start time.Time `json:"-"`
}

// Tally sums a set of calls.
type Tally struct {
	// Calls is the number of calls, failed ones included.
	Calls int `json:"calls"`
	// Failed is the number of calls that ended in an error.
	Failed int `json:"failed,omitempty"`
	// PromptTokens is the sum of prompt tokens.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens is the sum of completion tokens.
	CompletionTokens int `json:"completion_tokens"`
	// TotalTokens is PromptTokens + CompletionTokens.
	TotalTokens int `json:"total_tokens"`
	// Retries is the sum of retried attempts.
	Retries int `json:"retries,omitempty"`
	// Fallbacks is the sum of requests resent without a parameter the
	// endpoint rejected.
	Fallbacks int `json:"fallbacks,omitempty"`
	// Latency is the summed wall time of the calls (not the elapsed time of
	// the question: calls may overlap).
	Latency time.Duration `json:"latency_ns"`
}

func (t *Tally) add(c Call) {
	t.Calls++
	if c.Err != "" {
		t.Failed++
	}
	t.PromptTokens += c.PromptTokens
	t.CompletionTokens += c.CompletionTokens
	t.TotalTokens += c.PromptTokens + c.CompletionTokens
	t.Retries += c.Retries
	t.Fallbacks += c.Fallbacks
	t.Latency += c.Latency
}

// LLMUsage summarises a ledger: totals, and the same per role and per stage.
type LLMUsage struct {
	Tally
	// ByRole breaks the totals down by role.
	ByRole map[Role]Tally `json:"by_role,omitempty"`
	// ByStage breaks the totals down by stage.
	ByStage map[Stage]Tally `json:"by_stage,omitempty"`
}

// SumCalls returns the totals of calls, per role and per stage as well.
func SumCalls(calls []Call) LLMUsage {
	var u LLMUsage
	for _, c := range calls {
		u.add(c)
	}
	return u
}

func (u *LLMUsage) add(c Call) {
	u.Tally.add(c)
	if u.ByRole == nil {
		u.ByRole = map[Role]Tally{}
		u.ByStage = map[Stage]Tally{}
	}
	r := u.ByRole[c.Role]
	r.add(c)
	u.ByRole[c.Role] = r
	s := u.ByStage[c.Stage]
	s.add(c)
	u.ByStage[c.Stage] = s
}
