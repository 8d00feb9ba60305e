package kg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// endpoint sends SELECT queries to a SPARQL 1.1 Protocol endpoint with its
// own client: it never touches http.DefaultClient, bounds every request by a
// deadline and every response by a size cap, and retries only what can
// succeed on a second try (connection errors, 5xx).
type endpoint struct {
	url      string
	client   *http.Client
	timeout  time.Duration
	retries  int
	maxBytes int64
	backoff  time.Duration
}

// endpointOptions configure an endpoint.
type endpointOptions struct {
	timeout  time.Duration
	retries  int
	maxBytes int64
	maxConns int
	backoff  time.Duration
}

func newEndpoint(rawURL string, o endpointOptions) (*endpoint, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kg: kg.endpoint: want an http(s) URL, got %q", rawURL)
	}
	if o.timeout <= 0 {
		o.timeout = 30 * time.Second
	}
	if o.maxBytes <= 0 {
		o.maxBytes = 64 << 20
	}
	if o.maxConns <= 0 {
		o.maxConns = 32
	}
	if o.backoff <= 0 {
		o.backoff = 100 * time.Millisecond
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        o.maxConns,
		MaxIdleConnsPerHost: o.maxConns,
		MaxConnsPerHost:     o.maxConns,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &endpoint{
		url: u.String(), client: &http.Client{Transport: tr},
		timeout: o.timeout, retries: max(o.retries, 0), maxBytes: o.maxBytes, backoff: o.backoff,
	}, nil
}

func (e *endpoint) close() error {
	e.client.CloseIdleConnections()
	return nil
}

// query runs q within the configured timeout, retries included.
func (e *endpoint) query(ctx context.Context, q string) (*table, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	var err error
	for attempt := 0; ; attempt++ {
		var t *table
		var retry bool
		t, retry, err = e.attempt(ctx, q)
		if err == nil {
			return t, nil
		}
		if !retry || attempt >= e.retries {
			return nil, err
		}
		d := e.backoff << attempt
		d = min(d, 5*time.Second)
		d += rand.N(d/2 + 1)
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("%w: %w (after %d attempts; last: %v)", ErrUnavailable, ctx.Err(), attempt+1, err)
		case <-timer.C:
		}
	}
}

// attempt sends q once; retry reports whether the failure is worth another
// try.
func (e *endpoint) attempt(ctx context.Context, q string) (*table, bool, error) {
	form := url.Values{"query": {q}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, strings.NewReader(form))
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/sparql-results+json")
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
		}
		return nil, true, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer func() {
		// Drain a little so the connection can be reused, never the whole
		// of an oversized body.
		_, _ = io.CopyN(io.Discard, resp.Body, 4096)
		_ = resp.Body.Close()
	}()
	switch {
	case resp.StatusCode >= 500:
		return nil, true, fmt.Errorf("%w: %s: %s", ErrUnavailable, resp.Status, snippet(resp.Body))
	case resp.StatusCode >= 400:
		return nil, false, fmt.Errorf("%w: %s: %s", ErrQuery, resp.Status, snippet(resp.Body))
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("%w: unexpected status %s", ErrBadResponse, resp.Status)
	}
	t, err := e.decode(resp)
	if err != nil && ctx.Err() != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
	}
	return t, false, err
}

// snippet returns the start of an error body, on one line.
func snippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 300))
	return strings.Join(strings.Fields(string(b)), " ")
}

func (e *endpoint) decode(resp *http.Response) (*table, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if strings.Contains(ct, "html") {
		return nil, fmt.Errorf("%w: got %s instead of SPARQL JSON results: %s", ErrBadResponse, ct, snippet(resp.Body))
	}
	if resp.ContentLength > e.maxBytes {
		return nil, fmt.Errorf("%w: %d bytes announced, cap is %d", ErrTooLarge, resp.ContentLength, e.maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, e.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading body: %v", ErrUnavailable, err)
	}
	if int64(len(body)) > e.maxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, e.maxBytes)
	}
	return parseResultsJSON(body)
}

// srj is the SPARQL 1.1 Query Results JSON format.
type srj struct {
	Head struct {
		Vars []string `json:"vars"`
	} `json:"head"`
	Results *struct {
		Bindings []map[string]srjTerm `json:"bindings"`
	} `json:"results"`
}

type srjTerm struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	Datatype string `json:"datatype"`
	Lang     string `json:"xml:lang"`
}

const (
	xsdNS     = "http://www.w3.org/2001/XMLSchema#"
	xsdString = xsdNS + "string"
)

func parseResultsJSON(body []byte) (*table, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '<' {
		return nil, fmt.Errorf("%w: got markup instead of SPARQL JSON results: %.80s", ErrBadResponse, trimmed)
	}
	var r srj
	if err := json.Unmarshal(body, &r); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: malformed or truncated JSON: %v", ErrBadResponse, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if r.Results == nil {
		return nil, fmt.Errorf("%w: JSON without results.bindings", ErrBadResponse)
	}
	t := &table{vars: r.Head.Vars, rows: make([]map[string]rterm, 0, len(r.Results.Bindings))}
	for _, b := range r.Results.Bindings {
		row := make(map[string]rterm, len(b))
		for k, v := range b {
			switch v.Type {
			case "uri":
				row[k] = rterm{kind: kindIRI, value: v.Value}
			case "bnode":
				row[k] = rterm{kind: kindBlank, value: v.Value}
			case "literal", "typed-literal":
				dt := v.Datatype
				if dt == xsdString || v.Lang != "" {
					dt = ""
				}
				row[k] = rterm{kind: kindLiteral, value: v.Value, datatype: dt, lang: v.Lang}
			default:
				return nil, fmt.Errorf("%w: unknown term type %q", ErrBadResponse, v.Type)
			}
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}
