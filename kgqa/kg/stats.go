package kg

import (
	"context"
	"sync/atomic"
)

// Stats counts the KG work done for one question. Attach it to a context
// with WithStats; backends add to Queries for every SPARQL query they send,
// the cache to CacheHits and CacheMisses.
type Stats struct {
	// Queries is the number of SPARQL queries sent to a backend.
	Queries atomic.Int64
	// CacheHits counts primitive calls answered from the cache (including
	// callers that shared an identical query already in flight).
	CacheHits atomic.Int64
	// CacheMisses counts primitive calls that went to the backend.
	CacheMisses atomic.Int64
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

func (s *Stats) addQuery() {
	if s != nil {
		s.Queries.Add(1)
	}
}

func (s *Stats) addHit() {
	if s != nil {
		s.CacheHits.Add(1)
	}
}

func (s *Stats) addMiss() {
	if s != nil {
		s.CacheMisses.Add(1)
	}
}
