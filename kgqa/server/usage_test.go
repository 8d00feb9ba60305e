package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// failingAfter answers like the demo model for the first n requests and
// with fail after them.
func failingAfter(n int, fail llmtest.Reply) llmtest.Handler {
	demo := kgqatest.DemoModel()
	var mu sync.Mutex
	seen := 0
	return func(req openaiRequest) llmtest.Reply {
		mu.Lock()
		seen++
		k := seen
		mu.Unlock()
		if k > n {
			return fail
		}
		return demo(req)
	}
}

// A question that fails after the model has answered some calls (502,
// 503) says what those calls cost, in the shape of a success body's
// usage, so that a client is not billed for work it cannot see. France's
// capital is the clear top of its relations (engine.clear_top_facts):
// the question is a plan, a tentative answer and a refine call, and the
// refine call is the one that fails.
func TestFailedAskCarriesItsUsage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fail     llmtest.Reply
		status   int
		requests int // the answered ones, then the failing ones (retries=1)
	}{
		{"upstream down: 503", llmtest.ServerError(), http.StatusServiceUnavailable, 2 + 2},
		{"upstream refuses: 502", llmtest.Error(http.StatusBadRequest, "context length exceeded"), http.StatusBadGateway, 2 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answered := tc.requests - 2
			if tc.status == http.StatusBadGateway {
				answered = tc.requests - 1
			}
			h := newHarness(t, setup{handler: failingAfter(answered, tc.fail)})
			r := h.call(t, "POST", "/v1/ask", "application/json",
				mustJSON(t, api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}))
			require.Equal(t, tc.status, r.status, "%s", r.body)
			e := r.errorBody(t)
			require.NotNil(t, e.Usage, "%s", r.body)
			assert.Equal(t, tc.requests, h.llm.Count())
			assert.Equal(t, answered+1, e.Usage.LLM.Calls, "the answered calls and the failed one")
			assert.Equal(t, 1, e.Usage.LLM.Failed)
			assert.Positive(t, e.Usage.LLM.PromptTokens)
			assert.Positive(t, e.Usage.LLM.CompletionTokens)
			assert.Positive(t, e.Usage.SPARQLQueries)
			assert.Len(t, e.Usage.Calls, answered+1)
			for _, key := range []string{`"usage":{"llm":{"calls":`, `"by_stage":`, `"sparql_queries":`} {
				assert.Contains(t, string(r.body), key)
			}

			// The Go client hands it over, and so does a stream that fails
			// after it began.
			h = newHarness(t, setup{handler: failingAfter(answered, tc.fail)})
			_, err := h.client.Ask(context.Background(), api.AskRequest{Question: capitalQ, TopicEntities: []string{france}})
			var ae *api.Error
			require.ErrorAs(t, err, &ae)
			require.NotNil(t, ae.Usage)
			assert.Equal(t, answered+1, ae.Usage.LLM.Calls)
			h = newHarness(t, setup{handler: failingAfter(answered, tc.fail)})
			events := 0
			_, err = h.client.AskStream(context.Background(), api.AskRequest{Question: capitalQ, TopicEntities: []string{france}},
				func(api.Event) error { events++; return nil })
			require.ErrorAs(t, err, &ae)
			assert.Greater(t, events, 1, "the stream had begun")
			assert.Equal(t, tc.status, ae.Status)
			require.NotNil(t, ae.Usage)
			assert.Equal(t, answered+1, ae.Usage.LLM.Calls)
		})
	}
}

// The model metrics count what the model endpoint received, and time the
// calls apart from their wait for a concurrency slot. The question's
// third call, its refine call (TestFailedAskCarriesItsUsage), fails.
func TestLLMMetricsCountRequestsReceived(t *testing.T) {
	h := newHarness(t, setup{handler: failingAfter(2, llmtest.ServerError())})
	r := h.call(t, "POST", "/v1/ask", "application/json",
		mustJSON(t, api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}))
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
	mfs, err := h.srv.Metrics().Registry().Gather()
	require.NoError(t, err)
	sum := func(name string) (total float64, samples uint64) {
		for _, mf := range mfs {
			if mf.GetName() != name {
				continue
			}
			for _, m := range mf.GetMetric() {
				switch {
				case m.Counter != nil:
					total += m.GetCounter().GetValue()
				case m.Histogram != nil:
					samples += m.GetHistogram().GetSampleCount()
				}
			}
		}
		return total, samples
	}
	requests, _ := sum("parog_llm_requests_total")
	calls, _ := sum("parog_llm_calls_total")
	_, timed := sum("parog_llm_call_duration_seconds")
	_, waited := sum("parog_llm_slot_wait_seconds")
	assert.Equal(t, float64(h.llm.Count()), requests, "2 answered, then a 500 and its retry")
	assert.Equal(t, float64(3), calls)
	assert.Equal(t, uint64(3), timed)
	assert.Equal(t, uint64(3), waited)
	body := string(h.call(t, "GET", "/metrics", "", nil).body)
	assert.True(t, strings.Contains(body, `parog_llm_calls_total{outcome="error",role="reasoner"`), "the failed call")
}
