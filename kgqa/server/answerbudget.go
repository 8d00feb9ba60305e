package server

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// defaultSPARQLAnswerBudget is server.sparql_answer_budget when unset:
// eight answers of the default largest size.
const defaultSPARQLAnswerBudget = 128 << 20

// answerBudget bounds the bytes of /sparql answers held at once, across
// the server and per client. An answer is held from before its query runs
// (at the largest size it may reach) until its last byte is written or its
// write deadline passes; a client that never reads holds its share for
// server.sparql_write_timeout at most, and never more than its share.
// Without it each slow reader held a whole answer, and 120 of them held 2
// to 7 GB.
type answerBudget struct {
	total, share int64
	gauge        prometheus.Gauge

	mu       sync.Mutex
	held     int64
	byClient map[string]int64
	// peak is the most held since the budget was last empty; when it
	// empties after holding much, the heap is handed back (release).
	peak     int64
	lastFree time.Time
	// free hands the heap back to the system; debug.FreeOSMemory but in
	// tests.
	free func()
}

func newAnswerBudget(total, maxAnswer int64, reg prometheus.Registerer) *answerBudget {
	if total <= 0 {
		total = defaultSPARQLAnswerBudget
	}
	total = max(total, maxAnswer)
	b := &answerBudget{
		total: total,
		// A client's share is a quarter of the budget, and at least one
		// answer of the largest size.
		share:    max(total/4, maxAnswer),
		byClient: map[string]int64{},
		free:     debug.FreeOSMemory,
		gauge: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "parog_sparql_answer_bytes_held", Help: "Bytes of /sparql answers held for their clients (reserved or being written).",
		}),
	}
	reg.MustRegister(b.gauge)
	return b
}

// answerHold is one answer's place in the budget.
type answerHold struct {
	b      *answerBudget
	client string
	n      int64
}

// take reserves n bytes for client, or answers 503 with Retry-After when
// the server's budget or the client's share has no room.
func (b *answerBudget) take(client string, n int64) (*answerHold, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.byClient[client]+n > b.share:
		return nil, b.busy(fmt.Sprintf("this client already holds %d MiB of /sparql answers (its share of server.sparql_answer_budget is %d MiB): read them first", b.byClient[client]>>20, b.share>>20))
	case b.held+n > b.total:
		return nil, b.busy(fmt.Sprintf("the server holds %d MiB of /sparql answers (server.sparql_answer_budget is %d MiB)", b.held>>20, b.total>>20))
	}
	b.held += n
	b.byClient[client] += n
	b.peak = max(b.peak, b.held)
	b.gauge.Set(float64(b.held))
	return &answerHold{b: b, client: client, n: n}, nil
}

func (b *answerBudget) busy(why string) error {
	he := errorf(http.StatusServiceUnavailable, "%s; retry in 2 s", why)
	he.retryAfter = 2
	return he
}

// shrink gives back what the answer turned out not to need.
func (h *answerHold) shrink(n int64) {
	if n >= h.n {
		return
	}
	h.b.give(h.client, h.n-n)
	h.n = n
}

// release gives the whole hold back.
func (h *answerHold) release() {
	h.b.give(h.client, h.n)
	h.n = 0
}

// freeAfter is how much the budget must have held for its emptying to
// hand the heap back, and freeEvery how often that may happen: a large
// GC target (server.gc_percent) would otherwise keep the heap the answers
// grew long after their readers left.
const (
	freeAfter = 64 << 20
	freeEvery = 5 * time.Second
)

func (b *answerBudget) give(client string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
	if b.byClient[client] -= n; b.byClient[client] <= 0 {
		delete(b.byClient, client)
	}
	b.gauge.Set(float64(b.held))
	if b.held > 0 {
		return
	}
	if b.peak >= freeAfter && time.Since(b.lastFree) >= freeEvery {
		b.lastFree = time.Now()
		go b.free()
	}
	b.peak = 0
}
