package kgqa

import (
	"time"

	"github.com/parog/parog-go/kgqa/llm"
)

// CallSpan is one LLM call on the timeline of its question.
type CallSpan struct {
	// Role and Stage of the call.
	Role  llm.Role  `json:"role"`
	Stage llm.Stage `json:"stage"`
	// StartMS is when the call began sending, in milliseconds since the
	// question started; MS is how long it took (retries included).
	StartMS int64 `json:"start_ms"`
	MS      int64 `json:"ms"`
	// WaitMS is how long the call waited for a concurrency slot of its
	// role before StartMS.
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Tokens is the call's prompt plus completion tokens.
	Tokens int `json:"tokens"`
	// Failed is true when the call ended in an error.
	Failed bool `json:"failed,omitempty"`
}

// callSpans places calls on the timeline of a question that started at
// start; calls without a start time are left out.
func callSpans(calls []llm.Call, start time.Time) []CallSpan {
	var spans []CallSpan
	for _, c := range calls {
		if c.Start.IsZero() {
			continue
		}
		spans = append(spans, CallSpan{
			Role: c.Role, Stage: c.Stage,
			StartMS: max(c.Start.Sub(start).Milliseconds(), 0), MS: c.Latency.Milliseconds(), WaitMS: c.Wait.Milliseconds(),
			Tokens: c.PromptTokens + c.CompletionTokens, Failed: c.Err != "",
		})
	}
	return spans
}
