package llm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"testing"
)

// fixedReplyServer answers every request on every connection with reply,
// written in one piece; it reads requests without allocating (header lines
// up to the blank one, then Content-Length bytes of body), so that the
// allocations a benchmark counts are the client's.
func fixedReplyServer(b testing.TB, reply []byte) string {
	b.Helper()
	return "http://" + tcpServer(b, func(c net.Conn) {
		br := bufio.NewReaderSize(c, 64<<10)
		for skipRequest(br) == nil {
			if _, err := c.Write(reply); err != nil {
				return
			}
		}
	})
}

// skipRequest reads one request from br and throws it away.
func skipRequest(br *bufio.Reader) error {
	var length int64
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		const cl = "content-length:"
		if len(line) > len(cl) && bytes.EqualFold(line[:len(cl)], []byte(cl)) {
			v := bytes.TrimSpace(line[len(cl):])
			for _, d := range v {
				length = length*10 + int64(d-'0')
			}
		}
	}
	_, err := br.Discard(int(length))
	return err
}

// chatReply is an HTTP reply carrying a chat completion of about 4 KB (the
// answer with a long reasoning text, as a reasoning model sends).
func chatReply(chunked bool) []byte {
	body := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"answer\": \"Germany\"}","reasoning_content":"` +
		strings.Repeat("The airport that serves Nijmegen lies across the border. ", 64) +
		`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":812,"completion_tokens":240,"total_tokens":1052}}`
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Wed, 02 Dec 2026 02:30:00 GMT\r\n"
	if !chunked {
		return []byte(head + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	}
	return []byte(head + "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body))
}

// BenchmarkExchange measures one model call's HTTP exchange over loopback
// against a server that replies at once with a fixed 4 KB chat completion:
// "transport" is the direct transport alone, sent a request as
// chatCompletion and stageDoer build it (headers, a 1.5 KB body, a
// ClientTrace); "chat" is a whole Client.JSON call.
func BenchmarkExchange(b *testing.B) {
	for _, chunked := range []bool{false, true} {
		u := fixedReplyServer(b, chatReply(chunked))
		suffix := map[bool]string{false: "length", true: "chunked"}[chunked]
		b.Run("transport/"+suffix, func(b *testing.B) { benchTransport(b, u) })
		b.Run("chat/"+suffix, func(b *testing.B) { benchChat(b, u) })
	}
}

func benchTransport(b *testing.B, u string) {
	fb := http.DefaultTransport.(*http.Transport).Clone()
	fb.ReadBufferSize, fb.WriteBufferSize = readBuffer, writeBuffer
	dt := newDirectTransport(fb, 4)
	defer dt.CloseIdleConnections()
	payload := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("Which airport serves Nijmegen? ", 48) + `"}],"stream":false}`)
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {}})
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u+"/v1/chat/completions", bytes.NewReader(payload))
		if err != nil {
			b.Fatal(err)
		}
		req.Header = http.Header{"Accept": {"application/json"}, "Content-Type": {"application/json"},
			"Authorization": {"Bearer sk-test"}, StageHeader: {"answer"}}
		resp, err := dt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
	}
}

func benchChat(b *testing.B, u string) {
	c, req := benchClient(b, u+"/v1")
	var out answer
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.JSON(context.Background(), req, &out, nil); err != nil {
			b.Fatal(err)
		}
	}
	if out.Answer != "Germany" {
		b.Fatalf("answer %q", out.Answer)
	}
}

// BenchmarkWire measures writing a chat request and reading its 4 KB
// reply in memory, no network, by hand and with net/http, so that the
// CPU of the two shows without the noise of loopback and the scheduler.
func BenchmarkWire(b *testing.B) {
	payload := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("Which airport serves Nijmegen? ", 48) + `"}],"stream":false}`)
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:8000/v1/chat/completions", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header = http.Header{"Accept": {"application/json"}, "Content-Type": {"application/json"},
		"Authorization": {"Bearer sk-test"}, StageHeader: {"answer"}}
	req.ContentLength = int64(len(payload))
	for _, hand := range []bool{false, true} {
		name := map[bool]string{false: "net-http", true: "hand"}[hand]
		b.Run("write/"+name, func(b *testing.B) {
			bw := bufio.NewWriterSize(io.Discard, writeBuffer)
			body := &reusableBody{}
			req.Body = body
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(payload)
				var err error
				if hand {
					err = writeRequest(bw, req)
				} else {
					err = req.Write(bw)
				}
				if err == nil {
					err = bw.Flush()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, chunked := range []bool{false, true} {
			reply := chatReply(chunked)
			b.Run("read/"+map[bool]string{false: "length", true: "chunked"}[chunked]+"/"+name, func(b *testing.B) {
				src := bytes.NewReader(reply)
				br := bufio.NewReaderSize(src, readBuffer)
				b.ReportAllocs()
				for b.Loop() {
					src.Reset(reply)
					br.Reset(src)
					var resp *http.Response
					var err error
					if hand {
						resp, err = readReply(br, req)
					} else {
						resp, err = http.ReadResponse(br, req)
					}
					if err == nil {
						_, err = io.Copy(io.Discard, resp.Body)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// reusableBody is a request body that a benchmark refills each time
// without allocating.
type reusableBody struct{ bytes.Reader }

func (*reusableBody) Close() error { return nil }
