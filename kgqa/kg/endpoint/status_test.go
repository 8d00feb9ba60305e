package endpoint

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// failingEndpoint answers every request with status and body.
func failingEndpoint(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// Only what another try can mend is retried (a refused connection, 429,
// 503); a query error is the query's fault, a 500 the endpoint's, and the
// error keeps the endpoint's reason.
func TestEndpointErrorsByStatus(t *testing.T) {
	const virtuosoDivision = "Virtuoso 22012 Error SR084: Division by 0.\n\nSPARQL query:\nSELECT (1/0 AS ?x) WHERE { }"
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		want     error
		attempts int64
	}{
		{"syntax error", http.StatusBadRequest, "Virtuoso 37000 Error SP030: SPARQL compiler, line 1: syntax error", backend.ErrQuery, 1},
		{"Virtuoso's query error is a 500", http.StatusInternalServerError, virtuosoDivision, backend.ErrQuery, 1},
		{"Virtuoso's regex error", http.StatusInternalServerError, "Virtuoso 2201B Error SR098: regexp error at '(' column 1", backend.ErrQuery, 1},
		{"Virtuoso's cost estimate", http.StatusInternalServerError, "Virtuoso 42000 Error SQ200: The estimated execution time 2000 (sec) exceeds the limit of 60 (sec).", backend.ErrQuery, 1},
		{"Virtuoso out of memory", http.StatusInternalServerError, "Virtuoso 53000 Error SR007: out of memory", backend.ErrEndpoint, 1},
		{"an endpoint's internal error", http.StatusInternalServerError, "NullPointerException", backend.ErrEndpoint, 1},
		{"a proxy's 502", http.StatusBadGateway, "bad gateway", backend.ErrEndpoint, 1},
		{"a proxy's 504", http.StatusGatewayTimeout, "gateway timeout", backend.ErrEndpoint, 1},
		{"busy", http.StatusServiceUnavailable, "busy", backend.ErrUnavailable, 3},
		{"rate-limited", http.StatusTooManyRequests, "slow down", backend.ErrUnavailable, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := failingEndpoint(t, tc.status, tc.body)
			c, err := New(srv.URL, Options{Retries: 2, Timeout: time.Minute, Backoff: time.Millisecond})
			require.NoError(t, err)
			_, err = c.Query(context.Background(), "SELECT * WHERE { ?s ?p ?o }")
			require.ErrorIs(t, err, tc.want)
			for _, other := range []error{backend.ErrQuery, backend.ErrEndpoint, backend.ErrUnavailable} {
				if other != tc.want {
					assert.False(t, errors.Is(err, other), "%v is also %v", err, other)
				}
			}
			assert.Contains(t, err.Error(), firstLine(tc.body), "the endpoint's reason")
			assert.Equal(t, tc.attempts, n.Load(), "requests sent")
		})
	}
}

// Virtuoso's own timeout (the timeout parameter, MaxQueryExecutionTime)
// is a deadline, whichever layer noticed it first.
func TestEndpointTimeoutIsADeadline(t *testing.T) {
	for _, body := range []string{
		"Virtuoso S1T00 Error SR171: Transaction timed out",
		"Virtuoso S1TAT Error SR...: the query was interrupted at the anytime timeout",
	} {
		srv, n := failingEndpoint(t, http.StatusInternalServerError, body)
		c, err := New(srv.URL, Options{Retries: 2, Timeout: time.Minute, Backoff: time.Millisecond})
		require.NoError(t, err)
		_, err = c.Query(context.Background(), "SELECT * WHERE { ?s ?p ?o }")
		require.ErrorIs(t, err, context.DeadlineExceeded, body)
		assert.EqualValues(t, 1, n.Load())
	}
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
