// Package compile turns an executed plan into one SPARQL SELECT that
// reproduces its answer: the certificate of an answer (the engine builds
// the plan from its trace) and the check of sparql2plan (which builds it
// from the steps it read out of a gold query).
//
// The input is a Query: one Node per subgoal, holding only identifiers
// (entity, relation and type ids) and typed constants, never text. Every
// identifier is checked against the dialect's grammar and every constant is
// re-printed from its parsed value before it reaches the query, so nothing a
// model or a client wrote is pasted into the SPARQL (the fuzz test checks
// it). The package imports only the domain: the engine and sparql2plan
// share it.
package compile

import (
	"errors"

	"github.com/parog/parog-go/kgqa"
)

// Dialect is what the compiler needs of a KG dialect: its name, which
// selects the vocabulary ("freebase": ns: ids and type.object.type;
// "wikidata": wd:/wdt: ids and p:/ps:/pq: statements), and its id
// grammars. kg.Dialect satisfies it.
type Dialect interface {
	// Name is "freebase" or "wikidata".
	Name() string
	// ValidEntity reports whether id is a well-formed entity id.
	ValidEntity(id string) bool
	// ValidRelation reports whether id is a well-formed relation id.
	ValidRelation(id string) bool
}

// Hop is one relation step, read from the known side: Out when the known
// term is the triple's subject, In when it is its object.
type Hop struct {
	// Relation is the dialect's relation id, without prefix.
	Relation string `json:"relation"`
	// Dir is the direction relative to the known side.
	Dir kgqa.Direction `json:"dir"`
	// Mediator is set on the first hop of a pair that crosses a mediator
	// node (a Freebase CVT node, a Wikidata statement) and reads as one
	// fact: the next hop is read from the mediator.
	Mediator bool `json:"mediator,omitempty"`
	// Any, on the hop after a Mediator hop, stands for any edge of the
	// mediator in direction Dir (Relation unset): what a check of
	// candidates through a mediator reads without recording which edge
	// reached them.
	Any bool `json:"any,omitempty"`
}

// Path is a chain of hops from the known side; a hop marked Mediator and
// the one after it cross a mediator node.
type Path []Hop

// Qualifier is a condition on the mediators a path crosses (on a find)
// or on the members (on a filter): the Relation must reach Entity (the
// office of a position held), or hold the literal Value (Kind KindText
// or KindTerm), or, with Cmp, hold a date that compares with Value (a
// time condition; Open lets one with no such date pass).
type Qualifier struct {
	// Relation is the relation, read from the mediator or member (Out).
	Relation string `json:"relation"`
	// Entity is the entity id it must reach.
	Entity string `json:"entity,omitempty"`
	// Value is the literal it must hold, or a time condition's date (a
	// year or an ISO date).
	Value string `json:"value,omitempty"`
	// Kind says how a literal Value matches: KindText or KindTerm.
	Kind ValueKind `json:"kind,omitempty"`
	// Datatype qualifies a KindTerm Value (see Node.Datatype).
	Datatype string `json:"datatype,omitempty"`
	// Cmp makes the qualifier a time condition: <, <=, >, >= or =.
	Cmp string `json:"cmp,omitempty"`
	// Open lets a time condition pass a mediator with no date along
	// Relation (an open end).
	Open bool `json:"open,omitempty"`
}

// ValueKind says how constrained values compare.
type ValueKind string

// The value kinds.
const (
	// KindNumber compares values as numbers.
	KindNumber ValueKind = "number"
	// KindDate compares values as ISO dates (a year reads as its first
	// day, as the engine compares them).
	KindDate ValueKind = "date"
	// KindNative leaves the comparison to the KG's own order of typed
	// literals.
	KindNative ValueKind = ""
	// KindText compares a value's text (STR), as the gold queries'
	// FILTER (str(?v) = "Country") does; Cmp "=" or "contains".
	KindText ValueKind = "text"
	// KindTerm matches the literal itself, with its datatype or
	// language (Datatype), as a gold query's triple or VALUES writes it.
	KindTerm ValueKind = "term"
)

// CmpContains is the text comparison that keeps a value containing the
// constant (KindText only).
const CmpContains = "contains"

// Node is one subgoal of an executed plan.
type Node struct {
	// ID is the subgoal id; a node's Needs name earlier nodes.
	ID string `json:"id"`
	// Op is the operation.
	Op kgqa.Op `json:"op"`
	// Needs are the nodes whose results this one uses: a find starts
	// from their union, intersect and union combine them, count counts
	// their union, a constraint keeps members of their union (Bound
	// excepted).
	Needs []string `json:"needs,omitempty"`
	// Anchors are the entity ids a find with no Needs starts from.
	Anchors []string `json:"anchors,omitempty"`
	// Given are entity ids that are the node's result as stated, not
	// derived: a subgoal whose model answer stood (a VALUES clause).
	Given []string `json:"given,omitempty"`
	// Paths are a find's alternative relation paths (their union).
	Paths []Path `json:"paths,omitempty"`
	// Qualifiers constrain the mediator of a find's two-hop paths.
	Qualifiers []Qualifier `json:"qualifiers,omitempty"`
	// Types are type ids the result must have (Freebase
	// type.object.type), whatever the op; a find with types and neither
	// anchors, needs nor paths is every member of the types.
	Types []string `json:"types,omitempty"`
	// Attribute are the paths from a member to the value a filter,
	// compare or superlative reads (their union).
	Attribute []Path `json:"attribute,omitempty"`
	// Kind says how the values compare.
	Kind ValueKind `json:"kind,omitempty"`
	// Cmp is a comparison (<, <=, >, >=, =) of compare and filter.
	Cmp string `json:"cmp,omitempty"`
	// Order is "max" or "min" for a superlative.
	Order string `json:"order,omitempty"`
	// Value is the constant a compare or filter compares with: a number
	// or an ISO date (re-printed from its parsed value), a text (KindText)
	// or a literal (KindTerm), or, for a filter, an entity id the
	// attribute must reach. A find with neither anchors nor needs starts
	// from the literal Value (KindTerm or KindText).
	Value string `json:"value,omitempty"`
	// Datatype qualifies a KindTerm Value: an XSD datatype's name
	// ("float", "dateTime"), "@" and a language tag ("@en"), or ""
	// for a plain literal.
	Datatype string `json:"datatype,omitempty"`
	// Dated is set when the Attribute's values sit on dated mediators
	// (one per date) and only some dates count.
	Dated *Dated `json:"dated,omitempty"`
	// Bound is the id of the node whose values a compare compares with,
	// instead of Value; it is one of Needs.
	Bound string `json:"bound,omitempty"`
}

// Dated says which mediators of a dated attribute count: those whose
// DateRelation holds one of Times (at the precision stated: "2019" is any
// date of 2019), or, with no Times, each member's latest.
type Dated struct {
	// DateRelation is the mediator's date relation, read from the
	// mediator.
	DateRelation string `json:"date_relation"`
	// Times are the stated times ("2019", "2019-06", "2019-06-30").
	Times []string `json:"times,omitempty"`
}

// Query is an executed plan: its nodes, each after those it needs, and the
// one that answers.
type Query struct {
	// Nodes in dependency order.
	Nodes []Node `json:"nodes"`
	// Answer is the id of the answering node.
	Answer string `json:"answer"`
}

// AnswerVar is the variable the compiled query projects.
const AnswerVar = "answer"

// ErrUnsupported is wrapped by the errors of a query the compiler cannot
// express: an unknown dialect, a node with nothing to derive its result
// from, a constraint without a value.
var ErrUnsupported = errors.New("compile: unsupported")

// ErrInvalid is wrapped by the errors of a query holding an identifier or
// a constant that fits no grammar: it never reaches the SPARQL.
var ErrInvalid = errors.New("compile: invalid")
