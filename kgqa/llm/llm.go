// Package llm is PARoG's OpenAI-compatible chat client: separately
// configured roles (planner, reasoner, teacher), retries, strict JSON output
// with one repair turn, and per-question accounting of every call.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

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

// Message is one chat message.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// Request is one chat completion to make.
type Request struct {
	// Role selects the endpoint.
	Role Role
	// Stage is recorded in the accounting.
	Stage Stage
	// Messages is the conversation so far.
	Messages []Message
	// Schema, when set, is a JSON schema the reply must satisfy; it is
	// sent as response_format where the endpoint supports it.
	Schema json.RawMessage
	// SchemaName names the schema in response_format.
	SchemaName string
	// MaxTokens overrides the role's max tokens when > 0.
	MaxTokens int
}

// Response is a completed chat call.
type Response struct {
	// Content is the assistant message text.
	Content string
	// Usage is the accounting record of the call (repair turns included).
	Usage Call
}

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

// Chatter is what the engine needs from an LLM client. *Client implements
// it; tests may use the scripted server behind a real *Client.
type Chatter interface {
	// Chat sends req and returns the reply text.
	Chat(ctx context.Context, req Request) (Response, error)
	// JSON sends req, parses the reply into out (strictly) and runs check
	// on it; on a parse or check failure it allows one repair turn, then
	// fails with *SchemaError.
	JSON(ctx context.Context, req Request, out any, check func() error) (Response, error)
	// Has reports whether role has a configured endpoint.
	Has(role Role) bool
}

// Errors returned by the client; test with errors.Is / errors.As.
var (
	// ErrNotConfigured means no endpoint is configured for the role.
	ErrNotConfigured = errors.New("llm: role not configured")
	// ErrUnavailable means the endpoint could not be reached or kept
	// failing (connection errors, 429 or 5xx after retries, timeout).
	ErrUnavailable = errors.New("llm: endpoint unavailable")
	// ErrReplyTooLarge means a response body exceeded the client's cap
	// (WithMaxReplyBytes). Such a reply is not retried, and the error also
	// matches ErrUnavailable, so a caller that only tells endpoint failures
	// from bad requests needs no extra case; test for ErrReplyTooLarge to
	// report the cap itself.
	ErrReplyTooLarge = errors.New("llm: reply too large")
	// ErrRejected means the endpoint refused the request (4xx other than
	// 429).
	ErrRejected = errors.New("llm: request rejected")
	// ErrSchema is wrapped by *SchemaError.
	ErrSchema = errors.New("llm: reply does not fit the expected shape")
)

// SchemaError reports a reply that still broke the expected shape after
// the repair turn.
type SchemaError struct {
	// Stage of the failing call.
	Stage Stage
	// Reply is the last reply text (truncated).
	Reply string
	// Reason says what was wrong.
	Reason string
}

func (e *SchemaError) Error() string {
	return "llm: " + string(e.Stage) + ": reply does not fit the expected shape: " + e.Reason
}

// Unwrap makes errors.Is(err, ErrSchema) hold.
func (e *SchemaError) Unwrap() error { return ErrSchema }
