package llm

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainReplies are replies readPlainReply reads itself.
var plainReplies = []string{
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel",
	"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n",
	"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nnext",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 1\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nbad trailer\r\n\r\n",
	"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
	"HTTP/1.1 200\r\npragma: no-cache\r\nset-cookie: a\r\nSet-Cookie: b\r\nContent-Length:   1  \r\n\r\nz",
	"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nX-Odd: \x80\xff\t v \r\nContent-Length: 1\r\n\r\nx",
}

// unusualReplies are replies readPlainReply leaves to http.ReadResponse.
var unusualReplies = []string{
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nX: a\r\n  folded\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\nContent-Length: 1\n\nx",
	"HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\nx",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 1\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	"HTTP/1.1 200 OK\r\nBad Name: 1\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nNoColon\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 200 OK\r\nX: a\rb\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1  200 OK\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n",
	"garbage\r\n\r\n",
	"HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n",
	"HTTP/1.1 200 OK\r\n\r\nunbounded",
}

// FuzzReadReplyHeader feeds replies to readPlainReply and to
// http.ReadResponse: whenever the one accepts a reply, the other must
// too, and give the same reply, the same body (bytes and error) and leave
// the same bytes behind it for the next reply.
func FuzzReadReplyHeader(f *testing.F) {
	for _, s := range append(plainReplies, unusualReplies...) {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(plainReplies[0]), true)
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		req := must(http.NewRequest(http.MethodPost, "http://h/v1/chat/completions", nil))
		if head {
			req.Method = http.MethodHead
		}
		br := bufio.NewReaderSize(bytes.NewReader(data), 256)
		got, _ := readPlainReply(br, req)
		if got == nil {
			return
		}
		wbr := bufio.NewReaderSize(bytes.NewReader(data), 256)
		want, err := http.ReadResponse(wbr, req)
		require.NoError(t, err, "accepted by hand, refused by ReadResponse: %q", data)
		assert.Equal(t, want.Status, got.Status)
		assert.Equal(t, want.StatusCode, got.StatusCode)
		assert.Equal(t, want.Proto, got.Proto)
		assert.Equal(t, [2]int{want.ProtoMajor, want.ProtoMinor}, [2]int{got.ProtoMajor, got.ProtoMinor})
		assert.Equal(t, want.Header, got.Header)
		assert.Equal(t, want.ContentLength, got.ContentLength)
		assert.Equal(t, want.Close, got.Close)
		assert.Equal(t, want.TransferEncoding, got.TransferEncoding)
		assert.Same(t, req, got.Request)
		wantBody, wantErr := io.ReadAll(want.Body)
		gotBody, gotErr := io.ReadAll(got.Body)
		assert.Equal(t, wantBody, gotBody)
		assert.Equal(t, errText(wantErr), errText(gotErr))
		assert.Equal(t, want.Trailer, got.Trailer)
		wantRest, _ := io.ReadAll(wbr)
		gotRest, _ := io.ReadAll(br)
		assert.Equal(t, wantRest, gotRest, "what is left for the next reply")
	})
}

func TestReadPlainReplyDeclines(t *testing.T) {
	for _, s := range unusualReplies {
		br := bufio.NewReader(strings.NewReader(s))
		got, fallback := readPlainReply(br, must(http.NewRequest(http.MethodGet, "http://h/", nil)))
		assert.Nil(t, got, "%q", s)
		assert.Same(t, br, fallback, "%q: read by ReadResponse from the start", s)
		assert.Equal(t, len(s), br.Buffered(), "nothing consumed")
	}
	for _, s := range plainReplies {
		got, _ := readPlainReply(bufio.NewReader(strings.NewReader(s)), must(http.NewRequest(http.MethodGet, "http://h/", nil)))
		assert.NotNil(t, got, "%q is plain", s)
	}
}
