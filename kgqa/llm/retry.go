package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/internal/backoff"
	"github.com/parog/parog-go/kgqa"
)

// DefaultMaxReplyBytes is the default cap on a response body (see
// WithMaxReplyBytes); go-openai reads bodies unbounded.
const DefaultMaxReplyBytes = 32 << 20

type stageKey struct{}

type attemptKey struct{}

// attempt is what the transport saw of one HTTP exchange; go-openai keeps
// the headers of error responses to itself, so Retry-After is read here.
type attempt struct {
	sent bool
	// reached is set when the request was written to a connection or
	// answered (by the endpoint, or by a transport layer standing in for
	// it, such as a recording): a request that failed before either never
	// reached the endpoint.
	reached    atomic.Bool
	status     int
	retryAfter string
}

// stageDoer sends go-openai's requests with our HTTP client, names the
// stage in StageHeader and records the status and Retry-After of the
// response in the context's attempt. A body longer than maxBody fails
// to read with ErrReplyTooLarge.
//
// It also marks each request idempotent for http.Transport (an
// Idempotency-Key entry with no value, which is not sent): a model call
// changes nothing on the server, and so marked, a request that finds its
// kept-alive connection closed by the server before any byte of the
// reply came back goes again at once on a new connection, instead of
// failing into a retry after a backoff.
type stageDoer struct {
	hc      *http.Client
	maxBody int64
}

func (d *stageDoer) Do(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if s, ok := ctx.Value(stageKey{}).(kgqa.Stage); ok && s != "" {
		r.Header.Set(StageHeader, headerSafe(string(s)))
	}
	r.Header["Idempotency-Key"] = nil
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	if a != nil {
		a.sent = true
		// Written, not merely handed to the transport: a request
		// cancelled before it reached a connection never got there.
		r = r.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(w httptrace.WroteRequestInfo) {
				if w.Err == nil {
					a.reached.Store(true)
				}
			},
		}))
	}
	resp, err := d.hc.Do(r)
	if err != nil {
		return nil, err
	}
	if a != nil {
		a.reached.Store(true)
		a.status, a.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: d.maxBody, limit: d.maxBody}
	return resp, nil
}

// cappedBody reads at most limit bytes of a body; a body with more fails
// with ErrReplyTooLarge instead of ending early, so that a cut reply is
// not mistaken for a malformed one.
type cappedBody struct {
	io.ReadCloser
	left, limit int64
}

// drainOnClose bounds what Close reads of a body left unread.
const drainOnClose = 4 << 10

// Close reads what is left of a short body first: go-openai closes it
// after decoding one JSON value, and a body not read to its end (a
// trailing newline, the last chunk of a chunked reply) would make
// http.Transport close the connection instead of keeping it.
func (b *cappedBody) Close() error {
	_, _ = io.CopyN(io.Discard, b.ReadCloser, drainOnClose)
	return b.ReadCloser.Close()
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: exceeded %d bytes", kgqa.ErrReplyTooLarge, b.limit)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f {
			return '_'
		}
		return r
	}, s)
}

// failure is one failed attempt, classified.
type failure struct {
	status     int // 0: no response
	retryable  bool
	retryAfter time.Duration
	err        error
}

func (f *failure) Error() string {
	if f.status != 0 {
		return fmt.Sprintf("status %d: %v", f.status, f.err)
	}
	return f.err.Error()
}

func (f *failure) Unwrap() error { return f.err }

// classify decides whether an attempt may be retried: 429, 5xx, connection
// errors and unreadable 2xx bodies may; other statuses, bodies over the cap
// (the endpoint would most likely send the same again) and requests that
// were never sent (refused by go-openai's own checks) and errors that say
// they are permanent (Permanent() bool, as a replay miss) may not.
func classify(err error, a *attempt, now time.Time) *failure {
	f := &failure{status: a.status, err: err}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0:
		f.status = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0:
		f.status = reqErr.HTTPStatusCode
	}
	var perm interface{ Permanent() bool }
	switch {
	case !a.sent, errors.Is(err, kgqa.ErrReplyTooLarge):
		f.retryable = false
	case errors.As(err, &perm) && perm.Permanent():
		// A transport layer that knows no retry can help (a replay miss).
		f.retryable = false
	case backoff.Retryable(f.status):
		f.retryable = true
		f.retryAfter = backoff.RetryAfter(a.retryAfter, now)
	case f.status >= 400:
		f.retryable = false
	default: // no response (connection error) or an unreadable success body
		f.retryable = true
	}
	return f
}

// attempts runs the request until it succeeds, fails for good, or the
// retries or ctx run out. It returns the number of attempts made, and adds
// to *reached the requests that reached the endpoint.
func (c *Client) attempts(ctx context.Context, e *endpoint, stage kgqa.Stage, oreq openai.ChatCompletionRequest, reached *int) (openai.ChatCompletionResponse, int, error) {
	ctx = context.WithValue(ctx, stageKey{}, stage)
	for n := 0; ; n++ {
		a := &attempt{}
		resp, err := e.api.CreateChatCompletion(context.WithValue(ctx, attemptKey{}, a), oreq)
		if a.reached.Load() {
			*reached++
		}
		if err == nil && len(resp.Choices) == 0 {
			err = errors.New("reply has no choices")
		}
		if err == nil {
			return resp, n + 1, nil
		}
		f := classify(err, a, time.Now())
		if p, _ := rejection(err, oreq); p != "" {
			// A refused parameter is refused again: the caller falls
			// back instead (llama.cpp and Ollama refuse with a 500).
			return resp, n + 1, f
		}
		if ctx.Err() != nil || !f.retryable || n >= e.cfg.Retries {
			return resp, n + 1, f
		}
		if err := c.policy.Pause(ctx, n, f.retryAfter); err != nil {
			if errors.Is(err, backoff.ErrWaitTooLong) {
				return resp, n + 1, fmt.Errorf("%w (%v)", f, err)
			}
			return resp, n + 1, f
		}
	}
}

// RetryAfter reports whether err comes from an endpoint that answered 429
// (Too Many Requests) on the last attempt, and the wait it asked for (0
// when it named none), so that a server can pass the advice on.
func RetryAfter(err error) (time.Duration, bool) {
	var f *failure
	if errors.As(err, &f) && f.status == http.StatusTooManyRequests {
		return f.retryAfter, true
	}
	return 0, false
}
