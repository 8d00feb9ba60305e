package sharedcache

import (
	"sync"
	"time"
)

// breaker keeps a cache from asking a server that keeps failing: after
// failures operations in a row fail, it opens, and operations are misses
// that cost nothing for cooldown; then one operation tries the server
// again (the others still skip it), and its outcome closes the breaker or
// opens it for another cool-down. Without it a hung Redis cost every
// operation the whole cache timeout, seconds per question.
type breaker struct {
	failures int
	cooldown time.Duration

	mu        sync.Mutex
	inRow     int
	openUntil time.Time
	probing   bool
}

// newBreaker returns a breaker, or nil (always closed) when failures <= 0.
func newBreaker(failures int, cooldown time.Duration) *breaker {
	if failures <= 0 {
		return nil
	}
	return &breaker{failures: failures, cooldown: cooldown}
}

// allow reports whether an operation may go to the server at now. Every
// allowed operation reports its outcome to done.
func (b *breaker) allow(now time.Time) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inRow < b.failures {
		return true
	}
	if now.Before(b.openUntil) || b.probing {
		return false
	}
	b.probing = true
	return true
}

// done records an allowed operation's outcome: failed says the server
// failed it; an operation its caller gave up on counts neither way
// (counted false with neutral set).
func (b *breaker) done(failed, neutral bool, now time.Time) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	switch {
	case neutral:
	case !failed:
		b.inRow = 0
	default:
		b.inRow++
		if b.inRow >= b.failures {
			b.openUntil = now.Add(b.cooldown)
		}
	}
}
