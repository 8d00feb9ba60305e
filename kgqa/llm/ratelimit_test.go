package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRateLimitedTransport(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	// One request per 1000 s, burst 1: the first goes through, the second
	// waits for a token and gives up when its context ends.
	c := &http.Client{Transport: RateLimitedTransport(nil, 0.001, 1)}
	get := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	require.NoError(t, get(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := get(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rate limit")
	assert.Equal(t, int32(1), hits.Load(), "the limited request was never sent")

	// A rate of zero means no limit.
	assert.Equal(t, http.DefaultTransport, RateLimitedTransport(nil, 0, 1))
}
