package llm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"reflect"
	"strconv"
	"strings"
)

// The direct transport writes a model request and reads its reply's header
// itself: Request.Write formats every line with fmt and sorts the header
// through a pool, http.ReadResponse goes through textproto line by line,
// and together they were about 5% of the server's CPU under load (kgqa/server
// BenchmarkLoad). Both are done here for the plain case only, byte for
// byte as net/http does it (TestWriteRequestMatchesRequestWrite,
// FuzzReadReplyHeader); anything else goes to net/http.

// maxPlainHeaders is how many header keys a plain request may have (they
// are sorted on the stack).
const maxPlainHeaders = 16

// plainRequest reports whether writeRequest writes req as req.Write would,
// for a request the direct transport handles: GET or POST to a host of
// plain ASCII, no trailer, no opaque URL, a body of known length or none,
// and no trace of each header field.
func plainRequest(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodPost:
	default:
		return false
	}
	if req.Trailer != nil || req.URL.Opaque != "" || len(req.Header) > maxPlainHeaders ||
		(req.Body == nil && req.ContentLength != 0) {
		return false
	}
	if tr := httptrace.ContextClientTrace(req.Context()); tr != nil && tr.WroteHeaderField != nil {
		return false
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	for i := 0; i < len(host); i++ {
		// No IDN to convert, no IPv6 zone to drop, nothing
		// httpguts.ValidHostHeader refuses.
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(".-_:[]", c) >= 0) {
			return false
		}
	}
	return true
}

// writeRequest writes req, which plainRequest accepts, to bw as
// req.Write would, telling the context's ClientTrace when the headers and
// the request were written. Like req.Write it closes the body, and it
// does not flush bw unless the body may block.
func writeRequest(bw *bufio.Writer, req *http.Request) (err error) {
	trace := httptrace.ContextClientTrace(req.Context())
	if trace != nil && trace.WroteRequest != nil {
		defer func() { trace.WroteRequest(httptrace.WroteRequestInfo{Err: err}) }()
	}
	body := req.Body
	if body == http.NoBody {
		body = nil
	}
	if err := writeRequestHeader(bw, req, body != nil); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return err
	}
	if trace != nil && trace.WroteHeaders != nil {
		trace.WroteHeaders()
	}
	if body == nil {
		if req.Body != nil {
			return req.Body.Close()
		}
		return nil
	}
	if !inMemory(body) {
		// As Request.Write: the server may want the header before a
		// body that may block.
		if err := bw.Flush(); err != nil {
			_ = body.Close()
			return err
		}
	}
	return writeBody(bw, body, req.ContentLength)
}

// writeRequestHeader writes the request line and the header of req.
func writeRequestHeader(bw *bufio.Writer, req *http.Request, hasBody bool) error {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	uri := req.URL.RequestURI()
	for i := 0; i < len(uri); i++ {
		if uri[i] < ' ' || uri[i] == 0x7f {
			return errors.New("net/http: can't write control character in Request.URL")
		}
	}
	for _, s := range [...]string{method, " ", uri, " HTTP/1.1\r\nHost: ", host, "\r\n"} {
		_, _ = bw.WriteString(s) // an error sticks to bw: the last write returns it
	}
	ua := "Go-http-client/1.1"
	if _, ok := req.Header["User-Agent"]; ok {
		ua = textproto.TrimString(req.Header.Get("User-Agent"))
	}
	if ua != "" {
		_, _ = bw.WriteString("User-Agent: ")
		_, _ = bw.WriteString(ua)
		_, _ = bw.WriteString("\r\n")
	}
	if n := req.ContentLength; n > 0 && hasBody || method == http.MethodPost {
		if !hasBody {
			n = 0
		}
		_, _ = bw.WriteString("Content-Length: ")
		_, _ = bw.Write(strconv.AppendInt(bw.AvailableBuffer(), n, 10))
		_, _ = bw.WriteString("\r\n")
	}
	var keys [maxPlainHeaders]string
	n := 0
	for k := range req.Header {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		}
		i := n
		for ; i > 0 && keys[i-1] > k; i-- {
			keys[i] = keys[i-1]
		}
		keys[i] = k
		n++
	}
	for _, k := range keys[:n] {
		for _, v := range req.Header[k] {
			// handles let no line break through.
			for _, s := range [...]string{k, ": ", textproto.TrimString(v), "\r\n"} {
				_, _ = bw.WriteString(s)
			}
		}
	}
	_, err := bw.WriteString("\r\n")
	return err
}

// copyError is an error while copying a request body: Request.Write
// returns it in a type of its own that does not unwrap, and so does this.
type copyError struct{ error }

// writeBody copies body, which should hold n bytes, to bw and closes it,
// as Request.Write does for a body of known length: more or fewer bytes
// are an error.
func writeBody(bw *bufio.Writer, body io.ReadCloser, n int64) error {
	var copied int64
	empty := 0
	for copied < n {
		if bw.Available() == 0 {
			if err := bw.Flush(); err != nil {
				_ = body.Close()
				return copyError{err}
			}
		}
		p := bw.AvailableBuffer()[:min(int64(bw.Available()), n-copied)]
		m, err := body.Read(p)
		_, _ = bw.Write(p[:m]) // into bw's own buffer, which has room
		copied += int64(m)
		if m == 0 && err == nil {
			if empty++; empty >= 100 {
				err = io.ErrNoProgress // as bufio.Writer.ReadFrom
			}
		} else {
			empty = 0
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = body.Close()
			return copyError{err}
		}
	}
	// The body must end here: read on to its end to count the rest.
	for {
		scratch := bw.AvailableBuffer()[:bw.Available()]
		if len(scratch) == 0 {
			scratch = make([]byte, 512)
		}
		m, err := body.Read(scratch)
		copied += int64(m)
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = body.Close()
			return copyError{err}
		}
	}
	if err := body.Close(); err != nil {
		return err
	}
	if copied != n {
		return fmt.Errorf("http: ContentLength=%d with Body length %d", n, copied)
	}
	return nil
}

var (
	nopCloserType         = reflect.TypeOf(io.NopCloser(nil))
	nopCloserWriterToType = reflect.TypeOf(io.NopCloser(struct {
		io.Reader
		io.WriterTo
	}{}))
)

// inMemory reports whether r is one of the readers that Request.Write
// knows never block (bytes.Reader, bytes.Buffer, strings.Reader, alone or
// in io.NopCloser), before whose body it does not flush the header.
func inMemory(r io.Reader) bool {
	switch r.(type) {
	case *bytes.Reader, *bytes.Buffer, *strings.Reader:
		return true
	}
	switch reflect.TypeOf(r) {
	case nopCloserType, nopCloserWriterToType:
		return inMemory(reflect.ValueOf(r).Field(0).Interface().(io.Reader))
	}
	return false
}
