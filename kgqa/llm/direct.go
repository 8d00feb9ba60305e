package llm

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/parog/parog-go/internal/rawtcp"
)

// directTransport sends plain-HTTP requests on kept-alive connections
// from the calling goroutine: it writes the request and reads the reply
// itself, where http.Transport hands each exchange between three
// goroutines (the caller, a connection's writer and its reader). A model
// call spends most of its life waiting for the model; on a lightly loaded
// server every handoff woke a second thread to look for work, and those
// wake-ups were most of the server's CPU per question (kgqa/server
// BenchmarkLoad, one client).
//
// Anything it does not handle the same way as http.Transport goes to
// fallback: https, a proxy from the environment, a request with a
// transfer encoding or an upgrade, and a header http.Transport refuses
// (a name that is not a token, a value with a line break), so that the
// refusal is http.Transport's own.
type directTransport struct {
	fallback *http.Transport // also gives the buffer sizes and the idle timeout
	dialer   net.Dialer
	maxIdle  int // idle connections kept per host

	mu   sync.Mutex
	idle map[string][]*directConn // by host:port
}

// directConn is one kept-alive connection with its buffers.
type directConn struct {
	net.Conn
	br *bufio.Reader
	bw *bufio.Writer
	// since is when the connection last went idle.
	since time.Time
}

func newDirectTransport(fallback *http.Transport, maxIdle int) *directTransport {
	return &directTransport{
		fallback: fallback,
		maxIdle:  maxIdle,
		idle:     map[string][]*directConn{},
	}
}

// handles reports whether t sends req itself.
func (t *directTransport) handles(req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" || len(req.TransferEncoding) > 0 ||
		req.Header.Get("Upgrade") != "" || req.Close {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0 {
		return false // a body of unknown length would be sent chunked
	}
	for name, values := range req.Header {
		if !httpguts.ValidHeaderFieldName(name) {
			return false
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return false
			}
		}
	}
	if t.fallback.Proxy != nil {
		if u, err := t.fallback.Proxy(req); err != nil || u != nil {
			return false
		}
	}
	return true
}

// RoundTrip implements http.RoundTripper.
func (t *directTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.handles(req) {
		return t.fallback.RoundTrip(req)
	}
	addr := canonicalAddr(req)
	for tries := 0; ; tries++ {
		// A second try dials: the idle connections left may all be
		// stale, as after the server restarted.
		c, reused, err := t.conn(req.Context(), addr, tries == 0)
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(req, c, addr)
		if err == nil {
			return resp, nil
		}
		// A kept-alive connection that failed before any byte of the
		// reply came back is most often one the server closed while it
		// sat idle, so the request goes again once on a new connection.
		// Unlike http.Transport, which watches idle connections with a
		// goroutine each, this learns of the close only on reuse, and
		// cannot tell it from a server that read the request and died:
		// a model call has no side effect, so a resend costs at most
		// one call's tokens.
		var stale staleError
		isStale := errors.As(err, &stale)
		if isStale {
			err = stale.err
		}
		if !isStale || !reused || tries > 0 || req.Context().Err() != nil {
			return nil, err
		}
		switch {
		case req.Body == nil || req.Body == http.NoBody:
		case req.GetBody != nil:
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		default:
			return nil, err
		}
	}
}

// staleError is a failure on a kept-alive connection before any byte of
// the reply came back.
type staleError struct{ err error }

func (e staleError) Error() string { return e.err.Error() }
func (e staleError) Unwrap() error { return e.err }

// exchange writes req on c, a connection to addr, and reads the reply's
// header; the reply's body gives c back to t when read to its end and
// closed.
func (t *directTransport) exchange(req *http.Request, c *directConn, addr string) (*http.Response, error) {
	ctx := req.Context()
	// A cancelled context ends a write or read in progress; until then
	// it costs no goroutine. stop reports false once the deadline is set.
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	fail := func(err error) (*http.Response, error) {
		stop()
		_ = c.Close()
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	// writeRequest and Request.Write tell the context's
	// httptrace.ClientTrace that the request was written, as
	// http.Transport's writer does (before the flush, there too).
	var werr error
	if plainRequest(req) {
		werr = writeRequest(c.bw, req)
	} else {
		werr = req.Write(c.bw)
	}
	if werr == nil {
		werr = c.bw.Flush()
	}
	if werr != nil {
		return fail(staleError{werr})
	}
	if _, err := c.br.Peek(1); err != nil {
		return fail(staleError{err})
	}
	var resp *http.Response
	for {
		var err error
		resp, err = readReply(c.br, req)
		if err != nil {
			return fail(err)
		}
		// Informational replies (100 Continue, 103 Early Hints) come
		// before the real one.
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		_ = resp.Body.Close()
	}
	resp.Body = &directBody{
		ctx: ctx, rc: resp.Body, c: c, t: t, addr: addr,
		keep: !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols,
		done: stop,
	}
	return resp, nil
}

// directBody is a reply's body; read to its end and closed, it puts its
// connection back among the idle ones.
type directBody struct {
	ctx    context.Context
	rc     io.ReadCloser
	c      *directConn
	t      *directTransport
	addr   string
	keep   bool
	eof    bool
	closed bool
	done   func() bool // stops the cancel watch; false if it fired (the connection is spent)
}

func (b *directBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errors.New("llm: read on a closed response body")
	}
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	if err != nil && err != io.EOF {
		if cerr := b.ctx.Err(); cerr != nil {
			err = cerr // the cancel watch ended the read
		}
	}
	return n, err
}

func (b *directBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	live := b.done()
	if b.eof && b.keep && live {
		b.t.put(b.addr, b.c)
		return nil
	}
	return b.c.Close()
}

// conn is an idle connection to addr when idle is set and takeIdle has
// one, else a new one; it reports whether the connection was idle.
func (t *directTransport) conn(ctx context.Context, addr string, idle bool) (*directConn, bool, error) {
	if idle {
		if c := t.takeIdle(addr); c != nil {
			return c, true, nil
		}
	}
	nc, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	// Raw reads and writes: the model's replies are most of the events that
	// wake an idle server (see internal/rawtcp).
	nc = rawtcp.Wrap(nc)
	return &directConn{Conn: nc, br: bufio.NewReaderSize(nc, t.fallback.ReadBufferSize), bw: bufio.NewWriterSize(nc, t.fallback.WriteBufferSize)}, false, nil
}

// takeIdle is the most recently used idle connection to addr, or nil when
// there is none or it idled longer than the fallback's IdleConnTimeout
// (then every idle connection to addr is closed: the rest idled longer
// still).
func (t *directTransport) takeIdle(addr string) *directConn {
	t.mu.Lock()
	l := t.idle[addr]
	if len(l) == 0 {
		t.mu.Unlock()
		return nil
	}
	c := l[len(l)-1]
	if limit := t.fallback.IdleConnTimeout; limit <= 0 || time.Since(c.since) <= limit {
		t.idle[addr] = l[:len(l)-1]
		t.mu.Unlock()
		return c
	}
	delete(t.idle, addr)
	t.mu.Unlock()
	for _, e := range l {
		_ = e.Close()
	}
	return nil
}

// put keeps c for the next request to addr, or closes it when the host
// has enough idle connections.
func (t *directTransport) put(addr string, c *directConn) {
	_ = c.SetDeadline(time.Time{})
	t.mu.Lock()
	if len(t.idle[addr]) >= t.maxIdle {
		t.mu.Unlock()
		_ = c.Close()
		return
	}
	c.since = time.Now()
	t.idle[addr] = append(t.idle[addr], c)
	t.mu.Unlock()
}

// CloseIdleConnections closes the idle connections of t and of its
// fallback (http.Client.CloseIdleConnections calls it).
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = map[string][]*directConn{}
	t.mu.Unlock()
	for _, l := range idle {
		for _, c := range l {
			_ = c.Close()
		}
	}
	t.fallback.CloseIdleConnections()
}

// canonicalAddr is req's host with its port (80 when the URL names none).
func canonicalAddr(req *http.Request) string {
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(host, port)
}
