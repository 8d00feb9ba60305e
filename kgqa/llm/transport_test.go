package llm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// These tests hold the client on go-openai and http.Transport to what a
// model endpoint may do to a connection: keep it, close it while it is
// idle, hang up in the middle of a reply, send an odd reply.

// clientAt is a client whose reasoner is at baseURL with no retries and
// fast backoff; edit adjusts the endpoint.
func clientAt(t *testing.T, baseURL string, edit func(*config.Endpoint)) *Client {
	t.Helper()
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model, ep.Timeout, ep.Retries = baseURL, "test-model", 10*time.Second, 0
	if edit != nil {
		edit(&ep)
	}
	c, err := New(config.LLM{Reasoner: ep}, WithBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// completion is a chat completion body whose first choice says content.
func completion(content string) string {
	return fmt.Sprintf(`{"id":"c1","object":"chat.completion","model":"test-model",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`, content)
}

func TestRequestAsGoOpenAISendsIt(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text(`{"answer": "Germany"}`)))
	c := newClient(t, srv, func(ep *config.Endpoint) { ep.APIKey, ep.Seed = "sk-test", ptr(7) })
	var out answer
	_, err := c.JSON(context.Background(), jsonReq("final"), &out, nil)
	require.NoError(t, err)
	require.Equal(t, 1, srv.Count())
	got := srv.Requests()[0]
	// go-openai's CreateChatCompletion marshals its ChatCompletionRequest:
	// the fields in its struct's order, "stream" always, temperature 0 sent
	// as the smallest float (go-openai leaves a zero out), the reply schema
	// in its strict form.
	assert.Equal(t, `{"model":"test-model",`+
		`"messages":[{"role":"user","content":"Which country?"}],`+
		`"max_tokens":1024,"temperature":1e-45,"stream":false,`+
		`"response_format":{"type":"json_schema","json_schema":{"name":"final_answer",`+
		`"schema":{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false},"strict":true}},`+
		`"seed":7}`, string(got.Body))
	for name, want := range map[string]string{
		"Content-Type":  "application/json",
		"Accept":        "application/json",
		"Authorization": "Bearer sk-test",
		StageHeader:     "final",
	} {
		assert.Equal(t, want, got.Header.Get(name), name)
	}
	assert.NotContains(t, got.Header, "Idempotency-Key", "the idempotency mark is for http.Transport, not the wire")
}

// countingServer serves h and counts the connections it accepted.
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

func TestConnectionsAreKept(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(w http.ResponseWriter)
	}{
		{"with a length", func(w http.ResponseWriter) { _, _ = io.WriteString(w, completion("ok")) }},
		{"with a newline after the JSON", func(w http.ResponseWriter) { _, _ = io.WriteString(w, completion("ok")+"\n") }},
		{"chunked", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, completion("ok"))
			w.(http.Flusher).Flush() // no Content-Length: the end comes as a chunk of its own
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				tc.write(w)
			})
			c := clientAt(t, srv.URL, nil)
			for range 10 {
				resp, err := c.Chat(context.Background(), ask("plan", "q"))
				require.NoError(t, err)
				assert.Equal(t, "ok", resp.Content)
			}
			assert.EqualValues(t, 1, conns.Load(), "ten calls in a row, one connection")
		})
	}
}

func TestConcurrentCallsKeepTheirConnections(t *testing.T) {
	// The first eight calls wait for each other at the server, so that
	// eight connections are open at once.
	var arrived atomic.Int32
	all := make(chan struct{})
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == 8 {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(10 * time.Second):
		}
		_, _ = io.WriteString(w, completion("ok"))
	})
	c := clientAt(t, srv.URL, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := c.Chat(context.Background(), ask("plan", "q"))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	require.EqualValues(t, 8, conns.Load())
	for range 8 {
		wg.Go(func() {
			_, err := c.Chat(context.Background(), ask("plan", "q"))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.EqualValues(t, 8, conns.Load(), "a second burst goes on the kept connections")
}

// tcpServer accepts connections on a loopback port until the test ends
// and runs handle on each in its own goroutine, closing the connection
// when handle returns; it returns the base URL.
func tcpServer(t *testing.T, handle func(c net.Conn, n int)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Go(func() {
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				handle(c, n)
			})
		}
	})
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	return "http://" + ln.Addr().String()
}

// rawModel is a model endpoint written by hand on a loopback port: reply
// gives what to write for request i of connection n, and whether to hang
// up after it (an empty reply hangs up at once). It counts the requests
// it read.
type rawModel struct {
	url      string
	requests atomic.Int32
}

func newRawModel(t *testing.T, reply func(n, i int) (string, bool)) *rawModel {
	t.Helper()
	m := &rawModel{}
	m.url = tcpServer(t, func(c net.Conn, n int) {
		br := bufio.NewReader(c)
		for i := 0; ; i++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, req.Body)
			m.requests.Add(1)
			text, hangUp := reply(n, i)
			if text != "" {
				_, _ = io.WriteString(c, text)
			}
			if hangUp || text == "" {
				return
			}
		}
	})
	return m
}

func okReply(content string) string {
	body := completion(content)
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// partReply is the start of a reply whose body never comes whole.
const partReply = "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"choices\":["

func TestStaleKeptAliveConnection(t *testing.T) {
	t.Run("closed while idle", func(t *testing.T) {
		// One reply per connection, then a close that the reply did not
		// announce (no Connection: close), as a server that drops idle
		// connections does.
		m := newRawModel(t, func(int, int) (string, bool) { return okReply("ok"), true })
		c := clientAt(t, m.url, nil)
		for i := range 3 {
			resp, err := c.Chat(context.Background(), ask("plan", "q"))
			require.NoError(t, err, "call %d", i)
			assert.Equal(t, "ok", resp.Content)
			assert.Zero(t, resp.Usage.Retries)
		}
		assert.EqualValues(t, 3, m.requests.Load())
	})
	t.Run("closed when the next request came", func(t *testing.T) {
		// The first connection answers one request and hangs up on the
		// second before a byte of its reply: the request goes again at
		// once on a new connection, without a retry of the client's own.
		m := newRawModel(t, func(n, i int) (string, bool) {
			if n == 0 && i == 1 {
				return "", true
			}
			return okReply(fmt.Sprint("conn ", n)), false
		})
		c := clientAt(t, m.url, nil)
		resp, err := c.Chat(context.Background(), ask("plan", "q"))
		require.NoError(t, err)
		assert.Equal(t, "conn 0", resp.Content)
		resp, err = c.Chat(context.Background(), ask("plan", "q"))
		require.NoError(t, err, "sent again on a new connection")
		assert.Equal(t, "conn 1", resp.Content)
		assert.Zero(t, resp.Usage.Retries)
		assert.EqualValues(t, 3, m.requests.Load())
	})
	t.Run("closed in the middle of the reply", func(t *testing.T) {
		// Part of a reply came back: the request is not sent again by
		// the transport; the client's retries decide.
		for _, retries := range []int{0, 1} {
			m := newRawModel(t, func(int, int) (string, bool) { return partReply, true })
			c := clientAt(t, m.url, func(ep *config.Endpoint) { ep.Retries = retries })
			_, err := c.Chat(context.Background(), ask("plan", "q"))
			require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assert.EqualValues(t, retries+1, m.requests.Load(), "retries %d", retries)
		}
	})
}

func TestCancelStopsACallMidReply(t *testing.T) {
	// The server sends the reply's header and the start of its body, then
	// waits (for a next request); the call is cancelled once the reply
	// has begun to come back.
	m := newRawModel(t, func(int, int) (string, bool) { return partReply, false })
	c := clientAt(t, m.url, func(ep *config.Endpoint) { ep.Retries, ep.Timeout = 3, time.Minute })
	ledger := kgqa.NewLedger()
	replying := make(chan struct{})
	ctx := httptrace.WithClientTrace(kgqa.WithLedger(context.Background(), ledger), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { close(replying) },
	})
	ctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, ask("plan", "q"))
		errc <- err
	}()
	<-replying
	cancel()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, kgqa.ErrModelUnavailable, "the caller's cancel, not the endpoint's failure")
	case <-time.After(5 * time.Second):
		t.Fatal("the call went on after its context was cancelled")
	}
	assert.EqualValues(t, 1, m.requests.Load(), "not retried")
	calls := ledger.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, 1, calls[0].Requests)
}

func TestOddReplies(t *testing.T) {
	for _, tc := range []struct {
		name, body, content string
		estimated           bool
		err                 string
	}{
		{name: "content null", body: `{"choices":[{"message":{"role":"assistant","content":null}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`},
		{name: "no usage", body: `{"choices":[{"message":{"content":"hi"}}]}`, content: "hi", estimated: true},
		{name: "usage null", body: `{"choices":[{"message":{"content":"hi"}}],"usage":null}`, content: "hi", estimated: true},
		{name: "a key given twice: the last wins", body: `{"choices":[{"message":{"content":"a","content":"b"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, content: "b"},
		{name: "unknown fields", body: `{"x":[1,{"y":2}],"choices":[{"message":{"content":"hi","reasoning_content":"hmm","extra":{}}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, content: "hi"},
		{name: "escapes", body: `{"choices":[{"message":{"content":"\u00e9\n\"q\"\ud83d\ude00"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, content: "é\n\"q\"😀"},
		{name: "two choices: the first is read", body: `{"choices":[{"message":{"content":"one"}},{"message":{"content":"two"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, content: "one"},
		{name: "choices null", body: `{"choices":null}`, err: "no choices"},
		{name: "content of another type", body: `{"choices":[{"message":{"content":42}}]}`, err: "unmarshal"},
		{name: "a token count as text", body: `{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":"3"}}`, err: "unmarshal"},
		{name: "cut short", body: `{"choices":[{"message":{"content":"hi"`, err: "unexpected EOF"},
		{name: "not JSON", body: `<html>busy</html>`, err: "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Reply{Body: tc.body}))
			c := newClient(t, srv, func(ep *config.Endpoint) { ep.Retries = 0 })
			resp, err := c.Chat(context.Background(), ask("plan", "q"))
			if tc.err != "" {
				require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.content, resp.Content)
			assert.Equal(t, tc.estimated, resp.Usage.Estimated)
		})
	}
}
