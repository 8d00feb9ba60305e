package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/server"
)

// heldEngine answers a question only when the test releases it by name
// (or releases them all), and tells which questions have started.
type heldEngine struct {
	started chan string
	all     chan struct{} // closed: every question may finish

	mu    sync.Mutex
	gates map[string]chan struct{}
}

func newHeldEngine() *heldEngine {
	return &heldEngine{started: make(chan string, 16), all: make(chan struct{}), gates: map[string]chan struct{}{}}
}

// gate is the channel that releases question q.
func (e *heldEngine) gate(q string) chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	g, ok := e.gates[q]
	if !ok {
		g = make(chan struct{})
		e.gates[q] = g
	}
	return g
}

// release lets question q finish; which of the running questions ends is
// the test's choice, not the scheduler's.
func (e *heldEngine) release(q string) { close(e.gate(q)) }

func (e *heldEngine) engine() funcEngine {
	return funcEngine{ask: func(ctx context.Context, req engine.Request) (*kgqa.Answer, error) {
		gate := e.gate(req.Question)
		e.started <- req.Question
		select {
		case <-gate:
		case <-e.all:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &kgqa.Answer{Question: req.Question}, nil
	}}
}

type admissionServer struct {
	url  string
	srv  *server.Server
	held *heldEngine
}

func newAdmissionServer(t *testing.T, tune func(*config.Server)) *admissionServer {
	t.Helper()
	cfg := config.Default()
	cfg.LLM.Reasoner.BaseURL = "http://127.0.0.1:1/v1"
	cfg.Server.APIKeys = []string{"flood", "calm"}
	cfg.Server.RateLimit = 0
	cfg.Server.MaxQuestions, cfg.Server.MaxQuestionsPerKey, cfg.Server.QuestionQueue = 2, 1, 1
	cfg.Server.QuestionWait = time.Minute
	if tune != nil {
		tune(&cfg.Server)
	}
	held := newHeldEngine()
	srv, err := server.New(cfg.Server, newHarness(t, setup{noLLM: true}).graph, server.WithEngine(held.engine()), server.WithLLMConfig(cfg.LLM),
		server.WithLogger(discardLogger()))
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	// A failed test must not leave questions held: ts.Close, which runs
	// after this, waits for them.
	t.Cleanup(func() {
		select {
		case <-held.all:
		default:
			close(held.all)
		}
	})
	return &admissionServer{url: ts.URL, srv: srv, held: held}
}

type askResult struct {
	status     int
	retryAfter string
}

// ask sends a question with key and returns its result on a channel.
func (a *admissionServer) ask(t *testing.T, key, question string) <-chan askResult {
	out := make(chan askResult, 1)
	go func() {
		req, _ := http.NewRequest("POST", a.url+"/v1/ask", strings.NewReader(`{"question":"`+question+`"}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			out <- askResult{}
			return
		}
		resp.Body.Close()
		out <- askResult{resp.StatusCode, resp.Header.Get("Retry-After")}
	}()
	return out
}

func (a *admissionServer) nextStarted(t *testing.T) string {
	t.Helper()
	select {
	case q := <-a.held.started:
		return q
	case <-time.After(30 * time.Second):
		t.Fatal("no question started")
		return ""
	}
}

func result(t *testing.T, c <-chan askResult) askResult {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no answer")
		return askResult{}
	}
}

// A flooding key holds at most its share of places; another key's
// question starts at once; beyond the queue the answer is a quick 503 with
// Retry-After; a freed place goes to the waiting key.
func TestAdmissionShareAndQueue(t *testing.T) {
	a := newAdmissionServer(t, nil)
	first := a.ask(t, "flood", "f1")
	require.Equal(t, "f1", a.nextStarted(t))
	second := a.ask(t, "flood", "f2") // over the key's share: waits
	// f2 must be in the queue before f3 comes, or f3 takes its place.
	a.waitQueued(t, 1)
	calm := a.ask(t, "calm", "c1") // a place is free for another key
	require.Equal(t, "c1", a.nextStarted(t))
	third := result(t, a.ask(t, "flood", "f3")) // the queue (1) is full
	assert.Equal(t, http.StatusServiceUnavailable, third.status)
	assert.NotEmpty(t, third.retryAfter)

	a.held.release("f1") // flood's place is freed
	got := a.nextStarted(t)
	assert.Equal(t, "f2", got, "the waiting question takes the freed place")
	close(a.held.all)
	for _, c := range []<-chan askResult{first, second, calm} {
		assert.Equal(t, http.StatusOK, result(t, c).status)
	}
}

func TestAdmissionWaitRunsOut(t *testing.T) {
	a := newAdmissionServer(t, func(c *config.Server) { c.QuestionWait = 50 * time.Millisecond })
	first := a.ask(t, "flood", "f1")
	require.Equal(t, "f1", a.nextStarted(t))
	waited := result(t, a.ask(t, "flood", "f2"))
	assert.Equal(t, http.StatusServiceUnavailable, waited.status)
	assert.Equal(t, "1", waited.retryAfter)
	close(a.held.all)
	assert.Equal(t, http.StatusOK, result(t, first).status)
}

// Waiting keys are served in turn, not in arrival order.
func TestAdmissionRoundRobin(t *testing.T) {
	a := newAdmissionServer(t, func(c *config.Server) {
		c.MaxQuestions, c.MaxQuestionsPerKey, c.QuestionQueue = 1, 1, 8
	})
	var results []<-chan askResult
	results = append(results, a.ask(t, "flood", "f1"))
	require.Equal(t, "f1", a.nextStarted(t))
	for i, q := range []struct{ key, text string }{{"flood", "f2"}, {"flood", "f3"}, {"calm", "c1"}} {
		results = append(results, a.ask(t, q.key, q.text))
		a.waitQueued(t, i+1) // arrival order f2, f3, c1
	}
	var order []string
	running := "f1"
	for range 3 {
		a.held.release(running)
		running = a.nextStarted(t)
		order = append(order, running)
	}
	a.held.release(running)
	assert.Equal(t, []string{"f2", "c1", "f3"}, order)
	for _, c := range results {
		assert.Equal(t, http.StatusOK, result(t, c).status)
	}
}

// waitQueued waits until n questions wait for a place.
func (a *admissionServer) waitQueued(t *testing.T, n int) {
	t.Helper()
	for start := time.Now(); gauge(t, a.srv, "parog_questions_queued") != float64(n); time.Sleep(time.Millisecond) {
		require.Less(t, time.Since(start), 30*time.Second, "never %d queued", n)
	}
}

// deadlineEngine holds the first question until finish is closed and
// reports the deadline each question was given.
type deadlineEngine struct {
	deadlines chan time.Duration
	finish    chan struct{}
}

func (e deadlineEngine) engine() funcEngine {
	return funcEngine{ask: func(ctx context.Context, req engine.Request) (*kgqa.Answer, error) {
		e.deadlines <- *req.Overrides.Deadline
		select {
		case <-e.finish:
			return &kgqa.Answer{Question: req.Question}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
}

// newDeadlineServer serves one question at a time (four may queue) with
// a deadline of timeout, through a deadlineEngine.
func newDeadlineServer(t *testing.T, timeout time.Duration) (*admissionServer, deadlineEngine) {
	t.Helper()
	e := deadlineEngine{deadlines: make(chan time.Duration, 4), finish: make(chan struct{})}
	cfg := config.Default()
	cfg.LLM.Reasoner.BaseURL = "http://127.0.0.1:1/v1"
	cfg.Server.RateLimit, cfg.Server.RequestTimeout = 0, timeout
	cfg.Server.MaxQuestions, cfg.Server.QuestionQueue, cfg.Server.QuestionWait = 1, 4, time.Minute
	srv, err := server.New(cfg.Server, newHarness(t, setup{noLLM: true}).graph, server.WithEngine(e.engine()),
		server.WithLLMConfig(cfg.LLM), server.WithLogger(discardLogger()))
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &admissionServer{url: ts.URL, srv: srv}, e
}

// The time a question waits for a place counts against its deadline
// (server.request_timeout): it gets what is left, and a deadline that runs
// out in the queue is a 504 then, not a full deadline later.
//
// Each bound holds whatever the load: q1's deadline started after sent,
// and q2 is seen in the queue before the wait of held starts, so it waits
// at least that long.
func TestAdmissionWaitCountsAgainstTheDeadline(t *testing.T) {
	const timeout, held = 3 * time.Second, 800 * time.Millisecond
	a, e := newDeadlineServer(t, timeout)

	sent := time.Now()
	first := a.ask(t, "", "q1")
	d := <-e.deadlines
	assert.LessOrEqual(t, d, timeout)
	assert.GreaterOrEqual(t, d, timeout-time.Since(sent), "a question admitted at once keeps the whole deadline but for its way in")
	second := a.ask(t, "", "q2")
	a.waitQueued(t, 1)
	time.Sleep(held) // the wait being measured, from q2 seen queued
	e.finish <- struct{}{}
	assert.Equal(t, http.StatusOK, result(t, first).status)
	got := <-e.deadlines
	assert.LessOrEqual(t, got, timeout-held, "q2 is given what its wait left of the deadline")
	assert.Positive(t, got)
	close(e.finish)
	assert.Equal(t, http.StatusOK, result(t, second).status)
}

func TestAdmissionDeadlineRunsOutInTheQueue(t *testing.T) {
	a, e := newDeadlineServer(t, 300*time.Millisecond)
	first := a.ask(t, "", "q1")
	<-e.deadlines
	second := a.ask(t, "", "q2")
	r := result(t, second)
	close(e.finish) // q1 ends only after q2 has its answer
	assert.Equal(t, http.StatusGatewayTimeout, r.status, "the deadline ran out while q2 waited")
	assert.Len(t, e.deadlines, 0, "q2 never reached the engine")
	result(t, first)
}
