package kg

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/parog/parog-go/kgqa"
	"golang.org/x/sync/singleflight"
)

// Cached is a Graph with an LRU cache of primitive results in front of it.
// Identical calls in flight at the same time share one backend call
// (singleflight). Errors are never cached.
type Cached struct {
	g      Graph
	lru    *lru.Cache[string, any]
	flight singleflight.Group
	hits   atomic.Int64
	misses atomic.Int64
	// shared, when set, is consulted on an LRU miss before the backend.
	shared *sharedLayer
}

var _ Graph = (*Cached)(nil)

// CacheStats are the cache's counters since it was made.
type CacheStats struct {
	// Hits counts calls answered without a backend call.
	Hits int64
	// Misses counts calls that went to the backend.
	Misses int64
	// Entries is the number of results held.
	Entries int
	// SharedHits counts the hits answered by the shared cache (a subset of
	// Hits).
	SharedHits int64
}

// NewCached wraps g in a cache of size entries (size must be positive).
func NewCached(g Graph, size int, opts ...CacheOption) (*Cached, error) {
	l, err := lru.New[string, any](size)
	if err != nil {
		return nil, err
	}
	c := &Cached{g: g, lru: l}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// CacheStats returns the cache's counters.
func (c *Cached) CacheStats() CacheStats {
	st := CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: c.lru.Len()}
	if c.shared != nil {
		st.SharedHits = c.shared.hits.Load()
	}
	return st
}

// CacheStatsOf returns the counters of g's cache, or false when g has none.
func CacheStatsOf(g Graph) (CacheStats, bool) {
	c, ok := g.(*Cached)
	if !ok {
		return CacheStats{}, false
	}
	return c.CacheStats(), true
}

// Purge drops every cached result.
func (c *Cached) Purge() { c.lru.Purge() }

// Unwrap returns the graph behind the cache.
func (c *Cached) Unwrap() Graph { return c.g }

// cachedCall answers key from the cache, or runs fn once for all identical
// callers in flight; the lookup counts under primitive in the context's
// Stats.
func cachedCall[T any](ctx context.Context, c *Cached, primitive, key string, fn func(context.Context) (T, error)) (T, error) {
	stats := StatsFrom(ctx)
	if v, ok := c.lru.Get(key); ok {
		c.hits.Add(1)
		stats.addLookup(primitive, true)
		return v.(T), nil
	}
	var leader, fromShared bool
	ch := c.flight.DoChan(key, func() (any, error) {
		leader = true
		if c.shared != nil {
			if v, ok := sharedGet[T](ctx, c.shared, key); ok {
				fromShared = true
				c.lru.Add(key, v)
				return v, nil
			}
		}
		v, err := fn(ctx)
		if err == nil {
			c.lru.Add(key, v)
			if c.shared != nil {
				sharedSet(ctx, c.shared, key, v)
			}
		}
		return v, err
	})
	var zero T
	select {
	case <-ctx.Done():
		return zero, ctx.Err()
	case r := <-ch:
		if leader && !fromShared {
			c.misses.Add(1)
			stats.addLookup(primitive, false)
		} else {
			c.hits.Add(1)
			stats.addLookup(primitive, true)
		}
		if r.Err != nil {
			if !leader && ctx.Err() == nil && (errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)) {
				// The caller we waited on gave up; our own context is alive.
				return fn(ctx)
			}
			return zero, r.Err
		}
		return r.Val.(T), nil
	}
}

func key(parts ...string) string { return strings.Join(parts, "\x00") }

// Relations implements Graph.
func (c *Cached) Relations(ctx context.Context, id string) ([]kgqa.Relation, error) {
	v, err := cachedCall(ctx, c, "relations", key("rel", id), func(ctx context.Context) ([]kgqa.Relation, error) {
		return c.g.Relations(ctx, id)
	})
	return slices.Clone(v), err
}

// Neighbors implements Graph.
func (c *Cached) Neighbors(ctx context.Context, id string, rel kgqa.Relation, limit int) ([]kgqa.Fact, error) {
	k := key("nb", id, rel.ID, string(rel.Dir), strconv.Itoa(limit))
	v, err := cachedCall(ctx, c, "neighbors", k, func(ctx context.Context) ([]kgqa.Fact, error) {
		return c.g.Neighbors(ctx, id, rel, limit)
	})
	return slices.Clone(v), err
}

// Count implements Graph.
func (c *Cached) Count(ctx context.Context, id string, rel kgqa.Relation) (int, error) {
	return cachedCall(ctx, c, "count", key("count", id, rel.ID, string(rel.Dir)), func(ctx context.Context) (int, error) {
		return c.g.Count(ctx, id, rel)
	})
}

// Linked implements Graph.
func (c *Cached) Linked(ctx context.Context, id string, rel kgqa.Relation, candidates []string) ([]string, error) {
	k := key(append([]string{"linked", id, rel.ID, string(rel.Dir)}, candidates...)...)
	v, err := cachedCall(ctx, c, "linked", k, func(ctx context.Context) ([]string, error) {
		return c.g.Linked(ctx, id, rel, candidates)
	})
	return slices.Clone(v), err
}

// Name implements Graph.
func (c *Cached) Name(ctx context.Context, id string) (string, error) {
	return cachedCall(ctx, c, "name", key("name", id), func(ctx context.Context) (string, error) {
		return c.g.Name(ctx, id)
	})
}

// Search implements Graph.
func (c *Cached) Search(ctx context.Context, name string, limit int) ([]kgqa.Entity, error) {
	v, err := cachedCall(ctx, c, "search", key("search", name, strconv.Itoa(limit)), func(ctx context.Context) ([]kgqa.Entity, error) {
		return c.g.Search(ctx, name, limit)
	})
	return slices.Clone(v), err
}

// Select implements Graph.
func (c *Cached) Select(ctx context.Context, query string) (*Results, error) {
	v, err := cachedCall(ctx, c, "select", key("select", query), func(ctx context.Context) (*Results, error) {
		return c.g.Select(ctx, query)
	})
	if err != nil {
		return nil, err
	}
	cp := *v
	cp.Rows = slices.Clone(v.Rows)
	return &cp, nil
}

// Dialect implements Graph.
func (c *Cached) Dialect() Dialect { return c.g.Dialect() }

// Close implements Graph.
func (c *Cached) Close() error {
	c.lru.Purge()
	return c.g.Close()
}
