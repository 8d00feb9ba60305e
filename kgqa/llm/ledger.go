package llm

import (
	"context"
	"sync"
	"time"
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

// Tally sums a set of calls.
type Tally struct {
	// Calls is the number of calls, failed ones included.
	Calls int `json:"calls"`
	// Failed is the number of calls that ended in an error.
	Failed int `json:"failed,omitempty"`
	// PromptTokens is the sum of prompt tokens.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens is the sum of completion tokens.
	CompletionTokens int `json:"completion_tokens"`
	// TotalTokens is PromptTokens + CompletionTokens.
	TotalTokens int `json:"total_tokens"`
	// Retries is the sum of retried attempts.
	Retries int `json:"retries,omitempty"`
	// Fallbacks is the sum of requests resent without a parameter the
	// endpoint rejected.
	Fallbacks int `json:"fallbacks,omitempty"`
	// Latency is the summed wall time of the calls (not the elapsed time of
	// the question: calls may overlap).
	Latency time.Duration `json:"latency_ns"`
}

func (t *Tally) add(c Call) {
	t.Calls++
	if c.Err != "" {
		t.Failed++
	}
	t.PromptTokens += c.PromptTokens
	t.CompletionTokens += c.CompletionTokens
	t.TotalTokens += c.PromptTokens + c.CompletionTokens
	t.Retries += c.Retries
	t.Fallbacks += c.Fallbacks
	t.Latency += c.Latency
}

// Usage summarises a ledger: totals, and the same per role and per stage.
type Usage struct {
	Tally
	// ByRole breaks the totals down by role.
	ByRole map[Role]Tally `json:"by_role,omitempty"`
	// ByStage breaks the totals down by stage.
	ByStage map[Stage]Tally `json:"by_stage,omitempty"`
}

// Summary returns the totals of the recorded calls.
func (l *Ledger) Summary() Usage {
	var u Usage
	for _, c := range l.Calls() {
		u.add(c)
	}
	return u
}

func (u *Usage) add(c Call) {
	u.Tally.add(c)
	if u.ByRole == nil {
		u.ByRole = map[Role]Tally{}
		u.ByStage = map[Stage]Tally{}
	}
	r := u.ByRole[c.Role]
	r.add(c)
	u.ByRole[c.Role] = r
	s := u.ByStage[c.Stage]
	s.add(c)
	u.ByStage[c.Stage] = s
}

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
