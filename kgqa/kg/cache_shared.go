package kg

import (
	"context"
	"encoding/json"
	"sync/atomic"
)

// Shared is a cache shared by processes (server replicas, eval workers),
// consulted after a Cached graph's own LRU misses and before the backend.
// Keys come namespaced by the caller; values are opaque bytes. A shared
// cache is an optimisation: Get reports a miss, and Set drops the value,
// when the cache is slow or down, and neither ever fails a query.
type Shared interface {
	// Get returns the value stored under key, or false.
	Get(ctx context.Context, key string) ([]byte, bool)
	// Set stores value under key (or drops it: too large, cache down).
	Set(ctx context.Context, key string, value []byte)
}

// sharedLayer is the part of Cached that talks to a Shared cache.
type sharedLayer struct {
	s Shared
	// prefix namespaces every key: the KG snapshot and the format of the
	// values, so a reloaded KG or a new release never reads stale entries.
	prefix string
	hits   atomic.Int64
}

// sharedFormat versions the JSON encoding of cached results; bump it when
// Relation, Fact, Entity or Results change shape.
const sharedFormat = "kg1"

// WithShared puts the shared cache s behind the LRU. snapshot tags the KG
// (see SnapshotTag) and goes into every key.
func WithShared(s Shared, snapshot string) CacheOption {
	return func(c *Cached) {
		c.shared = &sharedLayer{s: s, prefix: sharedFormat + ":" + snapshot + ":"}
	}
}

// CacheOption configures a Cached graph.
type CacheOption func(*Cached)

// sharedGet decodes the shared cache's value for key into a T.
func sharedGet[T any](ctx context.Context, l *sharedLayer, key string) (T, bool) {
	var v T
	data, ok := l.s.Get(ctx, l.prefix+key)
	if !ok || json.Unmarshal(data, &v) != nil {
		return v, false
	}
	l.hits.Add(1)
	return v, true
}

// sharedSet stores v under key in the shared cache.
func sharedSet[T any](ctx context.Context, l *sharedLayer, key string, v T) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	l.s.Set(ctx, l.prefix+key, data)
}
