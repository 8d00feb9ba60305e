package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newClient returns a client whose reasoner talks to srv, with fast
// backoff; edit adjusts the endpoint.
func newClient(t *testing.T, srv *llmtest.Server, edit func(*config.Endpoint), opts ...Option) *Client {
	t.Helper()
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model, ep.Timeout = srv.URL(), "test-model", 10*time.Second
	if edit != nil {
		edit(&ep)
	}
	c, err := New(config.LLM{Reasoner: ep}, append([]Option{WithBackoff(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func ask(stage kgqa.Stage, text string) kgqa.ChatRequest {
	return kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: stage, Messages: []kgqa.Message{{Role: "user", Content: text}}}
}

func TestChatSuccessIsAccounted(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(
		llmtest.Reply{Content: "Germany", Usage: &openai.Usage{PromptTokens: 17, CompletionTokens: 5}},
		llmtest.Reply{Content: "yes", Usage: &openai.Usage{PromptTokens: 30, CompletionTokens: 1}},
	))
	var mu sync.Mutex
	var observed []kgqa.Call
	c := newClient(t, srv, nil, WithObserver(func(call kgqa.Call) { mu.Lock(); observed = append(observed, call); mu.Unlock() }))
	ledger := kgqa.NewLedger()
	ctx := kgqa.WithLedger(context.Background(), ledger)

	resp, err := c.Chat(ctx, ask("answer", "Which country?"))
	require.NoError(t, err)
	assert.Equal(t, "Germany", resp.Content)
	assert.Equal(t, 17, resp.Usage.PromptTokens)
	assert.False(t, resp.Usage.Estimated)
	_, err = c.Chat(ctx, ask("sufficiency", "Enough?"))
	require.NoError(t, err)

	sum := ledger.Summary()
	assert.Equal(t, 2, sum.Calls)
	assert.Equal(t, 47, sum.PromptTokens)
	assert.Equal(t, 6, sum.CompletionTokens)
	assert.Equal(t, 53, sum.TotalTokens)
	assert.Equal(t, 2, sum.ByRole[kgqa.Reasoner].Calls)
	assert.Equal(t, kgqa.Tally{Calls: 1, PromptTokens: 17, CompletionTokens: 5, TotalTokens: 22, Latency: sum.ByStage["answer"].Latency}, sum.ByStage["answer"])
	assert.Positive(t, sum.ByStage["answer"].Latency)
	assert.Len(t, observed, 2)
	assert.Equal(t, "test-model", ledger.Calls()[0].Model)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "answer", reqs[0].Stage)
	assert.Equal(t, "sufficiency", reqs[1].Stage)
	assert.Equal(t, "Which country?", reqs[0].Chat.Messages[0].Content)

	b, err := json.Marshal(sum)
	require.NoError(t, err)
	for _, key := range []string{`"calls":2`, `"prompt_tokens":47`, `"completion_tokens":6`, `"by_role":{"reasoner"`, `"by_stage":{`} {
		assert.Contains(t, string(b), key)
	}
}

func TestChatEstimatesTokensWithoutUsage(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Reply{Content: "abcdefgh", NoUsage: true}))
	c := newClient(t, srv, nil)
	// 40 characters: 10 tokens + 4 for the message; "abcdefgh": 2 tokens.
	resp, err := c.Chat(context.Background(), ask("answer", strings.Repeat("x", 40)))
	require.NoError(t, err)
	assert.True(t, resp.Usage.Estimated)
	assert.Equal(t, 14, resp.Usage.PromptTokens)
	assert.Equal(t, 2, resp.Usage.CompletionTokens)
}

func TestRetryAfterSecondsHonouredOnTheWire(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.RetryAfterSeconds(1), llmtest.Text("ok")))
	c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 2 })
	ledger := kgqa.NewLedger()
	resp, err := c.Chat(kgqa.WithLedger(context.Background(), ledger), ask("plan", "q"))
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Content)
	assert.Equal(t, 1, resp.Usage.Retries)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	// The backoff alone is at most 5ms; only Retry-After explains a second.
	assert.GreaterOrEqual(t, reqs[1].Time.Sub(reqs[0].Time), time.Second)
	assert.Equal(t, 1, ledger.Summary().Retries)
}

func TestRetryWaits(t *testing.T) {
	date := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name     string
		fault    llmtest.Reply
		min, max time.Duration
	}{
		{"retry-after seconds", llmtest.RetryAfterSeconds(7), 7 * time.Second, 7 * time.Second},
		{"retry-after http date", llmtest.TooManyRequests(date), time.Second, 3 * time.Second},
		{"429 without retry-after uses backoff", llmtest.TooManyRequests(""), 500 * time.Microsecond, 1 * time.Millisecond},
		{"500 with retry-after", llmtest.Reply{Status: 503, Header: http.Header{"Retry-After": {"2"}}}, 2 * time.Second, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(tt.fault, llmtest.Text("ok")))
			c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 1; e.Timeout = 0 })
			var waits []time.Duration
			c.policy.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			_, err := c.Chat(context.Background(), ask("plan", "q"))
			require.NoError(t, err)
			require.Len(t, waits, 1)
			assert.GreaterOrEqual(t, waits[0], tt.min)
			assert.LessOrEqual(t, waits[0], tt.max)
		})
	}
}

func TestRetryAfterBeyondTimeoutFailsAtOnce(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.RetryAfterSeconds(120)))
	c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 3; e.Timeout = 5 * time.Second })
	start := time.Now()
	_, err := c.Chat(context.Background(), ask("plan", "q"))
	require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
	assert.Contains(t, err.Error(), "past the deadline")
	assert.Less(t, time.Since(start), 4*time.Second)
	assert.Equal(t, 1, srv.Count())
}

func TestServerErrorRetriedThenUnavailable(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.ServerError() }))
	c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 2 })
	ledger := kgqa.NewLedger()
	_, err := c.Chat(kgqa.WithLedger(context.Background(), ledger), ask("plan", "q"))
	require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
	assert.NotErrorIs(t, err, kgqa.ErrModelRejected)
	assert.Contains(t, err.Error(), "status 500")
	assert.Equal(t, 3, srv.Count())
	calls := ledger.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, 2, calls[0].Retries)
	assert.NotEmpty(t, calls[0].Err)
	assert.Equal(t, 1, ledger.Summary().Failed)
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 422} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply {
				return llmtest.Error(status, "no")
			}))
			c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 3 })
			_, err := c.Chat(context.Background(), ask("plan", "q"))
			require.ErrorIs(t, err, kgqa.ErrModelRejected)
			assert.NotErrorIs(t, err, kgqa.ErrModelUnavailable)
			assert.Equal(t, 1, srv.Count())
		})
	}
}

func TestHangTimesOut(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Hang() }))
	c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 3; e.Timeout = 300 * time.Millisecond })
	start := time.Now()
	_, err := c.Chat(context.Background(), ask("plan", "q"))
	elapsed := time.Since(start)
	require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.GreaterOrEqual(t, elapsed, 300*time.Millisecond)
	assert.Less(t, elapsed, 5*time.Second, "the timeout covers retries")
}

func TestMalformedBody(t *testing.T) {
	t.Run("retried then fine", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.WithReplies(llmtest.Malformed(), llmtest.Text("fine")))
		c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 1 })
		resp, err := c.Chat(context.Background(), ask("plan", "q"))
		require.NoError(t, err)
		assert.Equal(t, "fine", resp.Content)
		assert.Equal(t, 1, resp.Usage.Retries)
	})
	t.Run("always malformed", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Malformed() }))
		c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 1 })
		_, err := c.Chat(context.Background(), ask("plan", "q"))
		require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
		assert.Equal(t, 2, srv.Count())
	})
	t.Run("no choices", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply {
			return llmtest.Reply{Body: `{"id":"x","object":"chat.completion","choices":[]}`}
		}))
		c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 0 })
		_, err := c.Chat(context.Background(), ask("plan", "q"))
		require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
		assert.Contains(t, err.Error(), "no choices")
	})
}

func TestEndpointDown(t *testing.T) {
	srv := llmtest.New(t)
	c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 2 })
	srv.Close()
	_, err := c.Chat(context.Background(), ask("plan", "q"))
	require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
}

func TestConcurrencyLimit(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithDelay(100*time.Millisecond),
		llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Text("ok") }))
	c := newClient(t, srv, func(e *config.Endpoint) { e.Concurrency = 2 })
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			_, err := c.Chat(context.Background(), ask("plan", "q"))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 6, srv.Count())
	assert.Equal(t, 2, srv.MaxInFlight())
}

func TestCancelStopsEverything(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Hang() }))
	c := newClient(t, srv, func(e *config.Endpoint) { e.Concurrency = 2; e.Timeout = time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	ledger := kgqa.NewLedger()
	ctx = kgqa.WithLedger(ctx, ledger)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := c.Chat(ctx, ask("plan", "q"))
			errs <- err
		}()
	}
	require.Eventually(t, func() bool { return srv.Count() == 2 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	for range 4 {
		select {
		case err := <-errs:
			require.ErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, kgqa.ErrModelUnavailable)
		case <-time.After(5 * time.Second):
			t.Fatal("a call did not return after cancel")
		}
	}
	assert.Equal(t, 2, srv.Count(), "queued calls never reach the server")
	assert.Len(t, ledger.Calls(), 2, "only calls that were sent are recorded")
	srv.Close()
	require.NoError(t, c.Close())
	goleak.VerifyNone(t)
}

func TestNotConfigured(t *testing.T) {
	srv := llmtest.New(t)
	c := newClient(t, srv, nil)
	assert.True(t, c.Has(kgqa.Reasoner))
	assert.False(t, c.Has(kgqa.Planner))
	assert.False(t, c.Has(kgqa.Teacher))
	_, err := c.Chat(context.Background(), kgqa.ChatRequest{Role: kgqa.Planner, Stage: "plan"})
	require.ErrorIs(t, err, kgqa.ErrModelNotConfigured)
	var out map[string]any
	_, err = c.JSON(context.Background(), kgqa.ChatRequest{Role: kgqa.Teacher, Stage: "render"}, &out, nil)
	require.ErrorIs(t, err, kgqa.ErrModelNotConfigured)
	assert.Zero(t, srv.Count())
}
