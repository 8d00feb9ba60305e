// Package backoff is the one retry policy of the project's HTTP clients
// (the SPARQL endpoint client and the model client): which answers are
// worth another try, how long to wait before it (jittered exponential
// backoff, or longer when the server says so in Retry-After), and the wait
// itself, cut short by the context and refused when it would outlast the
// context's deadline.
//
// Each client keeps its own attempt loop, because what an attempt is and
// how its failure is classified differ (a form POST read by hand, a
// go-openai call whose error hides the response headers); what they share
// is the policy. It is written here rather than taken from a retry library
// because it must read Retry-After in both its forms (seconds and an HTTP
// date), refuse a wait past the deadline before sleeping, and let tests
// record the waits instead of sleeping them, all in a few lines.
package backoff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxAdvice is the longest Retry-After a Policy waits when its
// MaxAdvice is zero.
const DefaultMaxAdvice = 2 * time.Minute

// ErrWaitTooLong is wrapped by Pause when the wait before the next try
// would outlast the context's deadline or the policy's MaxAdvice: giving
// up at once is better than failing after the sleep, or trying again
// sooner than the server asked.
var ErrWaitTooLong = errors.New("backoff: wait too long")

// Policy is a retry wait policy. The zero value waits 100ms before the
// first retry, doubling up to 5s.
type Policy struct {
	// First is the exponential wait before the first retry (100ms when
	// zero); it doubles per retry.
	First time.Duration
	// Max caps the exponential wait (5s when zero; never below First).
	Max time.Duration
	// MaxAdvice is the longest Retry-After honoured (DefaultMaxAdvice
	// when zero); a server asking for more gets no further try.
	MaxAdvice time.Duration
	// Jitter returns a number in [0, 1) (math/rand/v2 when nil).
	Jitter func() float64
	// Sleep waits d or until ctx is done (a timer when nil); tests
	// record the waits here instead of sleeping.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock a Retry-After date is read against (time.Now when
	// nil).
	Now func() time.Time
}

// Retryable reports whether an HTTP status may succeed on another try:
// 429 Too Many Requests and the 5xx statuses.
func Retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500 && status <= 599
}

// Backoff is the jittered exponential wait before retry n+1 (n counts
// from 0): between half and all of First×2ⁿ, capped at Max.
func (p Policy) Backoff(n int) time.Duration {
	first, largest := p.bounds()
	d := first
	for i := 0; i < n && d < largest; i++ {
		d *= 2
	}
	d = min(d, largest)
	jitter := p.Jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	return d/2 + time.Duration(jitter()*float64(d/2))
}

func (p Policy) bounds() (first, largest time.Duration) {
	first, largest = p.First, p.Max
	if first <= 0 {
		first = 100 * time.Millisecond
	}
	if largest <= 0 {
		largest = 5 * time.Second
	}
	return first, max(first, largest)
}

// Wait is the wait before retry n+1 when the server advised waiting
// advice (0 when it did not): the larger of Backoff(n) and advice.
func (p Policy) Wait(n int, advice time.Duration) time.Duration {
	return max(p.Backoff(n), advice)
}

// Pause waits before retry n+1, at least advice. It returns an error
// wrapping ErrWaitTooLong without waiting when advice exceeds MaxAdvice or
// the wait would pass ctx's deadline, and ctx's error when ctx ends during
// the wait.
func (p Policy) Pause(ctx context.Context, n int, advice time.Duration) error {
	limit := p.MaxAdvice
	if limit <= 0 {
		limit = DefaultMaxAdvice
	}
	if advice > limit {
		return fmt.Errorf("%w: the server asks for %s, more than the %s this client waits", ErrWaitTooLong, advice, limit)
	}
	wait := p.Wait(n, advice)
	if dl, ok := ctx.Deadline(); ok && p.now().Add(wait).After(dl) {
		return fmt.Errorf("%w: next try in %s is past the deadline", ErrWaitTooLong, wait.Round(time.Millisecond))
	}
	sleep := p.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	return sleep(ctx, wait)
}

func (p Policy) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Advice is the wait a response asks for in its Retry-After header, read
// against the policy's clock (see RetryAfter); 0 for a nil response.
func (p Policy) Advice(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	return RetryAfter(resp.Header.Get("Retry-After"), p.now())
}

// RetryAfter reads a Retry-After value, delay seconds or an HTTP date,
// as a wait from now. An empty, unparseable, negative or past value gives
// 0, and so does a number of seconds above a million (no server means
// eleven days).
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 1e6 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Sleep waits d, or until ctx ends, whichever comes first; it returns
// ctx's error when ctx ended first (or d is not positive and ctx has
// ended), else nil.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
