package kgqa

import (
	"context"
	"encoding/json"
	"errors"
)

// Message is one chat message.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// ChatRequest is one chat completion to make.
type ChatRequest struct {
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

// ChatResponse is a completed chat call.
type ChatResponse struct {
	// Content is the assistant message text.
	Content string
	// Usage is the accounting record of the call (repair turns included).
	Usage Call
}

// Chatter is what the engine needs from a model client; package llm's
// *Client implements it over any OpenAI-compatible endpoint.
type Chatter interface {
	// Chat sends req and returns the reply text.
	Chat(ctx context.Context, req ChatRequest) (ChatResponse, error)
	// JSON sends req, parses the reply into out (strictly) and runs check
	// on it; on a parse or check failure it allows one repair turn, then
	// fails with *SchemaError.
	JSON(ctx context.Context, req ChatRequest, out any, check func() error) (ChatResponse, error)
	// Has reports whether role has a configured endpoint.
	Has(role Role) bool
}

// Errors a model client returns; test with errors.Is / errors.As.
var (
	// ErrModelNotConfigured means no endpoint is configured for the role.
	ErrModelNotConfigured = errors.New("llm: role not configured")
	// ErrModelUnavailable means the endpoint could not be reached or kept
	// failing (connection errors, 429 or 5xx after retries, timeout).
	ErrModelUnavailable = errors.New("llm: endpoint unavailable")
	// ErrReplyTooLarge means a response body exceeded the client's cap
	// (WithMaxReplyBytes). Such a reply is not retried, and the error also
	// matches ErrModelUnavailable, so a caller that only tells endpoint failures
	// from bad requests needs no extra case; test for ErrReplyTooLarge to
	// report the cap itself.
	ErrReplyTooLarge = errors.New("llm: reply too large")
	// ErrModelRejected means the endpoint refused the request (4xx other than
	// 429).
	ErrModelRejected = errors.New("llm: request rejected")
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
