package backoff

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 1.5 ", 1500 * time.Millisecond},
		{"0", 0},
		{"-2", 0},
		{"2000000", 0},
		{"soon", 0},
		{"Sat, 01 Mar 2025 12:00:10 GMT", 10 * time.Second},
		{"Saturday, 01-Mar-25 12:00:10 GMT", 10 * time.Second}, // RFC 850, still to be accepted
		{"Sat, 01 Mar 2025 11:59:00 GMT", 0},
	} {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, RetryAfter(tc.in, now))
		})
	}
}

func TestBackoffGrowsJitteredAndCapped(t *testing.T) {
	ms := time.Millisecond
	p := Policy{First: 100 * ms, Max: time.Second}
	full := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second}
	p.Jitter = func() float64 { return 0 }
	for i, d := range full {
		assert.Equal(t, d/2, p.Backoff(i), "retry %d, no jitter", i)
	}
	p.Jitter = func() float64 { return 0.999999 }
	for i, d := range full {
		w := p.Backoff(i)
		assert.LessOrEqual(t, w, d, "retry %d, full jitter", i)
		assert.Greater(t, w, d-ms, "retry %d, full jitter", i)
	}
	zero := Policy{Jitter: func() float64 { return 0 }}
	assert.Equal(t, 50*ms, zero.Backoff(0), "the zero policy starts at 100ms")
	assert.Equal(t, 2500*ms, zero.Backoff(10), "and stops at 5s")
}

func TestPause(t *testing.T) {
	var waits []time.Duration
	p := Policy{
		First: 100 * time.Millisecond, Max: time.Second,
		Jitter: func() float64 { return 0 },
		Sleep:  func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
	}
	ctx := context.Background()
	require.NoError(t, p.Pause(ctx, 0, 0))
	require.NoError(t, p.Pause(ctx, 0, 3*time.Second))
	require.NoError(t, p.Pause(ctx, 5, 10*time.Millisecond))
	assert.Equal(t, []time.Duration{50 * time.Millisecond, 3 * time.Second, 500 * time.Millisecond}, waits,
		"the backoff, or the server's advice when longer")

	waits = nil
	err := p.Pause(ctx, 0, DefaultMaxAdvice+time.Second)
	require.ErrorIs(t, err, ErrWaitTooLong)
	assert.ErrorContains(t, err, "the server asks for 2m1s")

	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	p.Now = func() time.Time { return now }
	dl, cancel := context.WithDeadline(ctx, now.Add(2*time.Second))
	defer cancel()
	err = p.Pause(dl, 0, 3*time.Second)
	require.ErrorIs(t, err, ErrWaitTooLong)
	assert.ErrorContains(t, err, "next try in 3s is past the deadline")
	require.NoError(t, p.Pause(dl, 0, time.Second))
	assert.Equal(t, []time.Duration{time.Second}, waits, "nothing slept for the refused waits")
}

// TestPauseEndsWithContext uses the real timer: a cancelled context ends
// a long wait at once.
func TestPauseEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Policy{}.Pause(ctx, 0, time.Minute) }()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("Pause did not return when its context was cancelled")
	}
}

func TestRetryable(t *testing.T) {
	for status, want := range map[int]bool{200: false, 400: false, 404: false, 429: true, 500: true, 502: true, 503: true, 599: true, 600: false} {
		assert.Equal(t, want, Retryable(status), "%d", status)
	}
}

func TestAdvice(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	p := Policy{Now: func() time.Time { return now }}
	resp := &http.Response{Header: http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}}
	assert.Equal(t, 30*time.Second, p.Advice(resp))
	assert.Zero(t, p.Advice(nil))
	assert.Zero(t, p.Advice(&http.Response{Header: http.Header{}}))
}
