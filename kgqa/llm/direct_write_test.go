package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireRequest is a request as the tests of the writer build it, with a
// trace that counts what it hears.
type wireRequest struct {
	name    string
	method  string
	url     string
	body    func() io.Reader // nil: no body
	length  int64            // ContentLength when not the body's own
	header  http.Header
	host    string
	noTrace bool
	query   string // RawQuery, set after the URL is parsed
}

func (w wireRequest) build(t *testing.T, heard *[]string) *http.Request {
	t.Helper()
	var body io.Reader
	if w.body != nil {
		body = w.body()
	}
	ctx := context.Background()
	if !w.noTrace {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteHeaders: func() { *heard = append(*heard, "headers") },
			WroteRequest: func(i httptrace.WroteRequestInfo) { *heard = append(*heard, "request "+errText(i.Err)) },
		})
	}
	req, err := http.NewRequestWithContext(ctx, w.method, w.url, body)
	require.NoError(t, err)
	if w.length != 0 {
		req.ContentLength = w.length
	}
	for k, v := range w.header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Host = w.host
	if w.query != "" {
		req.URL.RawQuery = w.query
	}
	return req
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func TestWriteRequestMatchesRequestWrite(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"Which country?"}],"stream":false}`
	text := func(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }
	api := http.Header{"Accept": {"application/json"}, "Content-Type": {"application/json"}, StageHeader: {"answer"}}
	withAuth := api.Clone()
	withAuth["Authorization"] = []string{"Bearer sk-1"}
	for _, w := range []wireRequest{
		{name: "chat", method: "POST", url: "http://127.0.0.1:8000/v1/chat/completions", body: text(chat), header: withAuth},
		{name: "chat without key", method: "POST", url: "http://localhost/v1/chat/completions", body: text(chat), header: api},
		{name: "bytes body", method: "POST", url: "http://h:1/x", body: func() io.Reader { return bytes.NewReader([]byte(chat)) }, header: api},
		{name: "body that may block", method: "POST", url: "http://h:1/x", body: func() io.Reader { return iotest.OneByteReader(strings.NewReader(chat)) }, length: int64(len(chat))},
		{name: "large body", method: "POST", url: "http://h:1/x", body: text(strings.Repeat("y", 100<<10))},
		{name: "get", method: "GET", url: "http://h:1/v1/models?limit=2", header: http.Header{"Authorization": {"Bearer k"}}},
		{name: "empty method", method: "", url: "http://h:1/v1/models"},
		{name: "post without body", method: "POST", url: "http://h/ping"},
		{name: "no body", method: "POST", url: "http://h/ping", body: func() io.Reader { return http.NoBody }},
		{name: "user agent", method: "GET", url: "http://h/", header: http.Header{"User-Agent": {"  parog/1 "}}},
		{name: "no user agent", method: "GET", url: "http://h/", header: http.Header{"User-Agent": {""}}},
		{name: "odd headers", method: "POST", url: "http://[::1]:80/a%20b", body: text("x"), host: "model.local:9",
			header: http.Header{"x-lower": {"a"}, "Multi": {" one", "two\t", ""}, "Empty": {}, "Transfer-Encoding": {"gzip"},
				"Content-Length": {"99"}, "Host": {"other"}, "Trailer": {"X"}}},
		{name: "no trace", method: "POST", url: "http://h/", body: text(chat), noTrace: true},
		{name: "short body", method: "POST", url: "http://h/", body: text("abc"), length: 5},
		{name: "long body", method: "POST", url: "http://h/", body: text("abcdefg"), length: 5},
		{name: "failing body", method: "POST", url: "http://h/", body: func() io.Reader { return iotest.ErrReader(errors.New("disk gone")) }, length: 5},
		{name: "control character", method: "GET", url: "http://h/a", query: "b\nc"},
	} {
		t.Run(w.name, func(t *testing.T) {
			var wantHeard, gotHeard []string
			want := new(bytes.Buffer)
			wantErr := w.build(t, &wantHeard).Write(want)

			req := w.build(t, &gotHeard)
			require.True(t, plainRequest(req), "written by hand")
			got := new(bytes.Buffer)
			bw := bufio.NewWriterSize(got, 32<<10)
			gotErr := writeRequest(bw, req)
			require.NoError(t, bw.Flush())

			assert.Equal(t, errText(wantErr), errText(gotErr))
			if wantErr == nil {
				assert.Equal(t, want.String(), got.String())
			}
			assert.Equal(t, wantHeard, gotHeard, "what the trace heard")
		})
	}
}

func TestPlainRequestDeclinesTheUnusual(t *testing.T) {
	base := func() *http.Request {
		return must(http.NewRequest(http.MethodPost, "http://h:1/x", strings.NewReader("x")))
	}
	for name, edit := range map[string]func(r *http.Request) *http.Request{
		"put":          func(r *http.Request) *http.Request { r.Method = http.MethodPut; return r },
		"trailer":      func(r *http.Request) *http.Request { r.Trailer = http.Header{"X": nil}; return r },
		"idn host":     func(r *http.Request) *http.Request { r.Host = "bücher.example"; return r },
		"zone":         func(r *http.Request) *http.Request { r.Host = "[fe80::1%25en0]:8"; return r },
		"opaque":       func(r *http.Request) *http.Request { r.URL.Opaque = "//h/x"; return r },
		"length, nil":  func(r *http.Request) *http.Request { r.Body = nil; return r },
		"many headers": func(r *http.Request) *http.Request { manyHeaders(r); return r },
		"field trace": func(r *http.Request) *http.Request {
			return r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{WroteHeaderField: func(string, []string) {}}))
		},
	} {
		assert.False(t, plainRequest(edit(base())), name)
	}
	assert.True(t, plainRequest(base()))
}

func manyHeaders(r *http.Request) {
	for i := range maxPlainHeaders + 1 {
		r.Header.Set(string(rune('A'+i))+"-X", "v")
	}
}
