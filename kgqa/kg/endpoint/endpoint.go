// Package endpoint is the SPARQL 1.1 Protocol adapter of package kg: it
// sends the SELECT text kg builds to an endpoint (Virtuoso, QLever,
// Blazegraph) and reads SPARQL 1.1 JSON results.
package endpoint

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/parog/parog-go/internal/backoff"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// Client sends SELECT queries to a SPARQL 1.1 Protocol endpoint with its
// own client: it never touches http.DefaultClient, bounds every request by a
// deadline and every response by a size cap, and retries only what can
// succeed on a second try (connection errors, 429 and 503), waiting as
// long as the endpoint's Retry-After asks (see package backoff). A query
// error (4xx, or Virtuoso's 500 naming one) and an endpoint failure (any
// other 5xx) are not retried: the same query fails the same way.
type Client struct {
	url      string
	client   *http.Client
	timeout  time.Duration
	retries  int
	maxBytes int64
	policy   backoff.Policy
}

// mediaJSON is the media type of SPARQL 1.1 JSON results.
const mediaJSON = "application/sparql-results+json"

// Options configure a Client; zero fields take the defaults.
type Options struct {
	// Timeout bounds a query, retries included (30s when <= 0).
	Timeout time.Duration
	// Retries is how many times a connection error, 429 or 503 is retried.
	Retries int
	// MaxBytes caps a response body (64 MiB when <= 0).
	MaxBytes int64
	// MaxConns caps the connections to the endpoint (32 when <= 0).
	MaxConns int
	// Backoff is the first retry's delay (jittered), doubled per retry up
	// to 5s (100ms when <= 0); a longer Retry-After from the endpoint
	// takes precedence.
	Backoff time.Duration
	// User and Password authenticate to an endpoint that asks for it
	// (Digest or Basic), such as Virtuoso's /sparql-auth as the read-only
	// user of the setup kit; no credentials are sent when User is empty.
	User, Password string
}

// New returns a Client for the endpoint at rawURL, an http(s) URL.
func New(rawURL string, o Options) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kg: kg.endpoint: want an http(s) URL, got %q", rawURL)
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 20
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 32
	}
	if o.Backoff <= 0 {
		o.Backoff = 100 * time.Millisecond
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        o.MaxConns,
		MaxIdleConnsPerHost: o.MaxConns,
		MaxConnsPerHost:     o.MaxConns,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	var rt http.RoundTripper = tr
	if o.User != "" {
		rt = &authTransport{next: tr, user: o.User, password: o.Password}
	}
	return &Client{
		url: u.String(), client: &http.Client{Transport: rt},
		timeout: o.Timeout, retries: max(o.Retries, 0), maxBytes: o.MaxBytes,
		policy: backoff.Policy{First: o.Backoff, Max: 5 * time.Second},
	}, nil
}

// Close implements backend.Backend.
func (e *Client) Close() error {
	e.client.CloseIdleConnections()
	return nil
}

// Query implements backend.Backend: it runs q within the configured timeout, retries included.
func (e *Client) Query(ctx context.Context, q string) (*backend.Table, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	for n := 0; ; n++ {
		t, advice, err := e.attempt(ctx, q)
		if err == nil {
			return t, nil
		}
		if advice < 0 || n >= e.retries {
			return nil, err
		}
		if perr := e.policy.Pause(ctx, n, advice); perr != nil {
			return nil, fmt.Errorf("%w: %w (after %d attempts; last: %v)", backend.ErrUnavailable, perr, n+1, err)
		}
	}
}

// noRetry is attempt's advice for a failure another try cannot mend.
const noRetry = time.Duration(-1)

// attempt sends q once. A failure
// worth another try comes with the wait the endpoint asked for (0 when it
// named none); one that is not, with noRetry.
func (e *Client) attempt(ctx context.Context, q string) (*backend.Table, time.Duration, error) {
	params := url.Values{"query": {q}}
	if d, ok := ctx.Deadline(); ok {
		// The endpoint stops when the caller does (Virtuoso reads timeout
		// in milliseconds; an endpoint that does not know it ignores it).
		params.Set("timeout", strconv.FormatInt(max(time.Until(d).Milliseconds(), 1), 10))
	}
	form := params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, strings.NewReader(form))
	if err != nil {
		return nil, noRetry, fmt.Errorf("%w: %v", backend.ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", mediaJSON)
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, noRetry, fmt.Errorf("%w: %w", backend.ErrUnavailable, ctx.Err())
		}
		return nil, 0, fmt.Errorf("%w: %v", backend.ErrUnavailable, err)
	}
	defer func() {
		// Drain a little so the connection can be reused, never the whole
		// of an oversized body.
		_, _ = io.CopyN(io.Discard, resp.Body, 4096)
		_ = resp.Body.Close()
	}()
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		return nil, e.policy.Advice(resp), fmt.Errorf("%w: %s: %s", backend.ErrUnavailable, resp.Status, snippet(resp.Body))
	case resp.StatusCode >= 400:
		return nil, noRetry, statusError(resp)
	case resp.StatusCode != http.StatusOK:
		return nil, noRetry, fmt.Errorf("%w: unexpected status %s", backend.ErrBadResponse, resp.Status)
	}
	if resp.Header.Get("X-SQL-State") == "S1TAT" {
		// Virtuoso's "anytime" answer: the rows it had when the timeout
		// cut the query, which are not the query's answer.
		return nil, noRetry, fmt.Errorf("%w: %w: the endpoint returned incomplete results at the timeout (%s)",
			backend.ErrUnavailable, context.DeadlineExceeded, resp.Header.Get("X-SQL-Message"))
	}
	t, err := e.decode(resp)
	if err != nil && ctx.Err() != nil {
		return nil, noRetry, fmt.Errorf("%w: %w", backend.ErrUnavailable, ctx.Err())
	}
	return t, noRetry, err
}

// virtuosoState finds the SQLSTATE of a Virtuoso error page ("Virtuoso
// 22012 Error SR084: Division by 0.").
var virtuosoState = regexp.MustCompile(`\bVirtuoso ([0-9A-Z]{5}) Error\b`)

// statusError reads a 4xx or 5xx answer other than 429 and 503. A 4xx is
// the query's fault. Virtuoso answers 500 to every error; its SQLSTATE
// tells the query's fault (classes 21, 22 data, 37 and 42 syntax and
// access rules) and a timeout (S1T00, S1TAT) from the endpoint's own
// failure (out of memory, a lost connection, anything else).
func statusError(resp *http.Response) error {
	body := snippet(resp.Body)
	if resp.StatusCode < 500 {
		return fmt.Errorf("%w: %s: %s", backend.ErrQuery, resp.Status, body)
	}
	state := ""
	if m := virtuosoState.FindStringSubmatch(body); m != nil {
		state = m[1]
	}
	switch {
	case resp.StatusCode != http.StatusInternalServerError:
	case state == "S1T00" || state == "S1TAT":
		return fmt.Errorf("%w: %w: the endpoint stopped the query at its timeout: %s", backend.ErrUnavailable, context.DeadlineExceeded, body)
	case len(state) == 5 && strings.Contains(" 21 22 37 42 ", " "+state[:2]+" "):
		return fmt.Errorf("%w: %s", backend.ErrQuery, body)
	}
	return fmt.Errorf("%w: %s: %s", backend.ErrEndpoint, resp.Status, body)
}

// snippet returns the start of an error body, on one line.
func snippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 300))
	return strings.Join(strings.Fields(string(b)), " ")
}

func (e *Client) decode(resp *http.Response) (*backend.Table, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if strings.Contains(ct, "html") {
		return nil, fmt.Errorf("%w: got %s instead of SPARQL JSON results: %s", backend.ErrBadResponse, ct, snippet(resp.Body))
	}
	if resp.ContentLength > e.maxBytes {
		return nil, fmt.Errorf("%w: %d bytes announced, cap is %d", backend.ErrTooLarge, resp.ContentLength, e.maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, e.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading body: %v", backend.ErrUnavailable, err)
	}
	if int64(len(body)) > e.maxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", backend.ErrTooLarge, e.maxBytes)
	}
	return parseResultsJSON(body)
}
