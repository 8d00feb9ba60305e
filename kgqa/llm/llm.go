// Package llm is PARoG's OpenAI-compatible chat client: separately
// configured roles (planner, reasoner, teacher), retries, strict JSON output
// with one repair turn, and per-question accounting of every call.
package llm

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/parog/parog-go/kgqa"
)

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
	Role kgqa.Role
	// Stage is recorded in the accounting.
	Stage kgqa.Stage
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
	Usage kgqa.Call
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
	Has(role kgqa.Role) bool
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
	Stage kgqa.Stage
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
