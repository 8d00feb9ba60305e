package kg

import "github.com/parog/parog-go/kgqa/kg/backend"

// DefaultScanBudget is the number of triples a raw query (Graph.Select)
// may read from an in-process backend when kg.scan_budget is unset.
// goRDFlib keeps every intermediate solution in memory, one per triple
// read at the deepest join level, so the budget bounds the memory of one
// query: at 100,000 triples its heap grew by at most 59 MB in
// TestSelectMemoryBound.
const DefaultScanBudget = 100_000

// DefaultRowBudget is the number of intermediate rows a raw query may
// build in an in-process backend when kg.row_budget is unset. VALUES
// blocks joined through BIND multiply rows without reading a triple, so
// the scan budget alone does not bound them.
const DefaultRowBudget = 100_000

// Evaluating is implemented by graphs that evaluate queries in the
// process (the embedded store): it reports the evaluations running,
// including those whose caller has gone, for the metrics.
type Evaluating interface {
	Evaluating() int
}

// Evaluating implements Evaluating.
func (s *store) Evaluating() int {
	if e, ok := s.exec.(backend.Evaluator); ok {
		return e.Evaluating()
	}
	return 0
}

// Evaluating implements Evaluating.
func (c *Cached) Evaluating() int {
	if e, ok := c.g.(Evaluating); ok {
		return e.Evaluating()
	}
	return 0
}
