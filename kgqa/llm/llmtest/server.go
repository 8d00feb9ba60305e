// Package llmtest is a scripted OpenAI-compatible chat server for tests: a
// real HTTP server (httptest) that speaks the chat completions protocol,
// answers from a queue of replies and/or a handler, injects faults (429 with
// Retry-After, 5xx, hangs, malformed bodies, delays) and logs every request.
//
// It is test support only; no production code imports it.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// StageHeader is the request header through which the PARoG client names the
// pipeline stage of a call.
const StageHeader = "X-Parog-Stage"

// StageKey is the Metadata key under which the server exposes the
// StageHeader of a request to handlers (the client never sends metadata).
const StageKey = "x-parog-stage"

// Handler scripts replies from the decoded request.
type Handler func(req openai.ChatCompletionRequest) Reply

// Request is one logged chat completion request.
type Request struct {
	// Time is when the server received the request.
	Time time.Time
	// Header is the request header.
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// Chat is the decoded request.
	Chat openai.ChatCompletionRequest
	// Stage is the value of StageHeader.
	Stage string
}

// Option configures a Server.
type Option func(*Server)

// WithHandler answers requests the queue does not cover.
func WithHandler(h Handler) Option { return func(s *Server) { s.handler = h } }

// WithReplies queues replies, answered in order before the handler is used.
func WithReplies(r ...Reply) Option { return func(s *Server) { s.queue = append(s.queue, r...) } }

// WithDelay adds a fixed delay to every chat completion (for benchmarks).
func WithDelay(d time.Duration) Option { return func(s *Server) { s.delay = d } }

// WithoutLog keeps no request log: Requests returns nothing and Count
// still counts. Long load runs use it so that the log does not grow with
// every request (headers and body kept per call).
func WithoutLog() Option { return func(s *Server) { s.noLog = true } }

// WithModels sets the model ids listed by GET /v1/models.
func WithModels(ids ...string) Option { return func(s *Server) { s.models = ids } }

// Server is a running scripted server.
type Server struct {
	tb      testing.TB
	ts      *httptest.Server
	closing chan struct{}
	once    sync.Once

	delay  time.Duration
	models []string
	noLog  bool

	embedder   Embedder
	embedCount int // guarded by mu

	mu       sync.Mutex
	queue    []Reply
	handler  Handler
	requests []Request
	count    int

	inFlight    atomic.Int64
	maxInFlight atomic.Int64
}

// New starts a server; it is closed by tb.Cleanup. A request that neither
// the queue nor a handler covers fails the test and gets a 500.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{tb: tb, closing: make(chan struct{}), models: []string{"scripted"}}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.listModels)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	s.ts = httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

// URL is the base URL of the API, ending in /v1.
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// Close releases hanging and delayed requests, then shuts the server down.
// It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Enqueue appends replies to the queue.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// SetHandler replaces the handler.
func (s *Server) SetHandler(h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Requests returns a copy of the request log, in arrival order (empty with
// WithoutLog).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is the number of chat completion requests received (decoded).
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// MaxInFlight is the largest number of chat completions served at once.
func (s *Server) MaxInFlight() int { return int(s.maxInFlight.Load()) }

// StageOf is the pipeline stage of a request seen by a Handler.
func StageOf(req openai.ChatCompletionRequest) string { return req.Metadata[StageKey] }

// LastUser is the content of the last user message of req.
func LastUser(req openai.ChatCompletionRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// ByStage routes requests to a handler per stage, and to fallback (which
// may be nil: a 500 that fails the test) for other stages.
func ByStage(routes map[string]Handler, fallback Handler) Handler {
	return func(req openai.ChatCompletionRequest) Reply {
		if h, ok := routes[StageOf(req)]; ok {
			return h(req)
		}
		if fallback != nil {
			return fallback(req)
		}
		return Error(http.StatusInternalServerError, fmt.Sprintf("llmtest: no route for stage %q", StageOf(req)))
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeRaw(w, http.StatusBadRequest, nil, errorBody(http.StatusBadRequest, "invalid request body: "+err.Error()))
		return
	}
	stage := r.Header.Get(StageHeader)
	s.mu.Lock()
	s.count++
	if !s.noLog {
		s.requests = append(s.requests, Request{Time: time.Now(), Header: r.Header.Clone(), Body: body, Chat: req, Stage: stage})
	}
	s.mu.Unlock()
	if stage != "" {
		md := make(map[string]string, len(req.Metadata)+1)
		for k, v := range req.Metadata {
			md[k] = v
		}
		md[StageKey] = stage
		req.Metadata = md
	}
	reply, ok := s.next(req)
	if !ok {
		s.tb.Errorf("llmtest: no scripted reply for request %d (stage %q)", s.Count(), stage)
		reply = Error(http.StatusInternalServerError, "llmtest: no scripted reply")
	}
	if !s.wait(r, s.delay+reply.Delay) {
		return
	}
	if reply.Hang {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	switch {
	case reply.Status != 0 && reply.Status != http.StatusOK:
		b := reply.Body
		if b == "" {
			b = errorBody(reply.Status, http.StatusText(reply.Status))
		}
		writeRaw(w, reply.Status, reply.Header, b)
	case reply.Body != "":
		writeRaw(w, http.StatusOK, reply.Header, reply.Body)
	case req.Stream:
		s.stream(w, req, reply)
	default:
		writeJSON(w, reply.Header, completion(req, reply))
	}
}

// next takes the reply from the queue, else from the handler.
func (s *Server) next(req openai.ChatCompletionRequest) (Reply, bool) {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r, true
	}
	h := s.handler
	s.mu.Unlock()
	if h == nil {
		return Reply{}, false
	}
	return h(req), true
}

// wait sleeps d; false when the client left or the server is closing.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	data := make([]map[string]any, 0, len(s.models))
	for _, id := range s.models {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "llmtest"})
	}
	writeJSON(w, nil, map[string]any{"object": "list", "data": data})
}

type message struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content"`
}

type choice struct {
	Index        int      `json:"index"`
	Message      *message `json:"message,omitempty"`
	Delta        *message `json:"delta,omitempty"`
	FinishReason *string  `json:"finish_reason"`
}

type response struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []choice      `json:"choices"`
	Usage   *openai.Usage `json:"usage,omitempty"`
}

func completion(req openai.ChatCompletionRequest, reply Reply) response {
	fin := finish(reply)
	return response{
		ID: "chatcmpl-llmtest", Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
		Choices: []choice{{Message: &message{Role: openai.ChatMessageRoleAssistant, Content: reply.Content}, FinishReason: &fin}},
		Usage:   usage(req, reply),
	}
}

func finish(reply Reply) string {
	if reply.FinishReason != "" {
		return reply.FinishReason
	}
	return "stop"
}

// usage counts whitespace-separated words, unless the reply says otherwise.
func usage(req openai.ChatCompletionRequest, reply Reply) *openai.Usage {
	if reply.NoUsage {
		return nil
	}
	if reply.Usage != nil {
		u := *reply.Usage
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
		return &u
	}
	p := 0
	for _, m := range req.Messages {
		p += len(strings.Fields(m.Content))
	}
	c := len(strings.Fields(reply.Content))
	return &openai.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

// stream sends reply as server-sent events: a role chunk, content chunks of
// up to 16 bytes, a finish chunk, a usage chunk when asked, then [DONE].
func (s *Server) stream(w http.ResponseWriter, req openai.ChatCompletionRequest, reply Reply) {
	for k, v := range reply.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		var buf bytes.Buffer
		buf.WriteString("data: ")
		b, _ := json.Marshal(v)
		buf.Write(b)
		buf.WriteString("\n\n")
		_, _ = w.Write(buf.Bytes())
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(d *message, fin *string) response {
		return response{ID: "chatcmpl-llmtest", Object: "chat.completion.chunk", Created: time.Now().Unix(),
			Model: req.Model, Choices: []choice{{Delta: d, FinishReason: fin}}}
	}
	send(chunk(&message{Role: openai.ChatMessageRoleAssistant}, nil))
	for rest := reply.Content; rest != ""; {
		n := min(16, len(rest))
		for n < len(rest) && !utf8.RuneStart(rest[n]) {
			n++
		}
		send(chunk(&message{Content: rest[:n]}, nil))
		rest = rest[n:]
	}
	fin := finish(reply)
	send(chunk(&message{}, &fin))
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		u := chunk(nil, nil)
		u.Choices = []choice{}
		u.Usage = usage(req, reply)
		send(u)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func writeJSON(w http.ResponseWriter, h http.Header, v any) {
	b, _ := json.Marshal(v)
	for k, vs := range h {
		w.Header()[k] = vs
	}
	writeRaw(w, http.StatusOK, nil, string(b))
}

func writeRaw(w http.ResponseWriter, status int, h http.Header, body string) {
	for k, vs := range h {
		w.Header()[k] = vs
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
