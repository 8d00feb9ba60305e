package llm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/parog/parog-go/kgqa"
)

// pingTimeout bounds a Ping when the context has no earlier deadline.
const pingTimeout = 5 * time.Second

// Ping asks role's endpoint for its models (GET {base_url}/models), with
// the API key calls use, and reports whether it answered 200. It is the
// readiness check of a model endpoint: a refused connection or an error
// status wraps ErrUnavailable and names the endpoint's host; an
// unconfigured role gives ErrNotConfigured.
func (c *Client) Ping(ctx context.Context, role kgqa.Role) error {
	e := c.roles[role]
	if e == nil {
		return fmt.Errorf("llm: ping %s: %w", role, kgqa.ErrModelNotConfigured)
	}
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	base := strings.TrimRight(e.cfg.BaseURL, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return fmt.Errorf("llm: ping %s: %w", role, err)
	}
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &PingError{Role: role, Detail: fmt.Sprintf("model endpoint %s did not answer GET /models", HostOf(base)), Err: err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &PingError{Role: role, Detail: fmt.Sprintf("model endpoint %s answered GET /models with %d", HostOf(base), resp.StatusCode)}
	}
	return nil
}

// PingError is a failed Ping. It matches ErrUnavailable.
type PingError struct {
	// Role is the role whose endpoint failed.
	Role kgqa.Role
	// Detail says what the endpoint did, naming only its host.
	Detail string
	// Err is the transport error, if any (it may hold the full URL).
	Err error
}

func (e *PingError) Error() string {
	msg := "llm: " + string(e.Role) + ": " + e.Detail
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrUnavailable) hold, and exposes Err.
func (e *PingError) Unwrap() []error { return []error{kgqa.ErrModelUnavailable, e.Err} }

// HostOf is the host of a URL, without credentials, path or query: what a
// message may name of an endpoint.
func HostOf(raw string) string {
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	return rest
}
