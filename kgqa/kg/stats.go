package kg

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parog/parog-go/kgqa"
)

// maxQueryLog bounds the queries one Stats keeps one by one; Queries
// counts them all.
const maxQueryLog = 4096

// Stats counts the KG work done for one question. Attach it to a context
// with WithStats; backends add to Queries for every SPARQL query they send,
// the cache to CacheHits and CacheMisses. Usage breaks the same work down
// by query kind and by primitive.
type Stats struct {
	// Queries is the number of SPARQL queries sent to a backend.
	Queries atomic.Int64
	// CacheHits counts primitive calls answered from the cache (including
	// callers that shared an identical query already in flight).
	CacheHits atomic.Int64
	// CacheMisses counts primitive calls that went to the backend.
	CacheMisses atomic.Int64

	mu      sync.Mutex
	log     []kgqa.KGQueryCost
	dropped int
	cache   map[string]kgqa.KGCacheCount
}

type statsKey struct{}

// WithStats returns a context whose KG calls are counted in s.
func WithStats(ctx context.Context, s *Stats) context.Context {
	return context.WithValue(ctx, statsKey{}, s)
}

// StatsFrom returns the Stats attached to ctx, or nil. The counting helpers
// accept a nil *Stats, so callers need not check.
func StatsFrom(ctx context.Context) *Stats {
	s, _ := ctx.Value(statsKey{}).(*Stats)
	return s
}

// Usage returns the queries logged and the cache lookups by primitive, or
// nil when s counted nothing.
func (s *Stats) Usage() *kgqa.KGUsage {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.log) == 0 && s.dropped == 0 && len(s.cache) == 0 {
		return nil
	}
	u := &kgqa.KGUsage{Queries: append([]kgqa.KGQueryCost(nil), s.log...), Dropped: s.dropped}
	if len(s.cache) > 0 {
		u.Cache = make(map[string]kgqa.KGCacheCount, len(s.cache))
		for k, v := range s.cache {
			u.Cache[k] = v
		}
	}
	return u
}

// addQuery counts one query of kind anchored at entity that returned rows
// rows (or failed) after d.
func (s *Stats) addQuery(kind, entity string, rows int, d time.Duration, failed bool) {
	if s == nil {
		return
	}
	s.Queries.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.log) >= maxQueryLog {
		s.dropped++
		return
	}
	s.log = append(s.log, kgqa.KGQueryCost{Kind: kind, Entity: entity, Rows: rows, MS: float64(d.Microseconds()) / 1000, Failed: failed})
}

// addLookup counts one cache lookup of primitive, a hit or a miss.
func (s *Stats) addLookup(primitive string, hit bool) {
	if s == nil {
		return
	}
	if hit {
		s.CacheHits.Add(1)
	} else {
		s.CacheMisses.Add(1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]kgqa.KGCacheCount{}
	}
	c := s.cache[primitive]
	if hit {
		c.Hits++
	} else {
		c.Misses++
	}
	s.cache[primitive] = c
}
