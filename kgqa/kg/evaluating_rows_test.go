package kg

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
)

// valuesProduct is the probe's query that read no triple at all: n blocks
// of size values, each joined to the others through BIND(1 AS ?k), so
// every row of one pairs with every row of the next (size^n rows) while
// the scan budget sees nothing.
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

// waitIdleWithin fails the test unless no evaluation runs within d.
func waitIdleWithin(t *testing.T, g Graph, d time.Duration) {
	t.Helper()
	ev := g.(Evaluating)
	start := time.Now()
	for ev.Evaluating() > 0 {
		if time.Since(start) > d {
			t.Fatalf("%d evaluations still run %v after their caller left", ev.Evaluating(), d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The probe's three 150-value blocks (3.4 million rows, no triple read)
// grew the server by 2.4 GB past its 504. The row budget refuses them,
// and a deadline stops them, with the memory bounded either way.
func TestSelectValuesProductBounded(t *testing.T) {
	q := valuesProduct(3, 150)
	tests := []struct {
		name string
		tune func(*config.KG)
		want error
	}{
		{"row budget spent", nil, ErrQuery},
		{"deadline stops the evaluation", func(c *config.KG) {
			c.RowBudget = 1 << 40
			c.Timeout = 300 * time.Millisecond
		}, ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := openDemo(t, tt.tune)
			var err error
			grew := heapGrowth(func() {
				_, err = g.Select(context.Background(), q)
				waitIdleWithin(t, g, 2*time.Second)
			})
			require.ErrorIs(t, err, tt.want)
			t.Logf("%s: %v; heap grew by %d MB at most", tt.name, err, grew>>20)
			assert.Less(t, grew, uint64(memoryBound))
		})
	}
}

// A caller that leaves (its context cancelled) stops its evaluation too,
// and the store never runs more evaluations than it has callers.
func TestSelectValuesProductCancelled(t *testing.T) {
	g := openDemo(t, func(c *config.KG) { c.RowBudget = 1 << 40 })
	q := valuesProduct(3, 150)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = g.Select(ctx, q)
		}()
	}
	// Every caller's evaluation runs before they leave (a caller cancelled
	// before its query starts gets the bare context error, not the
	// store's).
	for start := time.Now(); g.(Evaluating).Evaluating() < len(errs); time.Sleep(5 * time.Millisecond) {
		require.Less(t, time.Since(start), 30*time.Second, "the %d evaluations never ran together", len(errs))
	}
	cancel()
	wg.Wait()
	// Select returned to every caller: none of their evaluations may go on.
	assert.Equal(t, 0, g.(Evaluating).Evaluating())
	for _, err := range errs {
		assert.ErrorIs(t, err, ErrUnavailable)
	}
}

// Select returns only once its evaluation has stopped, and the count of
// evaluations running says so at once: a refused query is not counted
// after its error (the server's /sparql answered 400 and then read the
// gauge at 1 when the count fell only after the evaluation had handed
// over its outcome). Repeated, since the window was a goroutine switch.
func TestSelectRefusedCountsNoEvaluation(t *testing.T) {
	g := openDemo(t, func(c *config.KG) { c.RowBudget = 1000 })
	q := valuesProduct(2, 40)
	for i := range 50 {
		_, err := g.Select(context.Background(), q)
		require.ErrorIs(t, err, ErrQuery)
		require.Equal(t, 0, g.(Evaluating).Evaluating(), "run %d: the evaluation is counted after Select returned", i)
	}
}
