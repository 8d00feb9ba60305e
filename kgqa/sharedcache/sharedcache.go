// Package sharedcache is the cache that server replicas and eval workers
// share: KG primitive results and recorded model calls, in Redis, behind
// each process's own LRU. It is an optimisation only: an operation that is
// slow, fails or finds the server down reports a miss or drops the value,
// counts it, and never fails the query it serves; after a few failures in
// a row a circuit breaker skips the server for a cool-down.
//
// Every key starts with "parog:" and the namespace of its user; the KG's
// keys also carry a snapshot tag of the graph (SnapshotTag), so a reloaded
// KG never reads results cached from the one before. Entries expire after
// cache.ttl; values above cache.max_entry_bytes are not shared; the
// server's own maxmemory policy (allkeys-lru is the one to set) bounds the
// total.
package sharedcache

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
)

// Redis is a shared cache in a Redis server. Safe for concurrent use.
type Redis struct {
	c       *redis.Client
	ns      string
	ttl     time.Duration
	max     int
	timeout time.Duration
	stats   *counters
	breaker *breaker // shared with every Namespace view, as the connection is
}

var _ kg.Shared = (*Redis)(nil)

type counters struct {
	hits, misses, sets, skipped, errors, bypassed atomic.Int64
}

// Stats are a Redis cache's counters since it was opened.
type Stats struct {
	// Hits and Misses count Get calls.
	Hits, Misses int64
	// Sets counts values stored; Skipped values over the size cap.
	Sets, Skipped int64
	// Errors counts operations that failed or timed out (each also
	// counted as a miss or a dropped value).
	Errors int64
	// Bypassed counts operations not sent because the breaker was open
	// (each also counted as a miss or a dropped value).
	Bypassed int64
}

// Open connects to the Redis server cfg.RedisURL names and checks that it
// answers. ns namespaces every key (for example "kg:" plus a snapshot tag).
func Open(ctx context.Context, cfg config.Cache, ns string) (*Redis, error) {
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("sharedcache: cache.redis_url: %w", err)
	}
	opt.DialTimeout = max(cfg.Timeout, time.Second)
	opt.ReadTimeout, opt.WriteTimeout = cfg.Timeout, cfg.Timeout
	opt.MaxRetries = 0 // a slow cache is a miss, not something to wait for
	c := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, max(cfg.Timeout, 2*time.Second))
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("sharedcache: redis at %s: %w (is redis-server running? cache.backend: none runs without it)", opt.Addr, err)
	}
	return &Redis{c: c, ns: "parog:" + ns, ttl: cfg.TTL, max: cfg.MaxEntryBytes, timeout: cfg.Timeout,
		stats: &counters{}, breaker: newBreaker(cfg.BreakerFailures, cfg.BreakerCooldown)}, nil
}

// Namespace returns a view of the same connection whose keys live under
// ns as well (for example the model-call cache beside the KG's).
func (r *Redis) Namespace(ns string) *Redis {
	return &Redis{c: r.c, ns: r.ns + ns, ttl: r.ttl, max: r.max, timeout: r.timeout, stats: &counters{}, breaker: r.breaker}
}

// Get implements kg.Shared.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool) {
	if !r.breaker.allow(time.Now()) {
		r.stats.bypassed.Add(1)
		r.stats.misses.Add(1)
		return nil, false
	}
	octx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	v, err := r.c.Get(octx, r.ns+key).Bytes()
	r.breaker.done(err != nil && !errors.Is(err, redis.Nil), ctx.Err() != nil, time.Now())
	switch {
	case err == nil:
		r.stats.hits.Add(1)
		return v, true
	case errors.Is(err, redis.Nil):
	default:
		r.stats.errors.Add(1)
	}
	r.stats.misses.Add(1)
	return nil, false
}

// Set implements kg.Shared.
func (r *Redis) Set(ctx context.Context, key string, value []byte) {
	if len(value) > r.max {
		r.stats.skipped.Add(1)
		return
	}
	if !r.breaker.allow(time.Now()) {
		r.stats.bypassed.Add(1)
		return
	}
	// The caller's context may end as soon as its answer is in hand; the
	// write is still worth finishing, within the cache's own deadline.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	err := r.c.Set(ctx, r.ns+key, value, r.ttl).Err()
	r.breaker.done(err != nil, false, time.Now())
	if err != nil {
		r.stats.errors.Add(1)
		return
	}
	r.stats.sets.Add(1)
}

// Stats returns the counters.
func (r *Redis) Stats() Stats {
	return Stats{
		Hits: r.stats.hits.Load(), Misses: r.stats.misses.Load(),
		Sets: r.stats.sets.Load(), Skipped: r.stats.skipped.Load(), Errors: r.stats.errors.Load(),
		Bypassed: r.stats.bypassed.Load(),
	}
}

// Close closes the connection pool (shared with every Namespace view).
func (r *Redis) Close() error { return r.c.Close() }
