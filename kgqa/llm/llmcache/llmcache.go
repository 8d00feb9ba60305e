// Package llmcache records the replies of an OpenAI-compatible endpoint
// and replays them, so that a run can be repeated exactly, offline and at
// no cost, by anyone holding the cache directory.
//
// It is an http.RoundTripper layer: whoever builds the HTTP client of the
// LLM roles wraps its transport with Cache.Transport. In ModeRecord a
// request whose reply is stored is answered from the store, any other is
// sent on and its successful (2xx) reply stored; so a resumed run reuses
// every call it already paid for, including those of an interrupted
// question. In ModeReplay nothing is sent: a request without a stored
// reply fails with a *MissError that names its key, and a readiness check
// (GET .../models) is answered 200 with an empty model list.
//
// # Key
//
// The key is the SHA-256, in hex, of
//
//	"parog-llm-cache/v1\n" + <URL path after the last "/v1", or the whole path> + "\n" + <canonical body>
//
// where the canonical body is the request's JSON body decoded and encoded
// again with object keys sorted and no insignificant space (Go's
// encoding/json). The body carries everything that decides a reply: the
// model, the messages, the sampling parameters (temperature, top_p,
// max_tokens, ...), the seed and the response format. Host, headers and the
// API key are left out, so a cache recorded against one server replays
// against another address of the same model. Two identical requests share
// one entry: a run that sends the same request twice gets the first reply
// twice, when recording and when replaying alike.
//
// # Store format
//
// The store is a Badger v4 database (github.com/dgraph-io/badger/v4) in the
// cache directory. Each entry has the key "llm/v1/" + <hex key> and a JSON
// value (see Entry):
//
//	{"version": 1, "key": "<hex key>", "path": "/chat/completions",
//	 "request": <canonical request body>, "status": 200,
//	 "content_type": "application/json", "body": "<reply body, verbatim>",
//	 "recorded": "2026-11-30T10:00:00Z"}
//
// Publish the directory beside a results file; `--llm-replay DIR` then
// reproduces the run. One process at a time may open a directory.
package llmcache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Mode says what a Cache does with requests.
type Mode int

const (
	// ModeRecord answers stored requests from the store and sends and
	// stores the others.
	ModeRecord Mode = iota + 1
	// ModeReplay answers every request from the store and sends nothing.
	ModeReplay
)

// Version is the version of the key derivation and entry format.
const Version = 1

const keyPrefix = "llm/v1/"

// Entry is one stored exchange (the JSON value of a store entry).
type Entry struct {
	// Version is the format version (1).
	Version int `json:"version"`
	// Key is the hex SHA-256 key of the request.
	Key string `json:"key"`
	// Path is the request path the key covers ("/chat/completions").
	Path string `json:"path"`
	// Request is the canonical request body.
	Request json.RawMessage `json:"request"`
	// Status and ContentType are the reply's status code and media type.
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	// Body is the reply body, byte for byte.
	Body string `json:"body"`
	// Recorded is when the reply was stored.
	Recorded time.Time `json:"recorded"`
}

// MissError is the failure of a replayed request that was never recorded.
type MissError struct {
	// Key is the request's key; Model names the model asked for.
	Key   string
	Model string
	// Dir is the cache directory.
	Dir string
}

func (e *MissError) Error() string {
	return fmt.Sprintf("llmcache: replay: no recorded reply for request key %s (model %q) in %s", e.Key, e.Model, e.Dir)
}

// Permanent reports that retrying cannot help (the LLM client does not
// retry such errors).
func (e *MissError) Permanent() bool { return true }

// ErrMiss is matched by every *MissError (errors.Is).
var ErrMiss = errors.New("llmcache: replay miss")

// Is makes errors.Is(err, ErrMiss) true.
func (e *MissError) Is(target error) bool { return target == ErrMiss }

// Stats counts what a Cache did.
type Stats struct {
	// Hits were answered from the store; Stored were sent and stored;
	// Misses failed in replay.
	Hits, Stored, Misses int64
}

// Cache is an open cache directory. It is safe for concurrent use.
type Cache struct {
	db                   *badger.DB
	dir                  string
	mode                 Mode
	hits, stored, misses atomic.Int64
	// shared, when set, is consulted when the directory misses and
	// receives every recorded entry, so eval workers and server replicas
	// reuse each other's calls (sharedcache.Redis).
	shared Shared
}

// Shared is a store shared by processes. It reports a miss, and drops a
// value, rather than fail.
type Shared interface {
	// Get returns the value stored under key, or false.
	Get(ctx context.Context, key string) ([]byte, bool)
	// Set stores value under key (or drops it).
	Set(ctx context.Context, key string, value []byte)
}

// Share puts s behind the directory: a request the directory has not
// recorded is looked up in s (and copied into the directory when found),
// and every recorded entry is also stored in s. Call it before the first
// request; s stays the caller's to close.
func (c *Cache) Share(s Shared) { c.shared = s }

// Open opens (in ModeRecord, creating) the cache in dir.
func Open(dir string, mode Mode) (*Cache, error) {
	if mode != ModeRecord && mode != ModeReplay {
		return nil, fmt.Errorf("llmcache: open: unknown mode %d", mode)
	}
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithNumVersionsToKeep(1).
		WithMemTableSize(8 << 20).
		WithValueLogFileSize(64 << 20).
		WithValueThreshold(1 << 10)
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("llmcache: open %s: %w", dir, err)
	}
	return &Cache{db: db, dir: dir, mode: mode}, nil
}

// Close closes the store.
func (c *Cache) Close() error {
	if err := c.db.Close(); err != nil {
		return fmt.Errorf("llmcache: close: %w", err)
	}
	return nil
}

// Mode is the cache's mode.
func (c *Cache) Mode() Mode { return c.mode }

// Stats returns the counts so far.
func (c *Cache) Stats() Stats {
	return Stats{Hits: c.hits.Load(), Stored: c.stored.Load(), Misses: c.misses.Load()}
}

// Key returns the cache key of a request to path with JSON body.
func Key(path string, body []byte) (string, []byte, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", nil, fmt.Errorf("llmcache: key: request body is not JSON: %w", err)
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return "", nil, fmt.Errorf("llmcache: key: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "parog-llm-cache/v%d\n%s\n", Version, keyPath(path))
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)), canon, nil
}

// keyPath is the part of a URL path the key covers: what follows the
// last "/v1" (so "/v1/chat/completions" and "/openai/v1/chat/completions"
// agree), or the whole path.
func keyPath(p string) string {
	if i := strings.LastIndex(p, "/v1/"); i >= 0 {
		return p[i+3:]
	}
	return p
}

// Lookup returns the stored entry of key.
func (c *Cache) Lookup(key string) (Entry, bool, error) {
	var e Entry
	found := false
	err := c.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(keyPrefix + key))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return item.Value(func(v []byte) error { return json.Unmarshal(v, &e) })
	})
	if err != nil {
		return e, false, fmt.Errorf("llmcache: lookup %s: %w", key, err)
	}
	return e, found, nil
}

// Put stores an entry under its key.
func (c *Cache) Put(e Entry) error {
	e.Version = Version
	v, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("llmcache: put: %w", err)
	}
	err = c.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(keyPrefix+e.Key), v) })
	if err != nil {
		return fmt.Errorf("llmcache: put %s: %w", e.Key, err)
	}
	return nil
}

// Len counts the stored entries.
func (c *Cache) Len() (int, error) {
	n := 0
	err := c.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(keyPrefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("llmcache: len: %w", err)
	}
	return n, nil
}

// Transport wraps next (http.DefaultTransport when nil) with the cache.
// In ModeReplay next is never used.
func (c *Cache) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{c: c, next: next}
}

type transport struct {
	c    *Cache
	next http.RoundTripper
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Method != http.MethodPost {
		if t.c.mode == ModeReplay && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			// A readiness check (GET /models): the recording is the
			// endpoint, and it is there.
			e := Entry{Status: http.StatusOK, ContentType: "application/json", Body: `{"object":"list","data":[]}`}
			return e.response(r), nil
		}
		if t.c.mode == ModeReplay {
			return nil, fmt.Errorf("llmcache: replay: %s %s is not a recorded kind of request", r.Method, r.URL.Path)
		}
		return t.next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("llmcache: read request: %w", err)
	}
	key, canon, err := Key(r.URL.Path, body)
	if err != nil {
		return nil, err
	}
	e, ok, err := t.c.Lookup(key)
	if err != nil {
		return nil, err
	}
	if !ok {
		e, ok = t.c.sharedLookup(r.Context(), key)
	}
	if ok {
		t.c.hits.Add(1)
		return e.response(r), nil
	}
	if t.c.mode == ModeReplay {
		t.c.misses.Add(1)
		return nil, &MissError{Key: key, Model: modelOf(canon), Dir: t.c.dir}
	}
	return t.record(r, body, key, canon)
}

// record sends the request on and stores a 2xx reply.
func (t *transport) record(r *http.Request, body []byte, key string, canon []byte) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	resp, err := t.next.RoundTrip(out)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	reply, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("llmcache: read reply: %w", err)
	}
	e := Entry{Key: key, Path: keyPath(r.URL.Path), Request: canon, Status: resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"), Body: string(reply), Recorded: time.Now().UTC()}
	if err := t.c.Put(e); err != nil {
		return nil, err
	}
	t.c.stored.Add(1)
	if t.c.shared != nil {
		if v, err := json.Marshal(e); err == nil {
			t.c.shared.Set(r.Context(), keyPrefix+key, v)
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(reply))
	resp.ContentLength = int64(len(reply))
	return resp, nil
}

// sharedLookup finds key in the shared store and copies it into the
// directory, so the recording stays complete on its own.
func (c *Cache) sharedLookup(ctx context.Context, key string) (Entry, bool) {
	var e Entry
	if c.shared == nil {
		return e, false
	}
	v, ok := c.shared.Get(ctx, keyPrefix+key)
	if !ok || json.Unmarshal(v, &e) != nil || e.Key != key {
		return e, false
	}
	_ = c.Put(e) // the reply is in hand; a failed local copy only costs a later lookup
	return e, true
}

// response makes the stored reply an *http.Response to r.
func (e Entry) response(r *http.Request) *http.Response {
	h := http.Header{}
	if e.ContentType != "" {
		h.Set("Content-Type", e.ContentType)
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status)), StatusCode: e.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h,
		Body: io.NopCloser(strings.NewReader(e.Body)), ContentLength: int64(len(e.Body)), Request: r,
	}
}

func modelOf(canon []byte) string {
	var m struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(canon, &m)
	return m.Model
}
