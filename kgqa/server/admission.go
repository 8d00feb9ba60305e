package server

import (
	"context"
	"errors"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parog/parog-go/kgqa/config"
)

// Defaults of the admission settings when unset.
const (
	defaultQuestionWait = 10 * time.Second
)

// admission bounds the questions in flight (each spends model calls for
// seconds) and shares the places fairly between API keys:
//
//   - at most slots questions run at once; a key holds at most perKey of
//     them, and at most three quarters of the queue, so a flooding key
//     always leaves places to the others;
//   - beyond that a question waits in a short queue, at most wait; a freed
//     place goes to the waiting keys in turn (round robin), each key's
//     questions in arrival order;
//   - when the queue is full, or the wait runs out, the answer is 503 with
//     Retry-After, quickly, instead of a 504 after the model was paid.
type admission struct {
	slots, perKey, queueMax, queuePerKey int
	wait                                 time.Duration

	mu      sync.Mutex
	running int
	byKey   map[string]int
	queues  map[string][]*waiter
	ring    []string // keys with waiters, served in turn
	next    int
	queued  int

	inFlight, waiting prometheus.Gauge
	refused           *prometheus.CounterVec
}

type waiter struct {
	ready   chan struct{}
	granted bool
}

// newAdmission sizes admission from the configuration: by default as many
// questions as the reasoner's concurrency can serve without queueing their
// calls (concurrency / engine.parallelism), three quarters of them for one
// key, and a queue as long as the places.
func newAdmission(cfg config.Server, llmCfg config.LLM, budgets config.Engine, reg prometheus.Registerer) *admission {
	slots := cfg.MaxQuestions
	if slots <= 0 {
		slots = max(1, llmCfg.Reasoner.Concurrency/max(1, budgets.Parallelism))
	}
	perKey := cfg.MaxQuestionsPerKey
	if perKey <= 0 {
		perKey = max(1, slots*3/4)
	}
	queue := cfg.QuestionQueue
	if queue <= 0 {
		queue = slots
	}
	wait := cfg.QuestionWait
	if wait <= 0 {
		wait = defaultQuestionWait
	}
	a := &admission{
		slots: slots, perKey: min(perKey, slots), queueMax: queue, queuePerKey: max(1, queue*3/4), wait: wait,
		byKey: map[string]int{}, queues: map[string][]*waiter{},
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "parog_questions_in_flight", Help: "Questions (ask, chat, plan) being answered.",
		}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "parog_questions_queued", Help: "Questions waiting for a place.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parog_questions_refused_total", Help: "Questions answered 503 for lack of a place, by reason (queue_full or wait).",
		}, []string{"reason"}),
	}
	reg.MustRegister(a.inFlight, a.waiting, a.refused)
	return a
}

// acquire takes a place for a question of key, waiting in the queue if
// need be; release gives it back.
func (a *admission) acquire(ctx context.Context, key string) (release func(), err error) {
	a.mu.Lock()
	if a.running < a.slots && a.byKey[key] < a.perKey && len(a.queues[key]) == 0 {
		a.take(key)
		a.mu.Unlock()
		return a.releaser(key), nil
	}
	if a.queued >= a.queueMax || len(a.queues[key]) >= a.queuePerKey {
		a.mu.Unlock()
		a.refused.WithLabelValues("queue_full").Inc()
		return nil, a.busy()
	}
	w := &waiter{ready: make(chan struct{})}
	if len(a.queues[key]) == 0 {
		a.ring = append(a.ring, key)
	}
	a.queues[key] = append(a.queues[key], w)
	a.queued++
	a.waiting.Inc()
	a.mu.Unlock()

	timer := time.NewTimer(a.wait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return a.releaser(key), nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		a.refused.WithLabelValues("wait").Inc()
		err = a.busy()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if w.granted {
		// Granted while giving up: pass the place on.
		a.give(key)
		return nil, err
	}
	a.unqueue(key, w)
	return nil, err
}

func (a *admission) busy() error {
	secs := int(math.Ceil(a.wait.Seconds() / 2))
	he := errorf(http.StatusServiceUnavailable, "server busy: %d questions in flight and %d waiting; retry in %d s", a.slots, a.queueMax, secs)
	he.retryAfter = secs
	return he
}

func (a *admission) take(key string) {
	a.running++
	a.byKey[key]++
	a.inFlight.Inc()
}

func (a *admission) releaser(key string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.give(key)
		})
	}
}

// give returns key's place and hands free places to waiting keys in turn.
// a.mu is held.
func (a *admission) give(key string) {
	a.running--
	a.inFlight.Dec()
	if a.byKey[key]--; a.byKey[key] <= 0 {
		delete(a.byKey, key)
	}
	for a.running < a.slots && a.grantNext() {
	}
}

// grantNext gives a place to the first waiter of the next key in turn
// that is under its share; it reports whether it found one.
func (a *admission) grantNext() bool {
	for range len(a.ring) {
		if a.next >= len(a.ring) {
			a.next = 0
		}
		key := a.ring[a.next]
		a.next++
		if a.byKey[key] >= a.perKey {
			continue
		}
		w := a.queues[key][0]
		a.unqueue(key, w)
		w.granted = true
		a.take(key)
		close(w.ready)
		return true
	}
	return false
}

// unqueue removes w from key's queue. a.mu is held.
func (a *admission) unqueue(key string, w *waiter) {
	q := a.queues[key]
	for i, x := range q {
		if x == w {
			q = append(q[:i], q[i+1:]...)
			break
		}
	}
	a.queued--
	a.waiting.Dec()
	if len(q) > 0 {
		a.queues[key] = q
		return
	}
	delete(a.queues, key)
	for i, k := range a.ring {
		if k == key {
			a.ring = append(a.ring[:i], a.ring[i+1:]...)
			if a.next > i {
				a.next--
			}
			break
		}
	}
}

// admit takes a place for the request's question (see admission), or
// answers 503 and reports false.
//
// The wait counts against the question's deadline: deadline is what is
// left of it once a place is free, and a deadline that runs out in the
// queue is a 504 then (a question waited 10 s and then ran its whole 60 s).
func (s *Server) admit(c *gin.Context, deadline *time.Duration) (release func(), ok bool) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(c.Request.Context(), *deadline)
	defer cancel()
	release, err := s.admission.acquire(ctx, c.GetString(ctxKey))
	left := *deadline - time.Since(start)
	if err == nil && left <= 0 {
		release()
		err = context.DeadlineExceeded
	}
	if errors.Is(err, context.DeadlineExceeded) && c.Request.Context().Err() == nil {
		err = errorf(http.StatusGatewayTimeout, "the deadline (%s) ran out while the question waited for a place", *deadline)
	}
	if err != nil {
		s.fail(c, err)
		return nil, false
	}
	*deadline = left
	return release, true
}
