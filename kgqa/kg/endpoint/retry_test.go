package endpoint

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/backoff"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// busyEndpoint answers its first request with status and a Retry-After
// header (none when retryAfter is ""), and every later one with a result.
func busyEndpoint(t *testing.T, status int, retryAfter string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			http.Error(w, "busy", status)
			return
		}
		w.Header().Set("Content-Type", "application/sparql-results+json")
		_, _ = w.Write(resultsJSON(1))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestRetryAfterIsHonoured checks the wait before the second try through
// a recorded sleep and a fixed clock, never the wall clock.
func TestRetryAfterIsHonoured(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		min, max   time.Duration
	}{
		{"429 with seconds", http.StatusTooManyRequests, "7", 7 * time.Second, 7 * time.Second},
		{"503 with an HTTP date", http.StatusServiceUnavailable, now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second, 30 * time.Second},
		{"503 with a past date backs off", http.StatusServiceUnavailable, now.Add(-time.Minute).Format(http.TimeFormat), 50 * time.Millisecond, 100 * time.Millisecond},
		{"429 without advice backs off", http.StatusTooManyRequests, "", 50 * time.Millisecond, 100 * time.Millisecond},
		{"advice shorter than the backoff", http.StatusServiceUnavailable, "0.01", 50 * time.Millisecond, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, requests := busyEndpoint(t, tc.status, tc.retryAfter)
			c, err := New(srv.URL, Options{Retries: 2, Timeout: time.Hour})
			require.NoError(t, err)
			var waits []time.Duration
			c.policy.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			c.policy.Now = func() time.Time { return now }
			tab, err := c.Query(context.Background(), "SELECT * WHERE { ?s ?p ?o }")
			require.NoError(t, err)
			assert.Len(t, tab.Rows, 1)
			assert.EqualValues(t, 2, requests.Load())
			require.Len(t, waits, 1)
			assert.GreaterOrEqual(t, waits[0], tc.min)
			assert.LessOrEqual(t, waits[0], tc.max)
		})
	}
}

// TestRetryAfterPastTheDeadlineFailsAtOnce: a wait longer than the
// query's timeout is not slept; the query fails with one request sent.
func TestRetryAfterPastTheDeadlineFailsAtOnce(t *testing.T) {
	srv, requests := busyEndpoint(t, http.StatusTooManyRequests, "60")
	c, err := New(srv.URL, Options{Retries: 3, Timeout: 5 * time.Second})
	require.NoError(t, err)
	slept := false
	c.policy.Sleep = func(context.Context, time.Duration) error { slept = true; return nil }
	_, err = c.Query(context.Background(), "SELECT * WHERE { ?s ?p ?o }")
	require.ErrorIs(t, err, backend.ErrUnavailable)
	assert.ErrorIs(t, err, backoff.ErrWaitTooLong)
	assert.ErrorContains(t, err, "429")
	assert.False(t, slept)
	assert.EqualValues(t, 1, requests.Load())
}
