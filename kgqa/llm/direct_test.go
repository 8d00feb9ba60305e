package llm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directClient is an HTTP client on a direct transport over a default
// transport's copy (so the proxy from the environment applies as in New).
func directClient(t *testing.T, edit func(*http.Transport)) (*http.Client, *directTransport) {
	t.Helper()
	fb := http.DefaultTransport.(*http.Transport).Clone()
	fb.ReadBufferSize, fb.WriteBufferSize = readBuffer, writeBuffer
	if edit != nil {
		edit(fb)
	}
	dt := newDirectTransport(fb, 4)
	hc := &http.Client{Transport: dt}
	t.Cleanup(hc.CloseIdleConnections)
	return hc, dt
}

// countingServer echoes each request's body with its method and counts
// the connections it accepted.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func echo(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "%s %s %s", r.Method, r.Header.Get("X-Test"), b)
}

func post(t *testing.T, hc *http.Client, ctx context.Context, u, body string) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-Test", "h")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestDirectTransportKeepsOneConnection(t *testing.T) {
	srv, conns := countingServer(t, echo)
	hc, _ := directClient(t, nil)
	var wrote atomic.Int32
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		WroteRequest: func(w httptrace.WroteRequestInfo) {
			if w.Err == nil {
				wrote.Add(1)
			}
		},
	})
	for i := range 20 {
		got, err := post(t, hc, ctx, srv.URL+"/v1/chat/completions", fmt.Sprint("body ", i))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint("POST h body ", i), got)
	}
	assert.EqualValues(t, 1, conns.Load(), "twenty calls in a row, one connection")
	assert.EqualValues(t, 20, wrote.Load(), "the trace hears of every request written")
}

func TestDirectTransportChunkedReply(t *testing.T) {
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "part one, ")
		w.(http.Flusher).Flush() // no Content-Length: chunked
		_, _ = io.WriteString(w, "part two")
	})
	hc, _ := directClient(t, nil)
	for range 3 {
		got, err := post(t, hc, context.Background(), srv.URL, "x")
		require.NoError(t, err)
		assert.Equal(t, "part one, part two", got)
	}
	assert.EqualValues(t, 1, conns.Load())
}

func TestDirectTransportClosesAConnectionLeftUnread(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, big)
	})
	hc, dt := directClient(t, nil)
	resp, err := hc.Post(srv.URL, "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	buf := make([]byte, 10)
	_, err = io.ReadFull(resp.Body, buf)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Zero(t, idleTo(dt, srv.URL), "a reply not read to its end does not go back")
	got, err := post(t, hc, context.Background(), srv.URL, "x")
	require.NoError(t, err)
	assert.Len(t, got, len(big))
	assert.EqualValues(t, 2, conns.Load())
}

// oneShotServer answers one request per connection and then closes it
// without saying so (no Connection: close), as a server that drops idle
// connections does; it records the bodies it got.
func oneShotServer(t *testing.T) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	addr := tcpServer(t, func(c net.Conn) {
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err == nil {
			b, _ := io.ReadAll(req.Body)
			mu.Lock()
			bodies = append(bodies, string(b))
			mu.Unlock()
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
		}
	})
	return "http://" + addr, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

func TestDirectTransportSendsAgainOnAConnectionTheServerClosed(t *testing.T) {
	u, bodies := oneShotServer(t)
	hc, _ := directClient(t, nil)
	for _, body := range []string{"first", "second", "third"} {
		got, err := post(t, hc, context.Background(), u, body)
		require.NoError(t, err)
		assert.Equal(t, body, got)
		time.Sleep(20 * time.Millisecond) // let the close land before the reuse
	}
	assert.Equal(t, []string{"first", "second", "third"}, bodies(), "each body reached the server once, whole")
}

func TestDirectTransportCancelWhileWaiting(t *testing.T) {
	release := make(chan struct{})
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") == "h" && r.URL.Path == "/slow" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		echo(w, r)
	})
	defer close(release)
	hc, dt := directClient(t, nil)
	_, err := post(t, hc, context.Background(), srv.URL, "warm")
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = post(t, hc, ctx, srv.URL+"/slow", "x")
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Zero(t, idleTo(dt, srv.URL), "the cancelled call's connection is not kept")

	got, err := post(t, hc, context.Background(), srv.URL, "after")
	require.NoError(t, err)
	assert.Equal(t, "POST h after", got)
	assert.EqualValues(t, 2, conns.Load(), "the call after the cancelled one dials again")
}

func TestDirectTransportCancelWhileReadingTheBody(t *testing.T) {
	release := make(chan struct{})
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "head ")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	hc, _ := directClient(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := hc.Do(must(http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)))
	require.NoError(t, err)
	defer resp.Body.Close()
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = io.ReadAll(resp.Body)
	assert.ErrorIs(t, err, context.Canceled)
}

func must(r *http.Request, err error) *http.Request {
	if err != nil {
		panic(err)
	}
	return r
}

func TestDirectTransportLeavesProxiesAndTLSToHTTPTransport(t *testing.T) {
	t.Run("tls", func(t *testing.T) {
		srv := httptest.NewTLSServer(http.HandlerFunc(echo))
		defer srv.Close()
		hc, dt := directClient(t, func(tr *http.Transport) {
			tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
		})
		got, err := post(t, hc, context.Background(), srv.URL, "secure")
		require.NoError(t, err)
		assert.Equal(t, "POST h secure", got)
		assert.Empty(t, dt.idle, "https went through http.Transport")
	})
	t.Run("proxy", func(t *testing.T) {
		var proxied atomic.Int32
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			proxied.Add(1)
			_, _ = io.WriteString(w, "via proxy "+r.URL.String())
		}))
		defer proxy.Close()
		pu, err := url.Parse(proxy.URL)
		require.NoError(t, err)
		hc, _ := directClient(t, func(tr *http.Transport) { tr.Proxy = http.ProxyURL(pu) })
		got, err := post(t, hc, context.Background(), "http://model.invalid/v1/chat", "x")
		require.NoError(t, err)
		assert.Equal(t, "via proxy http://model.invalid/v1/chat", got)
		assert.EqualValues(t, 1, proxied.Load())
	})
}

func TestDirectTransportDialError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	hc, _ := directClient(t, nil)
	_, err = post(t, hc, context.Background(), "http://"+addr, "x")
	var op *net.OpError
	assert.True(t, errors.As(err, &op), "a refused dial is the dialer's error: %v", err)
}

func TestDirectTransportMalformedReply(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = http.ReadRequest(bufio.NewReader(c))
		_, _ = io.WriteString(c, "not http at all\r\n\r\n")
		_ = c.Close()
	}()
	defer func() { _ = ln.Close(); <-done }()
	hc, _ := directClient(t, nil)
	_, err = post(t, hc, context.Background(), "http://"+ln.Addr().String(), "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "malformed HTTP")
}

// burst makes calls echo calls from each of n goroutines at once.
func burst(t *testing.T, hc *http.Client, u string, n, calls int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range calls {
				body := fmt.Sprint(i, "-", j)
				got, err := post(t, hc, context.Background(), u, body)
				if assert.NoError(t, err) {
					assert.Equal(t, "POST h "+body, got)
				}
			}
		}()
	}
	wg.Wait()
}

// idleTo is how many idle connections dt keeps to the host of u.
func idleTo(dt *directTransport, u string) int {
	dt.mu.Lock()
	defer dt.mu.Unlock()
	return len(dt.idle[canonicalAddr(must(http.NewRequest(http.MethodGet, u, nil)))])
}

func TestDirectTransportConcurrentCalls(t *testing.T) {
	srv, conns := countingServer(t, echo)
	hc, dt := directClient(t, nil)
	burst(t, hc, srv.URL, 16, 10)
	assert.LessOrEqual(t, idleTo(dt, srv.URL), 4, "at most maxIdle kept")
	before := conns.Load()
	for i := range 10 {
		got, err := post(t, hc, context.Background(), srv.URL, fmt.Sprint("after ", i))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint("POST h after ", i), got)
	}
	assert.Equal(t, before, conns.Load(), "calls in a row after the burst dial nothing new")
}

func TestDirectTransportAfterTheServerDroppedEveryConnection(t *testing.T) {
	// The first four calls wait for each other at the server, so they hold
	// four connections at once, all idle afterwards.
	var arrived atomic.Int32
	all := make(chan struct{})
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == 4 {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(10 * time.Second):
		}
		echo(w, r)
	})
	hc, dt := directClient(t, nil)
	burst(t, hc, srv.URL, 4, 1)
	idle := idleTo(dt, srv.URL)
	require.Equal(t, 4, idle, "four idle connections to go stale")
	srv.CloseClientConnections()
	time.Sleep(20 * time.Millisecond)
	before := conns.Load()
	for i := range idle + 1 {
		got, err := post(t, hc, context.Background(), srv.URL, fmt.Sprint("again ", i))
		require.NoError(t, err, "call %d after the drop", i)
		assert.Equal(t, fmt.Sprint("POST h again ", i), got)
	}
	assert.Greater(t, conns.Load(), before)
}

func TestDirectTransportDropsConnectionsIdleTooLong(t *testing.T) {
	srv, conns := countingServer(t, echo)
	// Wide enough that two calls in a row fall inside it on a loaded machine.
	hc, _ := directClient(t, func(tr *http.Transport) { tr.IdleConnTimeout = 500 * time.Millisecond })
	_, err := post(t, hc, context.Background(), srv.URL, "one")
	require.NoError(t, err)
	_, err = post(t, hc, context.Background(), srv.URL, "two")
	require.NoError(t, err)
	require.EqualValues(t, 1, conns.Load(), "reused within the idle timeout")
	time.Sleep(time.Second)
	_, err = post(t, hc, context.Background(), srv.URL, "three")
	require.NoError(t, err)
	assert.EqualValues(t, 2, conns.Load(), "dialled again after the idle timeout")
}

func TestDirectTransportRefusesHeadersAsHTTPTransportDoes(t *testing.T) {
	var injected atomic.Int32
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Injected") != "" {
			injected.Add(1)
		}
		echo(w, r)
	})
	hc, _ := directClient(t, nil)
	for _, h := range [][2]string{{"X-Test", "a\r\nInjected: 1"}, {"Bad Name", "x"}} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("x"))
		require.NoError(t, err)
		req.Header[h[0]] = []string{h[1]}
		_, err = hc.Do(req)
		require.Error(t, err, "%q: %q", h[0], h[1])
		assert.Contains(t, err.Error(), "invalid header field")
	}
	assert.Zero(t, injected.Load())
}

// tcpServer accepts connections on a loopback port until the test ends
// and runs handle on each in its own goroutine, closing the connection
// when handle returns; it returns the port's address.
func tcpServer(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	tb.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	return ln.Addr().String()
}
