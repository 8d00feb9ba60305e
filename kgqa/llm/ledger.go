package llm

import (
	"context"
	"sync"

	"github.com/parog/parog-go/kgqa"
)

// Ledger collects the accounting records of the calls made for one question.
// It is safe for concurrent use; a nil *Ledger ignores records.
type Ledger struct {
	mu    sync.Mutex
	calls []kgqa.Call
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{} }

type ledgerKey struct{}

// WithLedger returns a context whose calls are recorded in l.
func WithLedger(ctx context.Context, l *Ledger) context.Context {
	return context.WithValue(ctx, ledgerKey{}, l)
}

// LedgerFrom returns the ledger of ctx, or nil when there is none (a nil
// ledger is safe to use).
func LedgerFrom(ctx context.Context) *Ledger {
	l, _ := ctx.Value(ledgerKey{}).(*Ledger)
	return l
}

// Add records c.
func (l *Ledger) Add(c kgqa.Call) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

// Calls returns a copy of the records, in the order they were added.
func (l *Ledger) Calls() []kgqa.Call {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]kgqa.Call(nil), l.calls...)
}

// Summary returns the totals of the recorded calls.
func (l *Ledger) Summary() kgqa.LLMUsage { return kgqa.SumCalls(l.Calls()) }

type seedKey struct{}

// WithSeed makes every call made with ctx send seed as the sampling seed,
// in place of the role's configured one, so one run of an evaluation can be
// repeated per seed. Such calls sample at the role's seed_temperature when
// it is set: a seed changes nothing under greedy decoding.
func WithSeed(ctx context.Context, seed int) context.Context {
	return context.WithValue(ctx, seedKey{}, seed)
}

// runSeed reports whether ctx carries a seed set by WithSeed.
func runSeed(ctx context.Context) bool {
	_, ok := ctx.Value(seedKey{}).(int)
	return ok
}

// seedFrom returns the seed set by WithSeed, or fallback.
func seedFrom(ctx context.Context, fallback *int) *int {
	if s, ok := ctx.Value(seedKey{}).(int); ok {
		return &s
	}
	return fallback
}
