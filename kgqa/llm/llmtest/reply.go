package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Reply is what the server answers to one chat completion request. The zero
// Reply is an empty assistant message with status 200.
type Reply struct {
	// Content is the assistant message text.
	Content string
	// Status, when non-zero and not 200, makes the reply a fault: the server
	// answers with this status, Header and Body (an OpenAI error object when
	// Body is empty).
	Status int
	// Header holds extra response headers (for example Retry-After).
	Header http.Header
	// Body, when set, is written verbatim instead of the normal JSON
	// response; with Status 0 it is sent with status 200 (a malformed body).
	Body string
	// Delay is waited before answering (on top of the server's per-call
	// delay); the wait ends early when the client disconnects or the server
	// closes.
	Delay time.Duration
	// Hang makes the server never answer: it holds the request until the
	// client disconnects or the server closes.
	Hang bool
	// Usage overrides the token usage reported; nil reports a count of
	// whitespace-separated words.
	Usage *openai.Usage
	// NoUsage omits the usage object from the response, as some servers do.
	NoUsage bool
	// FinishReason overrides "stop".
	FinishReason string
}

// Text is a successful reply with content.
func Text(content string) Reply { return Reply{Content: content} }

// JSON is a successful reply whose content is v marshalled as JSON; it
// panics when v cannot be marshalled (a bug in the test).
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: JSON: %v", err))
	}
	return Reply{Content: string(b)}
}

// Error is a fault with status and an OpenAI-style error object carrying
// message.
func Error(status int, message string) Reply {
	return Reply{Status: status, Body: errorBody(status, message)}
}

// TooManyRequests is a 429 fault; retryAfter, when not empty, is sent as the
// Retry-After header (seconds, or an HTTP date).
func TooManyRequests(retryAfter string) Reply {
	r := Error(http.StatusTooManyRequests, "rate limit reached")
	if retryAfter != "" {
		r.Header = http.Header{"Retry-After": []string{retryAfter}}
	}
	return r
}

// RetryAfterSeconds is TooManyRequests with a Retry-After of n seconds.
func RetryAfterSeconds(n int) Reply { return TooManyRequests(strconv.Itoa(n)) }

// ServerError is a 500 fault.
func ServerError() Reply { return Error(http.StatusInternalServerError, "internal server error") }

// Hang is a reply that never comes.
func Hang() Reply { return Reply{Hang: true} }

// Malformed is a 200 response whose body is truncated JSON.
func Malformed() Reply {
	return Reply{Body: `{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`}
}

// After returns r delayed by d.
func (r Reply) After(d time.Duration) Reply {
	r.Delay += d
	return r
}

func errorBody(status int, message string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": http.StatusText(status), "code": status,
	}})
	return string(b)
}
