package engine

import (
	"time"

	"github.com/parog/parog-go/kgqa"
)

// callSpans places calls on the timeline of a question that started at
// start; calls without a start time are left out.
func callSpans(calls []kgqa.Call, start time.Time) []kgqa.CallSpan {
	var spans []kgqa.CallSpan
	for _, c := range calls {
		if c.Start.IsZero() {
			continue
		}
		spans = append(spans, kgqa.CallSpan{
			Role: c.Role, Stage: c.Stage,
			StartMS: max(c.Start.Sub(start).Milliseconds(), 0), MS: c.Latency.Milliseconds(), WaitMS: c.Wait.Milliseconds(),
			Tokens: c.PromptTokens + c.CompletionTokens, Failed: c.Err != "",
		})
	}
	return spans
}
