// Package kg is PARoG's access to a knowledge graph: the primitives the
// engine needs (relations, neighbours, names, linking, raw SELECT) behind one
// Graph interface, the dialects (Freebase, Wikidata), the query templates,
// and a cache. It has no heavy dependencies: the backends that run its
// queries are adapters in sub-packages (endpoint: a SPARQL endpoint;
// embedded: an in-process goRDFlib store; adapters: the one that opens
// either from a config), which meet kg in package backend. It is the
// runtime only: the offline data tools (Freebase import, densifying, the
// Virtuoso kit, the demo graphs' generator) live in kgqa/kgdata.
//
// All SPARQL text is built in this package from validated identifiers.
package kg

import (
	"context"
	"errors"
	"fmt"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// Results is the outcome of a raw SELECT: variable names and rows of terms.
type Results struct {
	// Vars are the projected variable names, without "?".
	Vars []string `json:"vars"`
	// Rows map a variable name to its bound term; unbound variables are
	// absent.
	Rows []map[string]kgqa.Term `json:"rows"`
}

// Graph is the set of primitives every backend implements. Every method
// validates its identifiers before any query is sent; an unknown entity gives
// an empty result, not an error.
type Graph interface {
	// Relations lists the relations of entity id, outgoing and incoming,
	// with the dialect's noise relations removed.
	Relations(ctx context.Context, id string) ([]kgqa.Relation, error)
	// Neighbors returns facts along rel from entity id: (id, r, ?) for Out,
	// (?, r, id) for In. Mediator nodes are expanded one hop. At most limit
	// facts are returned (limit <= 0 means the backend default).
	Neighbors(ctx context.Context, id string, rel kgqa.Relation, limit int) ([]kgqa.Fact, error)
	// Count returns the number of distinct terms one hop from entity id
	// along rel, a mediator node counting once: the statistic a query
	// planner estimates the size of a neighbour list from, without
	// reading it.
	Count(ctx context.Context, id string, rel kgqa.Relation) (int, error)
	// Linked returns those of candidates (entity ids) that a fact along
	// rel from id reaches, as Neighbors gives facts (directly, or through
	// a mediator node), in the candidates' order. It verifies candidates
	// without reading rel's whole neighbour list where the dialect allows.
	Linked(ctx context.Context, id string, rel kgqa.Relation, candidates []string) ([]string, error)
	// Name returns the entity's name, or "" when it has none.
	Name(ctx context.Context, id string) (string, error)
	// Search finds entities whose name equals name (case-insensitively, or
	// by full text where the backend supports it), best first.
	Search(ctx context.Context, name string, limit int) ([]kgqa.Entity, error)
	// Select runs a raw read-only SELECT query.
	Select(ctx context.Context, query string) (*Results, error)
	// Dialect returns the dialect the graph speaks.
	Dialect() Dialect
	// Close releases the backend's resources.
	Close() error
}

// Errors returned by backends; test with errors.Is / errors.As.
var (
	// ErrInvalidID is wrapped by *IDError.
	ErrInvalidID = errors.New("kg: invalid identifier")
	// ErrInvalidText means a name or other text cannot be put in a query
	// as a literal (a \u escape an engine would decode, a control
	// character): the caller's input is at fault, not the KG.
	ErrInvalidText = errors.New("kg: text not accepted in a query")
	// ErrUnavailable means the endpoint could not be reached or was busy
	// (connection error, 429 or 503 after retries, timeout).
	ErrUnavailable = backend.ErrUnavailable
	// ErrEndpoint means the endpoint failed on a query through no fault
	// of the query (a 500 without a query error, a proxy's 502 or 504).
	ErrEndpoint = backend.ErrEndpoint
	// ErrBadResponse means the endpoint answered with something that is not
	// a SPARQL result (HTML, truncated JSON).
	ErrBadResponse = backend.ErrBadResponse
	// ErrTooLarge means a result exceeded the configured size cap.
	ErrTooLarge = backend.ErrTooLarge
	// ErrQuery means the endpoint rejected the query: a 4xx, or an error
	// the endpoint names as the query's (Virtuoso's syntax, type and
	// data errors, answered 500).
	ErrQuery = backend.ErrQuery
)

// IDError reports an identifier that does not fit the dialect's grammar.
type IDError struct {
	// Kind is "entity" or "relation".
	Kind string
	// Value is the rejected input.
	Value string
	// Dialect is the dialect's name.
	Dialect string
}

func (e *IDError) Error() string {
	return "kg: invalid " + e.Dialect + " " + e.Kind + " id " + quote(e.Value)
}

// Unwrap makes errors.Is(err, ErrInvalidID) hold.
func (e *IDError) Unwrap() error { return ErrInvalidID }

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return "\"" + s + "\""
}

// Dialect knows a KG's vocabulary: how ids look, how names are stored,
// which relations are noise, and how a relation reads in a prompt. It builds
// no query: the query builders of this package read a dialect's vocabulary
// and take only ids that the dialect validated.
type Dialect interface {
	// Name is "freebase" or "wikidata".
	Name() string
	// ValidEntity reports whether id is a well-formed entity id.
	ValidEntity(id string) bool
	// ValidRelation reports whether id is a well-formed relation id.
	ValidRelation(id string) bool
	// Noise reports whether a relation is dropped from exploration.
	Noise(rel string) bool
	// Readable renders a relation id for an LLM prompt
	// ("sports.sports_team.team_mascot" -> "sports team: team mascot").
	Readable(rel string) string
}

// Ping checks that g answers: one name lookup of an id of the dialect's
// shape, an indexed lookup on every backend (an unknown id is an empty
// answer, not an error).
func Ping(ctx context.Context, g Graph) error {
	probe := "m.0"
	if g.Dialect().Name() == "wikidata" {
		probe = "Q1"
	}
	if _, err := g.Name(ctx, probe); err != nil {
		return fmt.Errorf("kg: ping: %w", err)
	}
	return nil
}
