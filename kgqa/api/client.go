package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// Error is a non-2xx answer of the server (or the error line of a stream).
type Error struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Message is the server's error text.
	Message string `json:"error"`
	// RequestID is the server's id of the request.
	RequestID string `json:"request_id,omitempty"`
	// Partial is the partial answer of a question that ran out of time.
	Partial *AskResponse `json:"partial,omitempty"`
	// Usage is what the question cost before it failed (see
	// ErrorResponse.Usage).
	Usage *kgqa.Usage `json:"usage,omitempty"`
	// RetryAfter is the Retry-After header of a 429 or 503, in seconds.
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("api: server answered %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

// Client calls a PARoG server. It is safe for concurrent use.
type Client struct {
	base *url.URL
	hc   *http.Client
	key  string
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithAPIKey sends key as a bearer token.
func WithAPIKey(key string) ClientOption { return func(c *Client) { c.key = key } }

// WithHTTPClient uses hc instead of http.DefaultClient. Streams last as long
// as the question, so hc.Timeout should be zero; pass deadlines in ctx.
func WithHTTPClient(hc *http.Client) ClientOption { return func(c *Client) { c.hc = hc } }

// NewClient returns a client of the server at baseURL
// (e.g. "http://127.0.0.1:8080").
func NewClient(baseURL string, opts ...ClientOption) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("api: new client: %q is not an http(s) URL", baseURL)
	}
	c := &Client{base: u, hc: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Ask asks a question and waits for the whole answer. A question that ran
// out of time returns an *Error with status 504 whose Partial holds what
// was reached.
func (c *Client) Ask(ctx context.Context, req AskRequest) (*AskResponse, error) {
	req.Stream = false
	var out AskResponse
	if err := c.do(ctx, http.MethodPost, "/v1/ask", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AskStream asks a question with stream:true and calls fn for every event
// in order, the final one included. It returns the final answer; a stream
// that ends in an error event returns that event's *Error. An error from fn
// stops reading and is returned.
func (c *Client) AskStream(ctx context.Context, req AskRequest, fn func(Event) error) (*AskResponse, error) {
	req.Stream = true
	resp, err := c.send(ctx, http.MethodPost, "/v1/ask", req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("api: ask stream: bad line: %w", err)
		}
		if fn != nil {
			if err := fn(ev); err != nil {
				return nil, err
			}
		}
		switch ev.Type {
		case kgqa.EventFinal:
			return ev.Answer, nil
		case EventError:
			if ev.Error == nil {
				return nil, errors.New("api: ask stream: error event without error")
			}
			return nil, ev.Error
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("api: ask stream: %w", err)
	}
	return nil, errors.New("api: ask stream: stream ended without a final event")
}

// Plan asks for the plan of a question only.
func (c *Client) Plan(ctx context.Context, question string) (*PlanResponse, error) {
	var out PlanResponse
	if err := c.do(ctx, http.MethodPost, "/v1/plan", PlanRequest{Question: question}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Entity returns an entity's name and relations; an id the KG has
// neither for is an *Error with status 404.
func (c *Client) Entity(ctx context.Context, id string) (*EntityResponse, error) {
	var out EntityResponse
	if err := c.do(ctx, http.MethodGet, "/v1/entities/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Search finds entities by name; limit <= 0 uses the server's default.
func (c *Client) Search(ctx context.Context, name string, limit int) (*SearchResponse, error) {
	q := url.Values{"name": {name}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out SearchResponse
	if err := c.do(ctx, http.MethodGet, "/v1/entities?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Health checks liveness (GET /healthz).
func (c *Client) Health(ctx context.Context) (*HealthResponse, error) {
	var out HealthResponse
	if err := c.do(ctx, http.MethodGet, "/healthz", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Ready checks readiness (GET /readyz). When a dependency is down it
// returns the checks together with an *Error of status 503.
func (c *Client) Ready(ctx context.Context) (*HealthResponse, error) {
	resp, err := c.request(ctx, http.MethodGet, "/readyz", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return nil, fmt.Errorf("api: readyz: %w", err)
	}
	var out HealthResponse
	if err := json.Unmarshal(b, &out); err != nil || out.Status == "" {
		if resp.StatusCode != http.StatusOK {
			// Not the server's answer (a proxy's page): report its status.
			return nil, errorFrom(resp, b)
		}
		return nil, fmt.Errorf("api: readyz: not a health response: %s", quote(b))
	}
	if resp.StatusCode != http.StatusOK {
		return &out, &Error{Status: resp.StatusCode, Message: "not ready", RequestID: resp.Header.Get(RequestIDHeader)}
	}
	return &out, nil
}

// do sends body as JSON and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("api: %s %s: decode: %w", method, path, err)
	}
	return nil
}

// send makes the request and turns a non-2xx answer into *Error.
func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	resp, err := c.request(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, readError(resp)
}

func (c *Client) request(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("api: %s %s: encode: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, rd)
	if err != nil {
		return nil, fmt.Errorf("api: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, "+NDJSONContentType)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("api: %s %s: %w", method, path, err)
	}
	return resp, nil
}

// readError decodes the one error shape; a body that is not in it (a
// proxy's HTML page) is quoted, truncated.
func readError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return errorFrom(resp, b)
}

// maxErrorBody bounds what is read of an error response.
const maxErrorBody = 16 << 20

// errorFrom is the *Error of a non-2xx response whose body is b.
func errorFrom(resp *http.Response, b []byte) error {
	e := &Error{Status: resp.StatusCode, RequestID: resp.Header.Get(RequestIDHeader)}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		e.RetryAfter = s
	}
	var body ErrorResponse
	if err := json.Unmarshal(b, &body); err == nil && body.Error != "" {
		e.Message, e.Partial, e.Usage = body.Error, body.Partial, body.Usage
		if body.RequestID != "" {
			e.RequestID = body.RequestID
		}
		return e
	}
	e.Message = quote(b)
	return e
}

// quote is a body shown in an error: trimmed, cut to 200 bytes.
func quote(b []byte) string {
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}
