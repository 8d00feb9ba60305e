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
// evaluator takes no context and cannot be stopped, but it gets all its
// input from the store: once the budget is spent or the context is done,
// every scan comes back empty and the evaluation winds down at once
// instead of going on after its caller has left.
type budgetStore struct {
	rdfstore.Store
	ctx      context.Context
	left     atomic.Int64
	exceeded atomic.Bool
}

func newBudgetStore(ctx context.Context, s rdfstore.Store, budget int) *budgetStore {
	b := &budgetStore{Store: s, ctx: ctx}
	b.left.Store(int64(budget))
	return b
}

// Triples implements the goRDFlib store interface.
func (b *budgetStore) Triples(p term.TriplePattern, c term.Term) rdfstore.TripleIterator {
	inner := b.Store.Triples(p, c)
	return func(yield func(term.Triple) bool) {
		if b.stopped() {
			return
		}
		inner(func(t term.Triple) bool {
			n := b.left.Add(-1)
			if n < 0 {
				b.exceeded.Store(true)
				return false
			}
			if n%1024 == 0 && b.ctx.Err() != nil {
				return false
			}
			return yield(t)
		})
	}
}

func (b *budgetStore) stopped() bool {
	return b.exceeded.Load() || b.left.Load() <= 0 || b.ctx.Err() != nil
}

// view is a graph over the budgeted store with the same identifier as g.
func (b *budgetStore) view(g *rdflibgo.Graph) *rdflibgo.Graph {
	return graph.NewGraphFromStore(b, g.Identifier())
}
