package llm

import (
	"context"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// manualClock is a clock the test moves; reads tells how often it was
// read, so the test knows a call has reached a given point.
type manualClock struct {
	mu    sync.Mutex
	t     time.Time
	reads chan struct{}
}

func newManualClock() *manualClock {
	return &manualClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), reads: make(chan struct{}, 64)}
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads <- struct{}{}
	return c.t
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *manualClock) awaitReads(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-c.reads:
		case <-time.After(10 * time.Second):
			t.Fatal("the call did not read the clock")
		}
	}
}

// With one slot, a call queued behind a 10 s call and answered 2 s after
// it got the slot took 2 s and waited 10 s. Before, its latency was 12 s:
// the queue in front of the endpoint was counted as the endpoint's.
func TestSlotWaitIsKeptApartFromLatency(t *testing.T) {
	release := make(chan struct{}, 2)
	srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply {
		<-release
		return llmtest.Text("ok")
	}))
	var mu sync.Mutex
	observed := map[kgqa.Stage]kgqa.Call{}
	c := newClient(t, srv, func(e *config.Endpoint) { e.Concurrency = 1 },
		WithObserver(func(call kgqa.Call) { mu.Lock(); observed[call.Stage] = call; mu.Unlock() }))
	clock := newManualClock()
	c.now = clock.now

	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.Chat(context.Background(), ask("first", "q")) })
	clock.awaitReads(t, 2) // queued, then started
	require.Eventually(t, func() bool { return srv.Count() == 1 }, 10*time.Second, time.Millisecond)
	wg.Go(func() { _, _ = c.Chat(context.Background(), ask("second", "q")) })
	clock.awaitReads(t, 1) // the second call is queued
	clock.advance(10 * time.Second)
	release <- struct{}{}                                                                            // the first call ends
	require.Eventually(t, func() bool { return srv.Count() == 2 }, 10*time.Second, time.Millisecond) // the second got the slot
	clock.advance(2 * time.Second)
	release <- struct{}{}
	wg.Wait()

	first, second := observed["first"], observed["second"]
	assert.Equal(t, 10*time.Second, first.Latency)
	assert.Zero(t, first.Wait)
	assert.Equal(t, 2*time.Second, second.Latency, "the call's own time")
	assert.Equal(t, 10*time.Second, second.Wait, "the time it queued for the slot")
	assert.Equal(t, second.Start.Add(-10*time.Second), first.Start, "the second call starts when it gets the slot")
}

// The requests a client says it made are the requests the endpoint got:
// a retry, a parameter fallback and a repair turn each count; a call
// cancelled before it was sent counts none and is not in the ledger.
func TestRequestsCountWhatTheEndpointReceived(t *testing.T) {
	srv := llmtest.New(t)
	var mu sync.Mutex
	var observed []kgqa.Call
	c := newClient(t, srv, func(e *config.Endpoint) { e.Concurrency = 1; e.Retries = 2; e.JSONSchema = true },
		WithObserver(func(call kgqa.Call) { mu.Lock(); observed = append(observed, call); mu.Unlock() }))
	ledger := kgqa.NewLedger()
	ctx := kgqa.WithLedger(context.Background(), ledger)

	// A 500 then a reply: one call, two requests.
	srv.Enqueue(llmtest.ServerError(), llmtest.Text("ok"))
	_, err := c.Chat(ctx, ask("retried", "q"))
	require.NoError(t, err)
	// json_schema refused, then a reply that fails the check, then the
	// repair turn's reply: two calls, three requests.
	srv.Enqueue(llmtest.Reply{Status: 400, Body: openAISchemaBody}, llmtest.Text(`{"answer": 1}`), llmtest.Text(`{"answer": "Germany"}`))
	var out struct {
		Answer any `json:"answer"`
	}
	_, err = c.JSON(ctx, kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "repaired", Messages: []kgqa.Message{{Role: "user", Content: "q"}}, Schema: []byte(`{"type":"object"}`)},
		&out, func() error {
			if _, ok := out.Answer.(string); !ok {
				return assert.AnError
			}
			return nil
		})
	require.NoError(t, err)
	// Calls whose question was already cancelled, with the slot free:
	// select may take the slot, but nothing may be sent.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for range 40 {
		_, err := c.Chat(cancelled, ask("cancelled", "q"))
		require.ErrorIs(t, err, context.Canceled)
	}

	requests, sent := 0, 0
	for _, call := range observed {
		requests += call.Requests
		if call.Stage == "cancelled" {
			assert.Zero(t, call.Requests)
			continue
		}
		sent++
	}
	assert.Equal(t, 5, srv.Count())
	assert.Equal(t, srv.Count(), requests, "requests counted = requests received")
	assert.Equal(t, 3, sent)
	assert.Len(t, observed, 43, "the observer sees the unsent calls too")
	assert.Len(t, ledger.Calls(), 3, "the ledger holds only calls that were sent")
	assert.Equal(t, 2, ledger.Calls()[0].Requests)
}

// A call whose endpoint cannot be reached made no request, however often
// it tried.
func TestUnreachableEndpointCountsNoRequest(t *testing.T) {
	srv := llmtest.New(t)
	var observed []kgqa.Call
	c := newClient(t, srv, func(e *config.Endpoint) { e.Retries = 2 }, WithObserver(func(call kgqa.Call) { observed = append(observed, call) }))
	srv.Close()
	_, err := c.Chat(context.Background(), ask("plan", "q"))
	require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
	require.Len(t, observed, 1)
	assert.Equal(t, 2, observed[0].Retries, "it tried three times")
	assert.Zero(t, observed[0].Requests, "none reached the endpoint")
}
