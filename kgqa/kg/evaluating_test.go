package kg

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/embedded"
)

const fbPrefix = "PREFIX ns: <http://rdf.freebase.com/ns/> "

// heapGrowth runs f and returns the largest growth of the live heap seen
// while it ran (sampled), above what was live before.
func heapGrowth(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak - base
}

func openDemo(t *testing.T, tune func(*config.KG)) Graph {
	t.Helper()
	cfg := config.Default().KG
	cfg.Files = []string{embedded.BuiltinDemoFreebase}
	cfg.CacheSize = 0
	if tune != nil {
		tune(&cfg)
	}
	return openFixture(t, cfg)
}

// waitIdle waits until no evaluation runs any more; it fails the test if
// one goes on for a minute.
func waitIdle(t *testing.T, g Graph) {
	t.Helper()
	ev := g.(Evaluating)
	for start := time.Now(); ev.Evaluating() > 0; time.Sleep(10 * time.Millisecond) {
		require.Less(t, time.Since(start), time.Minute, "an evaluation goes on after its caller left")
	}
}

// The query of the report that grew the server to 3 GB: three unconnected
// patterns over the demo graph's 447 names (89 million rows).
const productQuery = fbPrefix + `SELECT (COUNT(*) AS ?n) WHERE { ?a ns:type.object.name ?x . ?b ns:type.object.name ?y . ?c ns:type.object.name ?z }`

// The same size of result through shared variables: every pair and triple
// of entities that share a type.
const sharedTypeQuery = fbPrefix + `SELECT (COUNT(*) AS ?n) WHERE { ?a ns:type.object.type ?t . ?b ns:type.object.type ?t . ?c ns:type.object.type ?t }`

const memoryBound = 256 << 20

func TestSelectMemoryBound(t *testing.T) {
	tests := []struct {
		name  string
		query string
		tune  func(*config.KG)
		want  error
	}{
		{"cartesian product refused", productQuery, nil, ErrQuery},
		{"scan budget spent", sharedTypeQuery, nil, ErrQuery},
		{"deadline stops the evaluation", sharedTypeQuery, func(c *config.KG) {
			c.ScanBudget = 1 << 40
			c.Timeout = 300 * time.Millisecond
		}, ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := openDemo(t, tt.tune)
			var err error
			grew := heapGrowth(func() {
				_, err = g.Select(context.Background(), tt.query)
				waitIdle(t, g)
			})
			require.ErrorIs(t, err, tt.want)
			t.Logf("%s: heap grew by %d MB at most", tt.name, grew>>20)
			assert.Less(t, grew, uint64(memoryBound))
		})
	}
}

func TestSelectWithinBudgetAnswers(t *testing.T) {
	g := openDemo(t, nil)
	res, err := g.Select(context.Background(), fbPrefix+`SELECT (COUNT(*) AS ?n) WHERE { ?a ns:type.object.name ?x . ?a ns:type.object.type ?t }`)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	assert.NotEqual(t, "0", res.Rows[0]["n"].Name)
}
