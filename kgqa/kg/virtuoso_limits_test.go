package kg

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// concatChain is the probe's query that grew Virtuoso from 172 MB to
// 9.9 GB: n chained BIND(CONCAT(?vi, ?vi) AS ?vi+1), each doubling the
// string.
func concatChain(n int) string {
	var b strings.Builder
	b.WriteString(`SELECT (STRLEN(?v` + fmt.Sprint(n) + `) AS ?len) WHERE { BIND("aaaaaaaaaaaaaaaa" AS ?v0) `)
	for i := range n {
		fmt.Fprintf(&b, "BIND(CONCAT(?v%d, ?v%d) AS ?v%d) ", i, i, i+1)
	}
	b.WriteString("}")
	return b.String()
}

// Through the sparql backend the chain never reaches Virtuoso: its
// resident memory grows by less than 512 MB while the query is answered.
func TestVirtuosoConcatChainBounded(t *testing.T) {
	srv := virtuoso(t)
	g := openFixture(t, endpointConfig(srv.GraphURL(fixtureGraph)))
	before, err := srv.RSS()
	require.NoError(t, err)
	var peak int64
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if rss, err := srv.RSS(); err == nil {
				mu.Lock()
				peak = max(peak, rss)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = g.Select(ctx, concatChain(24))
	// Virtuoso may still be working on it after the answer.
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	t.Logf("Select: %v; Virtuoso RSS %d MB before, %d MB at most", err, before>>20, peak>>20)
	require.ErrorIs(t, err, ErrQuery)
	assert.Contains(t, err.Error(), "longer")
	assert.Less(t, peak-before, int64(512<<20))
}
