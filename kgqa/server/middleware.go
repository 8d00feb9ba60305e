package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
)

// Keys of values kept in the gin.Context.
const (
	ctxRequestID = "parog.request_id"
	ctxError     = "parog.error"
	ctxKey       = "parog.key"
)

var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func lookupEnv(k string) (string, bool) { return os.LookupEnv(k) }

// requestID keeps a well-formed X-Request-ID of the client, or makes one,
// and echoes it in the response.
func (s *Server) requestID(c *gin.Context) {
	id := c.GetHeader(api.RequestIDHeader)
	if !requestIDRE.MatchString(id) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Set(ctxRequestID, id)
	c.Header(api.RequestIDHeader, id)
	c.Next()
}

func requestIDOf(c *gin.Context) string { return c.GetString(ctxRequestID) }

// recovery turns a panic in a handler into a logged 500 with the request
// id. http.ErrAbortHandler keeps its meaning (abort the response).
func (s *Server) recovery(c *gin.Context) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.log.Error("panic", "request_id", requestIDOf(c), "route", c.FullPath(), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		s.fail(c, errorf(http.StatusInternalServerError, "internal error (request %s)", requestIDOf(c)))
	}()
	c.Next()
}

// apiKeys gathers the accepted keys from server.api_keys and the variable
// server.api_keys_env names.
func apiKeys(cfg config.Server, getenv func(string) (string, bool)) [][]byte {
	var keys [][]byte
	add := func(k string) {
		if k = strings.TrimSpace(k); k != "" {
			h := sha256.Sum256([]byte(k))
			keys = append(keys, h[:])
		}
	}
	for _, k := range cfg.APIKeys {
		add(k)
	}
	if cfg.APIKeysEnv != "" {
		if v, ok := getenv(cfg.APIKeysEnv); ok {
			for _, k := range strings.Split(v, ",") {
				add(k)
			}
		}
	}
	return keys
}

// authenticate requires a configured bearer key when any is configured. It
// compares hashes in constant time, and remembers which key was used for
// the rate limit.
func (s *Server) authenticate(c *gin.Context) {
	if len(s.keys) == 0 {
		c.Set(ctxKey, "ip:"+c.ClientIP())
		return
	}
	tok, ok := bearerToken(c.GetHeader("Authorization"))
	if !ok || tok == "" {
		c.Header("WWW-Authenticate", `Bearer realm="parog"`)
		s.fail(c, errorf(http.StatusUnauthorized, "missing bearer token (Authorization: Bearer <key>)"))
		return
	}
	// The key is compared first: a valid key is never throttled, so a
	// client sending a wrong key cannot lock out the others behind the
	// same address.
	h, ok := s.matchKey(tok)
	if !ok {
		if wait, why := s.authFailures.blocked(c.ClientIP(), h, time.Now()); wait > 0 {
			secs := int(math.Ceil(wait.Seconds()))
			he := errorf(http.StatusTooManyRequests, "too many failed authentications %s; retry in %d s", why, secs)
			he.retryAfter = secs
			s.fail(c, he)
			return
		}
		s.authFailures.fail(c.ClientIP(), h, time.Now())
		c.Header("WWW-Authenticate", `Bearer realm="parog", error="invalid_token"`)
		s.fail(c, errorf(http.StatusUnauthorized, "invalid API key"))
		return
	}
	c.Set(ctxKey, "key:"+hex.EncodeToString(h[:8]))
}

// limiter holds one token bucket per API key (or client address when no
// keys are configured), the least recently used forgotten beyond a bound.
type limiter struct {
	rps   rate.Limit
	burst int
	mu    sync.Mutex
	per   *lru.Cache[string, *rate.Limiter]
}

func newLimiter(rps float64, burst int) *limiter {
	if rps <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = int(math.Ceil(rps))
	}
	per, _ := lru.New[string, *rate.Limiter](10_000)
	return &limiter{rps: rate.Limit(rps), burst: burst, per: per}
}

// allow takes a token for key, or says how long until one is free.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	lim, ok := l.per.Get(key)
	if !ok {
		lim = rate.NewLimiter(l.rps, l.burst)
		l.per.Add(key, lim)
	}
	l.mu.Unlock()
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// authenticated reports whether the request carries a valid API key, for
// an open route that shows more to a client it knows (/readyz). Failures
// count against the address like any other.
func (s *Server) authenticated(c *gin.Context) bool {
	if len(s.keys) == 0 {
		return false
	}
	tok, ok := bearerToken(c.GetHeader("Authorization"))
	if !ok {
		return false
	}
	h, ok := s.matchKey(tok)
	if !ok {
		if wait, _ := s.authFailures.blocked(c.ClientIP(), h, time.Now()); wait == 0 {
			s.authFailures.fail(c.ClientIP(), h, time.Now())
		}
		return false
	}
	return true
}

// matchKey compares the hash of tok with every key in constant time.
func (s *Server) matchKey(tok string) ([32]byte, bool) {
	h := sha256.Sum256([]byte(tok))
	match := 0
	for _, k := range s.keys {
		match |= subtle.ConstantTimeCompare(h[:], k)
	}
	return h, match == 1
}

// bearerToken reads an Authorization header of the Bearer scheme, whose
// name is case-insensitive (RFC 9110, 11.1).
func bearerToken(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// Failed authentications allowed per client address and key: a burst,
// then one every few seconds; and over all of them, so that a guesser who
// changes key on every try is held too.
const (
	authFailureBurst       = 10
	authFailureEvery       = 5 * time.Second
	authFailureGlobalBurst = 200
	authFailureGlobalEvery = 50 * time.Millisecond
	authFailureKeys        = 10_000
)

// failureLimiter counts failed authentications per (client address, key
// fingerprint), the least recently seen pairs forgotten beyond a bound,
// and all of them against a global cap. Only wrong keys are counted and
// only wrong keys are refused.
type failureLimiter struct {
	mu  sync.Mutex
	per *lru.Cache[string, *rate.Limiter]
	all *rate.Limiter
}

func newFailureLimiter() *failureLimiter {
	per, _ := lru.New[string, *rate.Limiter](authFailureKeys)
	return &failureLimiter{per: per, all: rate.NewLimiter(rate.Every(authFailureGlobalEvery), authFailureGlobalBurst)}
}

// limiter returns the bucket of addr and the key whose hash is key.
func (f *failureLimiter) limiter(addr string, key [32]byte) *rate.Limiter {
	id := addr + " " + hex.EncodeToString(key[:8])
	f.mu.Lock()
	defer f.mu.Unlock()
	lim, ok := f.per.Get(id)
	if !ok {
		lim = rate.NewLimiter(rate.Every(authFailureEvery), authFailureBurst)
		f.per.Add(id, lim)
	}
	return lim
}

// blocked says how long a wrong key (by its hash) from addr must wait
// before it is checked again, and why, or 0.
func (f *failureLimiter) blocked(addr string, key [32]byte, now time.Time) (time.Duration, string) {
	if d := wait(f.limiter(addr, key), now); d > 0 {
		return d, "with this key from this address"
	}
	if d := wait(f.all, now); d > 0 {
		return d, "from all addresses"
	}
	return 0, ""
}

// wait is how long until lim has a token, at least a second, or 0 when it
// has one now.
func wait(lim *rate.Limiter, now time.Time) time.Duration {
	if lim.TokensAt(now) >= 1 {
		return 0
	}
	r := lim.ReserveN(now, 1)
	defer r.CancelAt(now)
	return max(r.DelayFrom(now), time.Second)
}

// fail records a failed authentication from addr with the key whose hash
// is key.
func (f *failureLimiter) fail(addr string, key [32]byte, now time.Time) {
	f.limiter(addr, key).AllowN(now, 1)
	f.all.AllowN(now, 1)
}

// rateLimit answers 429 with Retry-After when the caller's bucket is empty.
func (s *Server) rateLimit(c *gin.Context) {
	if s.limiter == nil {
		return
	}
	ok, wait := s.limiter.allow(c.GetString(ctxKey), time.Now())
	if ok {
		return
	}
	secs := int(math.Ceil(wait.Seconds()))
	he := errorf(http.StatusTooManyRequests, "rate limit of %g requests per second exceeded; retry in %d s", float64(s.limiter.rps), secs)
	he.retryAfter = secs
	s.fail(c, he)
}

// limitBody caps the request body at server.max_body_bytes; a declared
// length over the cap is refused before reading.
func (s *Server) limitBody(c *gin.Context) {
	max := s.cfg.MaxBodyBytes
	if max <= 0 {
		max = 1 << 20
	}
	if c.Request.ContentLength > max {
		s.fail(c, errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", max))
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, max)
}
