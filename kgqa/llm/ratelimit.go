package llm

import (
	"fmt"
	"net/http"

	"golang.org/x/time/rate"
)

// RateLimitedTransport returns a RoundTripper that waits for a token of a
// limiter allowing perSecond requests per second (burst at least 1) before
// each request it sends through base (nil: http.DefaultTransport). Given to
// the LLM client, it bounds the request rate to the model endpoints across
// all questions of a run, retries included. perSecond <= 0 returns base.
func RateLimitedTransport(base http.RoundTripper, perSecond float64, burst int) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if perSecond <= 0 {
		return base
	}
	return &limitedTransport{base: base, lim: rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))}
}

type limitedTransport struct {
	base http.RoundTripper
	lim  *rate.Limiter
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.lim.Wait(req.Context()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("llm: rate limit: %w", err)
	}
	return t.base.RoundTrip(req)
}
