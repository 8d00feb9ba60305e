package lqt

import (
	"strings"
	"sync"
)

// PairCache remembers pairs of atomic queries found unrelated, across
// questions, so that relation preprocessing never asks about them again.
// A key is the two queries' normalised texts, references spelled out
// (prompts.ExpandRefs), in either order. It holds at most a fixed number
// of pairs, forgetting the oldest first. Safe for concurrent use.
type PairCache struct {
	mu    sync.Mutex
	max   int
	keys  map[string]bool
	order []string
}

// NewPairCache returns a cache of at most size pairs; size 0 remembers
// nothing.
func NewPairCache(size int) *PairCache {
	return &PairCache{max: size, keys: map[string]bool{}}
}

// normalise folds case and spacing.
func normalise(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// pairKey is the key of a pair, the same in either order.
func pairKey(a, b string) string {
	a, b = normalise(a), normalise(b)
	if b < a {
		a, b = b, a
	}
	return a + "\x00" + b
}

// Unrelated reports whether the pair is known unrelated.
func (c *PairCache) Unrelated(a, b string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keys[pairKey(a, b)]
}

// AddUnrelated remembers that the pair is unrelated.
func (c *PairCache) AddUnrelated(a, b string) {
	if c.max <= 0 {
		return
	}
	k := pairKey(a, b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys[k] {
		return
	}
	if len(c.order) >= c.max {
		delete(c.keys, c.order[0])
		c.order = c.order[1:]
	}
	c.keys[k] = true
	c.order = append(c.order, k)
}

// Len is the number of pairs remembered.
func (c *PairCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.order)
}
