package kgqa

import (
	"context"
	"sync"
)

// Ledger collects the accounting records of the calls made for one question.
// It is safe for concurrent use; a nil *Ledger ignores records.
type Ledger struct {
	mu    sync.Mutex
	calls []Call
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
func (l *Ledger) Add(c Call) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

// Calls returns a copy of the records, in the order they were added.
func (l *Ledger) Calls() []Call {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Call(nil), l.calls...)
}

// Summary returns the totals of the recorded calls.
func (l *Ledger) Summary() LLMUsage { return SumCalls(l.Calls()) }
