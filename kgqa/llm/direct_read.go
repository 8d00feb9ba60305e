package llm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// readReply reads the reply to req from br: by hand when its header is
// plain (see parseReply), else with http.ReadResponse on a reader of
// which nothing was consumed.
func readReply(br *bufio.Reader, req *http.Request) (*http.Response, error) {
	resp, fallback := readPlainReply(br, req)
	if resp != nil {
		return resp, nil
	}
	return http.ReadResponse(fallback, req)
}

// readPlainReply is the reply to req when its header is plain, with br
// past the header; else nil and the reader http.ReadResponse should read
// from: br untouched, or when a read failed before the header was whole,
// the bytes br held followed by that error (Peek took the error from br).
func readPlainReply(br *bufio.Reader, req *http.Request) (*http.Response, *bufio.Reader) {
	if req.Method == http.MethodHead {
		return nil, br // a reply without a body, whatever its header says
	}
	for {
		buf, _ := br.Peek(br.Buffered())
		end, st := scanHeader(buf)
		switch {
		case st == headerBad:
			return nil, br
		case st == headerDone:
			resp := parseReply(buf[:end], req)
			if resp == nil {
				return nil, br
			}
			_, _ = br.Discard(end)
			setBody(resp, br)
			return resp, br
		case len(buf) >= br.Size():
			return nil, br // too long: ReadResponse reads on
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			held, _ := br.Peek(br.Buffered())
			r := io.MultiReader(bytes.NewReader(bytes.Clone(held)), errReader{err})
			return nil, bufio.NewReaderSize(r, br.Size())
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// headerState is what scanHeader found.
type headerState int

const (
	headerMore headerState = iota // plain so far, not complete
	headerDone                    // plain and complete
	headerBad                     // not plain
)

// scanHeader checks the reply header at the start of buf line by line,
// as far as buf holds whole lines: a status line "HTTP/1.1 NNN reason"
// with a final status (not 1xx, 204 or 304), then header lines of a token
// name, a colon and a value, each line ending in CRLF, up to an empty
// line. Anything else (a bare LF, a continuation line, a stray CR...) is
// headerBad, found as soon as its line is whole, so that a reply
// ReadResponse refuses goes to it without waiting for more bytes.
func scanHeader(buf []byte) (end int, st headerState) {
	for i, first := 0, true; ; first = false {
		j := bytes.IndexByte(buf[i:], '\n')
		if j < 0 {
			return 0, headerMore
		}
		if j == 0 || buf[i+j-1] != '\r' {
			return 0, headerBad
		}
		line := buf[i : i+j-1]
		i += j + 1
		switch {
		case first:
			if !statusLine(line) {
				return 0, headerBad
			}
		case len(line) == 0:
			return i, headerDone
		default:
			k, v, ok := bytes.Cut(line, []byte(":"))
			if !ok || !token(k) || !valueBytes(v) {
				return 0, headerBad
			}
		}
	}
}

// statusLine reports whether line is "HTTP/1.1 NNN" or "HTTP/1.1 NNN
// reason" with NNN from 200 to 599 but for 204 and 304 (replies with no
// body, whatever their header says).
func statusLine(line []byte) bool {
	const proto = "HTTP/1.1 "
	if len(line) < len(proto)+3 || string(line[:len(proto)]) != proto {
		return false
	}
	code, rest := line[len(proto):len(proto)+3], line[len(proto)+3:]
	if code[0] < '2' || code[0] > '5' || !isDigit(code[1]) || !isDigit(code[2]) ||
		string(code) == "204" || string(code) == "304" {
		return false
	}
	return len(rest) == 0 || rest[0] == ' ' && valueBytes(rest)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// token reports whether b is a header field name (RFC 9110 token).
func token(b []byte) bool {
	for _, c := range b {
		if !httpguts.IsTokenRune(rune(c)) {
			return false
		}
	}
	return len(b) > 0
}

// isChunked reports whether v is "chunked" in any ASCII case (only ASCII:
// strings.EqualFold folds the Kelvin sign to k, net/http does not).
func isChunked(v string) bool {
	const want = "chunked"
	if len(v) != len(want) {
		return false
	}
	for i := range len(want) {
		if v[i]|0x20 != want[i] {
			return false
		}
	}
	return true
}

// valueBytes reports whether v holds only what textproto allows in a
// header value: visible ASCII, space, tab and bytes from 0x80.
func valueBytes(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// parseReply is the reply whose header, checked by scanHeader, is head,
// as http.ReadResponse gives it but for the body; nil when its transfer
// is not plain: a Content-Length of one valid value, or Transfer-Encoding
// chunked with neither Content-Length nor Trailer.
func parseReply(head []byte, req *http.Request) *http.Response {
	s := string(head) // the header's strings share one allocation
	lines := strings.Count(s, "\n") - 2
	status, s, _ := strings.Cut(s, "\r\n")
	code, _ := strconv.Atoi(status[9:12])
	resp := &http.Response{
		Status: status[9:], StatusCode: code, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header, lines), Request: req,
	}
	values := make([]string, lines)
	for n := 0; n < lines; n++ {
		var line string
		line, s, _ = strings.Cut(s, "\r\n")
		k, v, _ := strings.Cut(line, ":")
		k, v = http.CanonicalHeaderKey(k), strings.Trim(v, " \t")
		if vv := resp.Header[k]; vv != nil {
			resp.Header[k] = append(vv, v)
			continue
		}
		values[n] = v
		resp.Header[k] = values[n : n+1 : n+1]
	}
	h := resp.Header
	// RFC 9111 5.4, as ReadResponse.
	if p := h["Pragma"]; len(p) > 0 && p[0] == "no-cache" && h["Cache-Control"] == nil {
		h["Cache-Control"] = []string{"no-cache"}
	}
	te, chunked := h["Transfer-Encoding"]
	cl := h["Content-Length"]
	switch {
	case chunked && (len(te) != 1 || !isChunked(te[0]) || cl != nil || h["Trailer"] != nil):
		return nil
	case chunked:
		delete(h, "Transfer-Encoding")
		resp.TransferEncoding, resp.ContentLength = []string{"chunked"}, -1
	case len(cl) != 1:
		return nil
	default:
		n, err := strconv.ParseUint(cl[0], 10, 63)
		if err != nil {
			return nil
		}
		resp.ContentLength = int64(n)
	}
	if httpguts.HeaderValuesContainsToken(h["Connection"], "close") {
		resp.Close = true
		delete(h, "Connection")
	}
	return resp
}

// setBody gives resp, parsed by parseReply, the body that follows on br,
// read as ReadResponse's body reads it.
func setBody(resp *http.Response, br *bufio.Reader) {
	switch {
	case resp.ContentLength < 0:
		resp.Body = &chunkedBody{cr: httputil.NewChunkedReader(br), br: br, resp: resp}
	case resp.ContentLength == 0:
		resp.Body = http.NoBody
	default:
		resp.Body = &lengthBody{br: br, left: resp.ContentLength}
	}
}

// lengthBody is a body of a known length; it reports io.EOF with its
// last bytes, and io.ErrUnexpectedEOF when the connection ends early.
type lengthBody struct {
	br   *bufio.Reader
	left int64
	eof  bool
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.eof || b.left <= 0 {
		b.eof = true
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.br.Read(p)
	b.left -= int64(n)
	switch {
	case err == io.EOF:
		b.eof = true
		return n, io.ErrUnexpectedEOF // then io.EOF, as net/http's body
	case err == nil && n > 0 && b.left == 0:
		b.eof = true
		return n, io.EOF
	}
	return n, err
}

// Close does nothing: directBody decides what becomes of the connection.
func (b *lengthBody) Close() error { return nil }

// chunkedBody is a chunked body; after the last chunk it reads the
// trailer into the reply's Trailer, as net/http's body does.
type chunkedBody struct {
	cr     io.Reader
	br     *bufio.Reader
	resp   *http.Response
	eof    bool
	failed bool
}

func (b *chunkedBody) Read(p []byte) (int, error) {
	switch {
	case b.failed:
		return 0, http.ErrBodyReadAfterClose
	case b.eof:
		return 0, io.EOF
	}
	n, err := b.cr.Read(p)
	if err == io.EOF {
		b.eof = true
		if terr := b.readTrailer(); terr != nil {
			b.failed, err = true, terr
		}
	}
	return n, err
}

// Close does nothing: directBody decides what becomes of the connection.
func (b *chunkedBody) Close() error { return nil }

// readTrailer reads what follows the last chunk: most often the empty
// line alone, else trailer fields, which go to the reply's Trailer.
func (b *chunkedBody) readTrailer() error {
	buf, err := b.br.Peek(2)
	switch {
	case string(buf) == "\r\n":
		_, _ = b.br.Discard(2)
		return nil
	case len(buf) < 2:
		return errors.New("http: unexpected EOF reading trailer")
	case err != nil:
		return err
	}
	// The trailer must fit the buffer, as net/http wants it to.
	for n := 4; ; n++ {
		buf, err := b.br.Peek(n)
		if bytes.HasSuffix(buf, []byte("\r\n\r\n")) {
			break
		}
		if err != nil {
			return errors.New("http: suspiciously long trailer after chunked body")
		}
	}
	hdr, err := textproto.NewReader(b.br).ReadMIMEHeader()
	if err != nil {
		if err == io.EOF {
			return errors.New("http: unexpected EOF reading trailer")
		}
		return err
	}
	if b.resp.Trailer == nil {
		b.resp.Trailer = http.Header(hdr)
		return nil
	}
	for k, v := range hdr {
		b.resp.Trailer[k] = v
	}
	return nil
}
