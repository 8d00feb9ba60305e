package endpoint

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// authTransport authenticates to an endpoint that asks for it: Digest
// (what Virtuoso's /sparql-auth asks for, and which keeps the password off
// the wire) or Basic. The first 401 brings the challenge; later requests
// answer it at once, and a stale nonce is answered again once.
type authTransport struct {
	next           http.RoundTripper
	user, password string

	mu        sync.Mutex
	challenge map[string]string // the last Digest challenge; nil before
	basic     bool
	nc        int
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(t.authorized(req))
	if err != nil || resp.StatusCode != http.StatusUnauthorized || req.GetBody == nil {
		return resp, err
	}
	if !t.learn(resp.Header.Values("WWW-Authenticate")) {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close()
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	again.Body = body
	return t.next.RoundTrip(t.authorized(again))
}

// learn keeps a Digest (preferred) or Basic challenge; it reports whether
// there was one to answer.
func (t *authTransport) learn(headers []string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range headers {
		scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
		if strings.EqualFold(scheme, "Digest") {
			t.challenge, t.nc, t.basic = parseParams(rest), 0, false
			return true
		}
	}
	for _, h := range headers {
		if scheme, _, _ := strings.Cut(strings.TrimSpace(h), " "); strings.EqualFold(scheme, "Basic") {
			t.basic = true
			return true
		}
	}
	return false
}

// authorized returns req with the answer to the known challenge, if any.
func (t *authTransport) authorized(req *http.Request) *http.Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.basic:
		req = req.Clone(req.Context())
		req.SetBasicAuth(t.user, t.password)
	case t.challenge != nil:
		t.nc++
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", t.digest(req.Method, req.URL.RequestURI()))
	}
	return req
}

// digest answers the challenge for one request (RFC 7616, MD5, qop=auth
// when offered).
func (t *authTransport) digest(method, uri string) string {
	c := t.challenge
	h := func(s string) string {
		sum := md5.Sum([]byte(s))
		return hex.EncodeToString(sum[:])
	}
	ha1 := h(t.user + ":" + c["realm"] + ":" + t.password)
	ha2 := h(method + ":" + uri)
	var b [8]byte
	_, _ = rand.Read(b[:])
	cnonce, nc := hex.EncodeToString(b[:]), fmt.Sprintf("%08x", t.nc)
	qop := ""
	for _, q := range strings.Split(c["qop"], ",") {
		if strings.TrimSpace(q) == "auth" {
			qop = "auth"
		}
	}
	resp := h(ha1 + ":" + c["nonce"] + ":" + ha2)
	if qop != "" {
		resp = h(ha1 + ":" + c["nonce"] + ":" + nc + ":" + cnonce + ":" + qop + ":" + ha2)
	}
	out := fmt.Sprintf(`Digest username=%q, realm=%q, nonce=%q, uri=%q, response=%q`, t.user, c["realm"], c["nonce"], uri, resp)
	if qop != "" {
		out += fmt.Sprintf(`, qop=%s, nc=%s, cnonce=%q`, qop, nc, cnonce)
	}
	if c["opaque"] != "" {
		out += fmt.Sprintf(`, opaque=%q`, c["opaque"])
	}
	if c["algorithm"] != "" {
		out += ", algorithm=" + c["algorithm"]
	}
	return out
}

// parseParams reads the comma-separated key=value (or key="value")
// parameters of a challenge.
func parseParams(s string) map[string]string {
	m := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		k, rest, ok := strings.Cut(s, "=")
		if !ok {
			break
		}
		k = strings.ToLower(strings.TrimSpace(k))
		var v string
		if strings.HasPrefix(rest, `"`) {
			end := 1
			for end < len(rest) && rest[end] != '"' {
				if rest[end] == '\\' {
					end++
				}
				end++
			}
			v = strings.ReplaceAll(rest[1:min(end, len(rest))], `\`, "")
			rest = rest[min(end+1, len(rest)):]
		} else {
			v, rest, _ = strings.Cut(rest, ",")
			v = strings.TrimSpace(v)
			rest = "," + rest
		}
		m[k] = v
		_, s, _ = strings.Cut(rest, ",")
	}
	return m
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport underneath.
func (t *authTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
