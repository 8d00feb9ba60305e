package sharedcache_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/sharedcache"
	"github.com/parog/parog-go/kgqa/sharedcache/redistest"
)

// blackHole listens on addr and accepts connections that are never
// answered, as a hung Redis does: each operation costs the cache's whole
// timeout. It counts the connections.
func blackHole(t *testing.T, addr string) *atomic.Int64 {
	t.Helper()
	var l net.Listener
	var err error
	for range 50 { // the stopped server's port may take a moment to free
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, err)
	var n atomic.Int64
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			held = append(held, c)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		for _, c := range held {
			_ = c.Close()
		}
	})
	return &n
}

// After a few failures the cache stops asking a Redis that has gone: its
// operations are misses that cost nothing (no connection is even tried)
// until the cool-down ends, when one operation tries again.
func TestCircuitBreaker(t *testing.T) {
	srv := redistest.New(t)
	ctx := context.Background()
	cfg := cacheConfig(srv.URL)
	cfg.Timeout, cfg.BreakerFailures, cfg.BreakerCooldown = 50*time.Millisecond, 3, 500*time.Millisecond
	r, err := sharedcache.Open(ctx, cfg, "t:")
	require.NoError(t, err)
	defer r.Close()
	r.Set(ctx, "k", []byte("v"))
	v, ok := r.Get(ctx, "k")
	require.True(t, ok)
	require.Equal(t, "v", string(v))

	require.NoError(t, srv.Stop())
	tried := blackHole(t, srv.Addr)
	for range 30 {
		_, ok := r.Get(ctx, "k")
		assert.False(t, ok)
		r.Set(ctx, "k", []byte("v"))
	}
	assert.LessOrEqual(t, tried.Load(), int64(cfg.BreakerFailures), "connections tried while the breaker is open")
	st := r.Stats()
	assert.EqualValues(t, cfg.BreakerFailures, st.Errors, "operations that reached the hung server")
	assert.EqualValues(t, 60-cfg.BreakerFailures, st.Bypassed, "operations the open breaker answered")

	time.Sleep(cfg.BreakerCooldown + 100*time.Millisecond)
	before := st.Errors
	for range 10 {
		_, _ = r.Get(ctx, "k")
	}
	assert.EqualValues(t, before+1, r.Stats().Errors, "after the cool-down one operation tries again, and its failure opens the breaker again")
}
