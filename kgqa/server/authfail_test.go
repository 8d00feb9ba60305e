package server

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A guesser who changes key on every try has a fresh count per key, so the
// global cap is what holds it; the count of one key from one address
// refills with time.
func TestFailureLimiterGlobalCap(t *testing.T) {
	f := newFailureLimiter()
	now := time.Unix(1_700_000_000, 0)
	refused := 0
	for i := range authFailureGlobalBurst + 50 {
		key := sha256.Sum256(fmt.Appendf(nil, "guess%d", i))
		if d, _ := f.blocked("192.0.2.7", key, now); d > 0 {
			refused++
			continue
		}
		f.fail("192.0.2.7", key, now)
	}
	assert.Equal(t, 50, refused, "failures beyond the global burst are refused")
	other := sha256.Sum256([]byte("typo"))
	d, why := f.blocked("198.51.100.1", other, now)
	assert.Positive(t, d, "the cap is global: another address is held too")
	assert.Contains(t, why, "all addresses")
	d, _ = f.blocked("198.51.100.1", other, now.Add(authFailureGlobalEvery))
	assert.Zero(t, d, "the global cap refills")

	same := sha256.Sum256([]byte("same"))
	g := newFailureLimiter()
	for range authFailureBurst {
		g.fail("192.0.2.8", same, now)
	}
	d, why = g.blocked("192.0.2.8", same, now)
	assert.Positive(t, d)
	assert.Contains(t, why, "this key from this address")
	d, _ = g.blocked("192.0.2.9", same, now)
	assert.Zero(t, d, "the same key from another address has its own count")
	d, _ = g.blocked("192.0.2.8", same, now.Add(authFailureEvery))
	assert.Zero(t, d, "the count refills")
}
