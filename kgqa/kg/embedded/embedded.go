// Package embedded is the in-process adapter of package kg: a goRDFlib
// graph, in memory or persisted in Badger, that evaluates the same SELECT
// text kg sends to a SPARQL endpoint. It also knows the shipped demo graphs
// (see Builtin*).
package embedded

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parog/parog-go/kgqa/kg/backend"

	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/nt"
	"github.com/tggo/goRDFlib/sparql"
	"github.com/tggo/goRDFlib/store/badgerstore"
	"github.com/tggo/goRDFlib/term"
	"github.com/tggo/goRDFlib/turtle"
)

// graphName names the one graph of the embedded store, fixed so that a
// persistent store finds its triples again after a restart.
const graphName = "urn:parog:kg"

// Store runs queries on an in-process goRDFlib graph.
type Store struct {
	g       *rdflibgo.Graph
	closer  func() error
	timeout time.Duration
	running atomic.Int64
}

// Open opens the store (in memory, or Badger under dir) and loads
// files when it is empty. Relative file paths are resolved against baseDir.
func Open(ctx context.Context, dir string, files []string, baseDir string, timeout time.Duration) (*Store, error) {
	e := &Store{closer: func() error { return nil }, timeout: timeout}
	if dir == "" {
		e.g = rdflibgo.NewGraph(rdflibgo.WithIdentifier(term.NewURIRefUnsafe(graphName)))
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("kg: open embedded store: %w", err)
		}
		bs, err := badgerstore.New(badgerstore.WithDir(dir))
		if err != nil {
			return nil, fmt.Errorf("kg: open embedded store %s: %w", dir, err)
		}
		e.g = rdflibgo.NewGraph(rdflibgo.WithStore(bs), rdflibgo.WithIdentifier(term.NewURIRefUnsafe(graphName)))
		e.closer = bs.Close
		if e.g.Len() > 0 {
			// A persistent store keeps what an earlier run loaded.
			return e, nil
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			_ = e.Close()
			return nil, err
		}
		if err := e.load(f, baseDir, dir != ""); err != nil {
			_ = e.Close()
			return nil, err
		}
	}
	return e, nil
}

// load parses one file (or builtin graph) into the store. A persistent
// store is filled in batches from an in-memory parse: Badger commits a
// transaction per single Add.
func (e *Store) load(name, baseDir string, batch bool) error {
	r, format, closeFn, err := openSource(name, baseDir)
	if err != nil {
		return err
	}
	defer closeFn()
	target := e.g
	if batch {
		target = rdflibgo.NewGraph()
	}
	switch format {
	case "nt":
		err = nt.Parse(target, r)
	case "ttl":
		err = turtle.Parse(target, r)
	}
	if err != nil {
		return fmt.Errorf("kg: load %s: %w", name, err)
	}
	if batch {
		copyInBatches(target, e.g)
	}
	return nil
}

func copyInBatches(from, to *rdflibgo.Graph) {
	const size = 10_000
	quads := make([]term.Quad, 0, size)
	ctx := term.NewURIRefUnsafe(graphName)
	for t := range from.Triples(nil, nil, nil) {
		quads = append(quads, term.Quad{Triple: t, Graph: ctx})
		if len(quads) == size {
			to.Store().AddN(quads)
			quads = quads[:0]
		}
	}
	to.Store().AddN(quads)
}

// openSource opens a file or builtin graph and tells its format from its
// name (.nt or .ttl, optionally .gz).
func openSource(name, baseDir string) (io.Reader, string, func(), error) {
	if strings.HasPrefix(name, "builtin:") {
		data, err := builtinGraph(name)
		if err != nil {
			return nil, "", nil, err
		}
		return bytes.NewReader(data), "nt", func() {}, nil
	}
	path := name
	if !filepath.IsAbs(path) && baseDir != "" {
		path = filepath.Join(baseDir, path)
	}
	base := strings.TrimSuffix(strings.ToLower(path), ".gz")
	var format string
	switch {
	case strings.HasSuffix(base, ".nt"):
		format = "nt"
	case strings.HasSuffix(base, ".ttl"):
		format = "ttl"
	default:
		return nil, "", nil, fmt.Errorf("kg: load %s: unknown format (want .nt or .ttl, optionally .gz)", name)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, fmt.Errorf("kg: load: %w", err)
	}
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	closeFn := func() { _ = f.Close() }
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			_ = f.Close()
			return nil, "", nil, fmt.Errorf("kg: load %s: %w", name, err)
		}
		r = zr
		closeFn = func() { _ = zr.Close(); _ = f.Close() }
	}
	return r, format, closeFn, nil
}

// stopGrace bounds how long Query waits, once its context is done, for
// the evaluation to notice and unwind. Every row and triple the evaluator
// touches asks the store, so it stops within milliseconds; the grace only
// matters for a single expression that runs long on one row.
const stopGrace = time.Second

// Query implements backend.Backend. The evaluator (goRDFlib) takes no
// context; it runs in a goroutine on an instrumented copy of the query
// (instrument) over a budgetStore, which stops it, by a panic that this
// goroutine recovers, when ctx is done, when it reads more triples than
// the scan budget (backend.WithScanBudget) or when it builds more
// intermediate rows than the row budget (backend.WithRowBudget). Query
// returns once the evaluation has stopped (waiting at most stopGrace past
// the deadline), so a caller that holds a slot while it queries also
// bounds the evaluations running.
func (e *Store) Query(ctx context.Context, q string) (*backend.Table, error) {
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	pq, err := sparql.Parse(q)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", backend.ErrQuery, err)
	}
	rewriteCasts(pq)
	scans, rows := budget(backend.ScanBudget(ctx)), budget(backend.RowBudget(ctx))
	bs := newBudgetStore(ctx, e.g.Store(), scans, rows)
	done := make(chan outcome, 1)
	e.running.Add(1)
	go func() {
		o := e.evaluate(bs, instrument(pq), scans, rows)
		// Uncounted before the outcome is handed over: once Query has
		// it, Evaluating no longer counts this evaluation (a deferred
		// decrement ran after the send, so a caller that answered and
		// then read the count could still see it).
		e.running.Add(-1)
		done <- o
	}()
	select {
	case o := <-done:
		if o.err == nil && ctx.Err() != nil {
			// The evaluation may have been cut short.
			return nil, fmt.Errorf("%w: %w", backend.ErrUnavailable, ctx.Err())
		}
		return o.t, o.err
	case <-ctx.Done():
		t := time.NewTimer(stopGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
		return nil, fmt.Errorf("%w: %w", backend.ErrUnavailable, ctx.Err())
	}
}

type outcome struct {
	t   *backend.Table
	err error
}

func budget(n int) int64 {
	if n <= 0 {
		return math.MaxInt64
	}
	return int64(n)
}

// evaluate runs one evaluation and turns its stop, or any panic of the
// evaluator, into an error.
func (e *Store) evaluate(bs *budgetStore, pq *sparql.ParsedQuery, scans, rows int64) (o outcome) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		switch {
		case bs.scanned.Load():
			o = outcome{err: fmt.Errorf("%w: the query reads more than %d triples of the graph: narrow it", backend.ErrQuery, scans)}
		case bs.paired.Load():
			o = outcome{err: fmt.Errorf("%w: the query builds more than %d intermediate rows (VALUES, BIND or groups joined to each other): narrow it", backend.ErrQuery, rows)}
		case bs.ctx.Err() != nil:
			o = outcome{err: fmt.Errorf("%w: %w", backend.ErrUnavailable, bs.ctx.Err())}
		default:
			// The evaluator is not ours; a panic in it on odd input
			// fails the query, not the process.
			o = outcome{err: fmt.Errorf("%w: the evaluator failed: %v", backend.ErrQuery, v)}
		}
	}()
	res, err := sparql.EvalQuery(bs.view(e.g), pq, nil)
	if err != nil {
		return outcome{err: fmt.Errorf("%w: %v", backend.ErrQuery, err)}
	}
	return outcome{t: fromRDFLib(res)}
}

// Evaluating implements backend.Evaluator.
func (e *Store) Evaluating() int { return int(e.running.Load()) }

// Close implements backend.Backend.
func (e *Store) Close() error { return e.closer() }

func fromRDFLib(res *sparql.Result) *backend.Table {
	t := &backend.Table{Vars: res.Vars, Rows: make([]map[string]backend.Node, 0, len(res.Bindings))}
	for _, b := range res.Bindings {
		row := make(map[string]backend.Node, len(b))
		for k, v := range b {
			switch v := v.(type) {
			case term.URIRef:
				row[k] = backend.Node{Kind: backend.NodeIRI, Value: v.Value()}
			case term.BNode:
				row[k] = backend.Node{Kind: backend.NodeBlank, Value: v.Value()}
			case term.Literal:
				dt := v.Datatype().Value()
				if dt == term.XSDNamespace+"string" || v.Language() != "" {
					dt = ""
				}
				row[k] = backend.Node{Kind: backend.NodeLiteral, Value: v.Lexical(), Datatype: dt, Lang: v.Language()}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
