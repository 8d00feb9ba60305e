package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawReply is what rawServer writes for one request: pieces written one
// by one with a pause between them, then the connection closed when
// hangUp is set.
type rawReply struct {
	pieces []string
	hangUp bool
}

// rawServer answers the requests it reads, on whatever connection, with
// the replies in turn; it counts connections and requests.
type rawServer struct {
	url             string
	conns, requests atomic.Int32
	mu              sync.Mutex
	replies         []rawReply
}

func newRawServer(t *testing.T, replies ...rawReply) *rawServer {
	t.Helper()
	s := &rawServer{replies: replies}
	s.url = "http://" + tcpServer(t, func(c net.Conn) {
		s.conns.Add(1)
		s.serve(c)
	})
	return s
}

func (s *rawServer) serve(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		s.requests.Add(1)
		s.mu.Lock()
		if len(s.replies) == 0 {
			s.mu.Unlock()
			return
		}
		r := s.replies[0]
		s.replies = s.replies[1:]
		s.mu.Unlock()
		for i, p := range r.pieces {
			if i > 0 {
				time.Sleep(time.Millisecond)
			}
			if _, err := io.WriteString(c, p); err != nil {
				return
			}
		}
		if r.hangUp {
			return
		}
	}
}

// whole is a reply written in one piece.
func whole(s string) rawReply { return rawReply{pieces: []string{s}} }

// call posts to u and reads the reply: status, body and the reply itself.
func call(t *testing.T, hc *http.Client, u string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, u+"/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func TestDirectTransportReadsRawReplies(t *testing.T) {
	big := strings.Repeat("h", 20<<10)
	for _, tc := range []struct {
		name    string
		reply   rawReply
		body    string
		status  int
		reused  bool // the next call goes on the same connection
		trailer http.Header
	}{
		{name: "length", reply: whole("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), body: "hello", status: 200, reused: true},
		{name: "empty", reply: whole("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), status: 200, reused: true},
		{name: "chunked", reply: whole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n"),
			body: "hello", status: 200, reused: true},
		{name: "chunked with trailer", reply: whole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Sum: 5\r\n\r\n"),
			body: "hello", status: 200, reused: true, trailer: http.Header{"X-Sum": {"5"}}},
		{name: "error status", reply: whole("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}"),
			body: "{}", status: 429, reused: true},
		{name: "connection close", reply: whole("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello"), body: "hello", status: 200},
		{name: "100 continue first", reply: whole("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"),
			body: "hello", status: 200, reused: true},
		{name: "http/1.0", reply: whole("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"), body: "hello", status: 200},
		{name: "http/1.0 keep-alive", reply: whole("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello"),
			body: "hello", status: 200, reused: true},
		{name: "in small pieces", reply: rawReply{pieces: pieces("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello", 3)},
			body: "hello", status: 200, reused: true},
		{name: "header larger than the buffer", reply: whole("HTTP/1.1 200 OK\r\nX-Big: " + big + "\r\nContent-Length: 5\r\n\r\nhello"),
			body: "hello", status: 200, reused: true},
		{name: "no length", reply: rawReply{pieces: []string{"HTTP/1.1 200 OK\r\n\r\nhello"}, hangUp: true}, body: "hello", status: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRawServer(t, tc.reply, whole("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext"))
			hc, dt := directClient(t, nil)
			resp, body, err := call(t, hc, srv.url)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.body, body)
			assert.Equal(t, tc.trailer, resp.Trailer)
			assert.Equal(t, map[bool]int{true: 1, false: 0}[tc.reused], idleTo(dt, srv.url), "connection kept")
			_, body, err = call(t, hc, srv.url)
			require.NoError(t, err)
			assert.Equal(t, "next", body)
			assert.EqualValues(t, map[bool]int32{true: 1, false: 2}[tc.reused], srv.conns.Load(), "connections")
		})
	}
}

// pieces cuts s into pieces of n bytes.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}

func TestDirectTransportServerHangsUpMidReply(t *testing.T) {
	for _, tc := range []struct{ name, sent string }{
		{"mid header line", "HTTP/1.1 200 OK\r\nContent-Le"},
		{"after a header line", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"},
		{"mid status line", "HTTP/1.1 20"},
		{"mid body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What ReadResponse says of the same bytes, then the end.
			want := errorOf(t, tc.sent)
			srv := newRawServer(t, rawReply{pieces: []string{tc.sent}, hangUp: true})
			hc, dt := directClient(t, nil)
			_, _, err := call(t, hc, srv.url)
			require.Error(t, err)
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			assert.Equal(t, want, err.Error())
			assert.EqualValues(t, 1, srv.requests.Load(), "not sent again: part of a reply came back")
			assert.Zero(t, idleTo(dt, srv.url))
		})
	}
}

// errorOf is the error http.ReadResponse, then reading the body, gives
// for a reply of which only sent came before the end of the connection.
func errorOf(t *testing.T, sent string) string {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader([]byte(sent))), nil)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
	}
	require.Error(t, err)
	return err.Error()
}

func TestDirectTransportSendsAgainOnlyBeforeTheReply(t *testing.T) {
	// The first connection's server closes it after one reply without
	// saying so; the next call on it fails before any byte comes back and
	// goes again on a new connection.
	srv := newRawServer(t,
		rawReply{pieces: []string{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"}, hangUp: true},
		whole("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"))
	hc, _ := directClient(t, nil)
	_, body, err := call(t, hc, srv.url)
	require.NoError(t, err)
	assert.Equal(t, "one", body)
	time.Sleep(20 * time.Millisecond) // let the close land before the reuse
	_, body, err = call(t, hc, srv.url)
	require.NoError(t, err)
	assert.Equal(t, "two", body)
	assert.EqualValues(t, 2, srv.conns.Load())
	assert.EqualValues(t, 2, srv.requests.Load())
}
