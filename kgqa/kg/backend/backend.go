// Package backend is the contract between package kg and the adapters that
// run its queries (the SPARQL endpoint client, the embedded store): the
// result table they return, and the errors they report. It has no
// dependencies, so an adapter need not import kg and kg none of them.
package backend

import (
	"context"
	"errors"
)

// NodeKind tells the three kinds of RDF term apart.
type NodeKind uint8

// The kinds of RDF term a backend returns.
const (
	// NodeIRI is an IRI.
	NodeIRI NodeKind = iota + 1
	// NodeLiteral is a literal.
	NodeLiteral
	// NodeBlank is a blank node.
	NodeBlank
)

// Node is an RDF term as a backend returns it, before the dialect maps it
// to a Term.
type Node struct {
	// Kind says whether the node is an IRI, a literal or a blank node.
	Kind NodeKind
	// Value is the IRI, the literal's lexical form or the blank node label.
	Value string
	// Datatype is the literal's datatype IRI; empty for plain and
	// language-tagged strings.
	Datatype string
	// Lang is the literal's language tag.
	Lang string
}

// Table is a SELECT result as a backend returns it.
type Table struct {
	// Vars are the projected variable names, without "?".
	Vars []string
	// Rows map a variable name to its bound node.
	Rows []map[string]Node
}

// Backend runs SELECT text: the SPARQL-endpoint adapter sends it over
// HTTP, the embedded store evaluates it in process; both get the same text
// from the query builders of package kg.
type Backend interface {
	// Query runs one SELECT query.
	Query(ctx context.Context, q string) (*Table, error)
	// Close releases the backend's resources.
	Close() error
}

// Errors returned by backends; kg re-exports them, so test with errors.Is
// against either name.
var (
	// ErrUnavailable means the endpoint could not be reached or was busy
	// (connection error, 429 or 503 after retries, timeout).
	ErrUnavailable = errors.New("kg: endpoint unavailable")
	// ErrEndpoint means the endpoint failed on a query (a 500 that is not
	// the query's fault, a proxy's 502 or 504); it is not retried.
	ErrEndpoint = errors.New("kg: endpoint failed")
	// ErrBadResponse means the endpoint answered with something that is not
	// a SPARQL result (HTML, truncated JSON).
	ErrBadResponse = errors.New("kg: bad response")
	// ErrTooLarge means a result exceeded the configured size cap.
	ErrTooLarge = errors.New("kg: result too large")
	// ErrQuery means the backend rejected or could not evaluate the query
	// (a syntax error, a type error, a division by zero): the query's
	// fault, not retried.
	ErrQuery = errors.New("kg: query rejected")
)

// Evaluator is implemented by a backend that evaluates queries in the
// process and cannot cancel an evaluation, only starve it of input (the
// embedded store). kg refuses the raw queries such a backend cannot bound
// and gives the others a scan budget (WithScanBudget).
type Evaluator interface {
	// Evaluating reports the evaluations running, including those whose
	// caller has gone.
	Evaluating() int
}

type scanBudgetKey struct{}

// WithScanBudget asks an Evaluator to read at most n triples for each
// query run under ctx, and to fail the query when it would read more.
func WithScanBudget(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, scanBudgetKey{}, n)
}

// ScanBudget returns the budget WithScanBudget set, or 0.
func ScanBudget(ctx context.Context) int {
	n, _ := ctx.Value(scanBudgetKey{}).(int)
	return n
}

type rowBudgetKey struct{}

// WithRowBudget asks an Evaluator to build at most n intermediate rows for
// each query run under ctx (rows it pairs or joins without reading a
// triple, such as VALUES products), and to fail the query when it would
// build more.
func WithRowBudget(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, rowBudgetKey{}, n)
}

// RowBudget returns the budget WithRowBudget set, or 0.
func RowBudget(ctx context.Context) int {
	n, _ := ctx.Value(rowBudgetKey{}).(int)
	return n
}
