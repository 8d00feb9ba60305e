package endpoint

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// The query's remaining deadline goes to the endpoint as timeout (in
// milliseconds, as Virtuoso reads it), so the endpoint stops when the
// caller does.
func TestQuerySendsRemainingDeadline(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		got <- r.PostForm.Get("timeout")
		w.Header().Set("Content-Type", "application/sparql-results+json")
		_, _ = w.Write(resultsJSON(1))
	}))
	t.Cleanup(srv.Close)
	for name, tc := range map[string]struct {
		client, caller time.Duration
		want           time.Duration
	}{
		"the caller's deadline": {time.Hour, 5 * time.Second, 5 * time.Second},
		"the client's timeout":  {3 * time.Second, time.Hour, 3 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := New(srv.URL, Options{Timeout: tc.client})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), tc.caller)
			defer cancel()
			_, err = c.Query(ctx, "SELECT * WHERE { ?s ?p ?o }")
			require.NoError(t, err)
			ms, err := strconv.Atoi(<-got)
			require.NoError(t, err)
			assert.LessOrEqual(t, time.Duration(ms)*time.Millisecond, tc.want)
			assert.Greater(t, time.Duration(ms)*time.Millisecond, tc.want-time.Second)
		})
	}
}

// Virtuoso answers a query cut by its timeout with the rows it had
// (an "anytime" answer, X-SQL-State: S1TAT). Those are not the answer: the
// query timed out.
func TestQueryRefusesPartialAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Header().Set("X-SQL-State", "S1TAT")
		w.Header().Set("X-SQL-Message", "RC...: Returning incomplete results, query interrupted by result timeout.")
		_, _ = w.Write(resultsJSON(1))
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, Options{Timeout: time.Minute})
	require.NoError(t, err)
	_, err = c.Query(context.Background(), "SELECT * WHERE { ?s ?p ?o }")
	require.ErrorIs(t, err, backend.ErrUnavailable)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "incomplete")
}
