package server_test

import (
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
)

// valuesProduct is the probe's query that read no triple: n VALUES blocks
// of size rows, joined to each other through BIND(1 AS ?k).
func valuesProduct(n, size int) string {
	var b strings.Builder
	b.WriteString("SELECT (COUNT(*) AS ?n) WHERE { ")
	for i := range n {
		b.WriteString("{ VALUES ?v" + strconv.Itoa(i) + " { ")
		for j := range size {
			b.WriteString(strconv.Itoa(j) + " ")
		}
		b.WriteString("} BIND(1 AS ?k) } ")
	}
	b.WriteString("}")
	return b.String()
}

// sampler records the largest value of the evaluations gauge and of the
// live heap above its start while it runs.
type sampler struct {
	maxEval  atomic.Int64
	maxHeap  atomic.Uint64
	baseHeap uint64
	stop     chan struct{}
	wg       sync.WaitGroup
}

func sample(t *testing.T, h *harness) *sampler {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := &sampler{baseHeap: ms.HeapAlloc, stop: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > s.baseHeap && ms.HeapAlloc-s.baseHeap > s.maxHeap.Load() {
				s.maxHeap.Store(ms.HeapAlloc - s.baseHeap)
			}
			if n := int64(gauge(t, h.srv, "parog_kg_evaluations_running")); n > s.maxEval.Load() {
				s.maxEval.Store(n)
			}
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *sampler) done() { close(s.stop); s.wg.Wait() }

// The probe: four VALUES products in two waves against two slots. Before,
// the evaluations ran on for minutes past their 503/504 (four at once) and
// grew the server by gigabytes. Now each answer is a 504 or a 503, the
// evaluations never outnumber the slots, they are gone within 2 s of the
// last answer, and the heap stays within 256 MB.
func TestSPARQLValuesProductStopsAtDeadline(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) {
		c.KG.RowBudget = 1 << 40
		c.Server.SPARQLTimeout = time.Second
		c.Server.SPARQLConcurrency = 2
	}})
	path := "/sparql?query=" + url.QueryEscape(valuesProduct(3, 150))
	s := sample(t, h)
	statuses := make([]int, 4)
	for wave := range 2 {
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[wave*2+i] = h.call(t, "GET", path, "", nil).status
			}()
		}
		wg.Wait()
	}
	answered := time.Now()
	for gauge(t, h.srv, "parog_kg_evaluations_running") > 0 {
		require.Less(t, time.Since(answered), 2*time.Second, "evaluations run on after their 504")
		time.Sleep(10 * time.Millisecond)
	}
	s.done()
	t.Logf("statuses %v; evaluations at most %d; heap grew by %d MB at most", statuses, s.maxEval.Load(), s.maxHeap.Load()>>20)
	for _, st := range statuses {
		assert.Contains(t, []int{http.StatusGatewayTimeout, http.StatusServiceUnavailable}, st)
	}
	assert.Contains(t, statuses, http.StatusGatewayTimeout)
	assert.LessOrEqual(t, s.maxEval.Load(), int64(2))
	assert.Less(t, s.maxHeap.Load(), uint64(256<<20))
}

// With the default row budget the same query is refused with its reason,
// and no evaluation is left running once the 400 is sent. The deadlines
// are far off: the refusal, not a race with server.sparql_timeout, ends
// the query (building the 100,000 rows took 12 s under -race on a loaded
// machine, past the 10 s default).
func TestSPARQLValuesProductRefused(t *testing.T) {
	h := newHarness(t, setup{noLLM: true, edit: func(c *config.Config) {
		c.Server.SPARQLTimeout, c.KG.Timeout = 10*time.Minute, 10*time.Minute
	}})
	r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(valuesProduct(3, 150)), "", nil)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), "intermediate rows")
	assert.Equal(t, 0.0, gauge(t, h.srv, "parog_kg_evaluations_running"))
}

// The probe's CONCAT chain (24 doublings) is refused before any backend
// sees it, with the reason.
func TestSPARQLRefusesCostlyExpression(t *testing.T) {
	h := newHarness(t, setup{noLLM: true})
	q := `SELECT ?v24 WHERE { BIND("aaaaaaaaaaaaaaaa" AS ?v0) `
	for i := range 24 {
		q += "BIND(CONCAT(?v" + strconv.Itoa(i) + ", ?v" + strconv.Itoa(i) + ") AS ?v" + strconv.Itoa(i+1) + ") "
	}
	r := h.call(t, "GET", "/sparql?query="+url.QueryEscape(q+"}"), "", nil)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), "times longer")
}
