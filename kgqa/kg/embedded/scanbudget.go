package embedded

import (
	"context"
	"sync/atomic"

	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/graph"
	rdfstore "github.com/tggo/goRDFlib/store"
	"github.com/tggo/goRDFlib/term"
)

// budgetStore is the embedded store as one evaluation sees it. goRDFlib's
// evaluator takes no context, but it gets all its input from the store,
// and the evaluation is instrumented (instrument) to ask the store once
// per row it pairs without reading a triple. So the store is where the
// evaluation is stopped: once the context is done or a budget is spent,
// the next call panics with errStop, which unwinds the evaluator and
// releases every row it built; Store.Query recovers it.
type budgetStore struct {
	rdfstore.Store
	ctx context.Context
	// scans and rows are what is left of the two budgets.
	scans, rows atomic.Int64
	// scanned and paired are set when a budget ran out.
	scanned, paired atomic.Bool
	calls           atomic.Int64
}

// stop is the value an evaluation panics with when it is stopped.
type stop struct{}

// rowHook is the IRI of the triple pattern instrument adds per row: the
// store answers it itself, with one triple, and counts a row.
const rowHook = "urn:parog:eval:row"

var rowHookIRI = term.NewURIRefUnsafe(rowHook)

func newBudgetStore(ctx context.Context, s rdfstore.Store, scans, rows int64) *budgetStore {
	b := &budgetStore{Store: s, ctx: ctx}
	b.scans.Store(scans)
	b.rows.Store(rows)
	return b
}

// Triples implements the goRDFlib store interface.
func (b *budgetStore) Triples(p term.TriplePattern, c term.Term) rdfstore.TripleIterator {
	if u, ok := p.Subject.(term.URIRef); ok && u.Value() == rowHook {
		return b.row
	}
	inner := b.Store.Triples(p, c)
	return func(yield func(term.Triple) bool) {
		b.check()
		inner(func(t term.Triple) bool {
			if b.scans.Add(-1) < 0 {
				b.scanned.Store(true)
				return false
			}
			if b.calls.Add(1)%1024 == 0 && b.ctx.Err() != nil {
				return false
			}
			return yield(t)
		})
		// Panic only once the store's own iteration has returned, so
		// that it releases what it holds.
		b.check()
	}
}

// row counts one intermediate row and yields the hook triple, so that the
// FILTER EXISTS that asked for it holds.
func (b *budgetStore) row(yield func(term.Triple) bool) {
	if b.rows.Add(-1) < 0 {
		b.paired.Store(true)
	}
	if b.calls.Add(1)%256 == 0 || b.paired.Load() {
		b.check()
	}
	yield(term.Triple{Subject: rowHookIRI, Predicate: rowHookIRI, Object: rowHookIRI})
}

// check stops the evaluation when its context is done or a budget ran
// out.
func (b *budgetStore) check() {
	if b.scanned.Load() || b.paired.Load() || b.ctx.Err() != nil {
		panic(stop{})
	}
}

// view is a graph over the budgeted store with the same identifier as g.
func (b *budgetStore) view(g *rdflibgo.Graph) *rdflibgo.Graph {
	return graph.NewGraphFromStore(b, g.Identifier())
}
