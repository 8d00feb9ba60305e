package sparql2plan

import (
	"regexp"
	"strings"

	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
)

// termKind tells variables, entities and literals apart in a query graph.
type termKind int

const (
	kindVar termKind = iota
	kindEntity
	kindLiteral
)

// term is a resolved SPARQL term: a variable name ("x"), an entity id
// ("m.03_dwn", or the full IRI outside Freebase) or a literal.
type term struct {
	kind     termKind
	value    string
	datatype string
	// lang is a literal's language tag ("en" in "EU"@en).
	lang string
	// text is set on a constant a FILTER compared with str(?v): the
	// value's text matches it whatever its datatype or language.
	text bool
}

// literalType says how a literal constant matches (Step.LiteralType):
// "text" when compared through str(), "@lang" for a language-tagged
// literal, else its datatype's XSD name as written ("" when untyped).
func (t term) literalType() string {
	switch {
	case t.kind != kindLiteral:
		return ""
	case t.text:
		return "text"
	case t.lang != "":
		return "@" + t.lang
	}
	return strings.TrimPrefix(t.datatype, xsdNS)
}

const xsdNS = "http://www.w3.org/2001/XMLSchema#"

func (t term) key() string {
	switch t.kind {
	case kindVar:
		return "?" + t.value
	case kindEntity:
		return "E:" + t.value
	}
	return "L:" + t.value
}

// edge is one relation triple of the query graph.
type edge struct {
	s, o term
	rel  string // Freebase relation id, or the full predicate IRI
}

// Constraint kinds attached to a node of the query graph.
const (
	consLiteral     = "literal"     // rel = value (filter)
	consCompare     = "compare"     // attribute cmp value (comparative)
	consSuperlative = "superlative" // argmax/argmin of attribute
	consTime        = "time"        // time validity of a mediator (qualifier)
)

// constraint is a non-hop condition on a node's set.
type constraint struct {
	kind  string
	attr  []string // relation path from the node to the value
	cmp   string
	order string // max or min
	value string
	// datatype is the datatype IRI of a compared constant ("" when
	// untyped): whether it compares as a date or a number.
	datatype string
	label    string // qualifier text for time constraints
	// open marks a time-validity condition that a node with no value
	// along attr satisfies too (NOT EXISTS {...} || EXISTS {...}).
	open bool
	// bound is the id of the step whose values a comparison is with
	// (value is then its "#k" reference), when they are another
	// variable's, reached apart from the answer.
	bound string
}

// queryGraph is the atomic-operation view of one SELECT query.
type queryGraph struct {
	answer string // answer variable name
	count  bool
	edges  []edge
	types  map[string][]string // node key -> type names
	cons   map[string][]constraint
	unions []union
	// attrs are variables that hold compared or ordered values.
	attrs map[string]*attrUse
	// anchorSets are VALUES variables with several entity rows: the
	// set of entities a find starts from.
	anchorSets map[string][]string
	// notes records recognised boilerplate and ignored parts, by kind.
	notes []string
}

type union struct {
	branches []*queryGraph
}

// attrUse records what a value-holding variable is used for.
type attrUse struct {
	cmp     []constraint
	order   string // max/min when ordered with a LIMIT
	timeCmp []timeCmp
}

type timeCmp struct {
	cmp   string
	other string // other variable of a var-var comparison
}

func newGraph() *queryGraph {
	return &queryGraph{types: map[string][]string{}, cons: map[string][]constraint{}, attrs: map[string]*attrUse{}, anchorSets: map[string][]string{}}
}

func (g *queryGraph) attr(v string) *attrUse {
	a := g.attrs[v]
	if a == nil {
		a = &attrUse{}
		g.attrs[v] = a
	}
	return a
}

var midLike = regexp.MustCompile(`^[mg]\.[0-9a-z_]+$`)

// resolve turns a triple's term into a query graph term. A blank node
// is a variable of its own. A literal keeps the datatype written with it
// (^^type) and none otherwise: a bare number or string in a triple is
// matched by its text.
func resolve(t sparqlsyntax.Term) term {
	switch t.Kind {
	case sparqlsyntax.KindVar:
		return term{kind: kindVar, value: t.Value}
	case sparqlsyntax.KindBlank:
		return term{kind: kindVar, value: "bnode_:" + t.Value}
	case sparqlsyntax.KindIRI:
		return entityTerm(t.Value)
	}
	lit := term{kind: kindLiteral, value: withoutZone(t.Value), lang: t.Lang}
	if t.Typed {
		lit.datatype = t.Datatype
	}
	return lit
}

func entityTerm(iri string) term {
	id := strings.TrimPrefix(iri, freebaseNS)
	return term{kind: kindEntity, value: id}
}

const freebaseNS = "http://rdf.freebase.com/ns/"

// exprConst returns the constant an expression operand holds: a
// literal's lexical form or an entity id.
func exprConst(e sparqlsyntax.Expr) (term, bool) {
	switch x := e.(type) {
	case *sparqlsyntax.LiteralExpr:
		return valueTerm(&x.Value)
	case *sparqlsyntax.IRIExpr:
		return entityTerm(x.IRI), true
	case *sparqlsyntax.CallExpr:
		// A cast of a constant (xsd:dateTime("2014-01-01")) is the
		// constant.
		if len(x.Args) == 1 && isCastOrStr(x.Name) {
			return exprConst(x.Args[0])
		}
	}
	return term{}, false
}

// valueTerm converts a constant of a VALUES row or an expression. Unlike
// a triple's literal, it carries the datatype the literal's form implies
// (xsd:string for plain text, xsd:integer for a bare whole number).
func valueTerm(t *sparqlsyntax.Term) (term, bool) {
	switch t.Kind {
	case sparqlsyntax.KindLiteral:
		return term{kind: kindLiteral, value: withoutZone(t.Value), datatype: t.Datatype, lang: t.Lang}, true
	case sparqlsyntax.KindIRI:
		return entityTerm(t.Value), true
	}
	return term{}, false
}

// zonedDate is a date or date-time with a time zone: GrailQA writes its
// dates as "2009-08-11-08:00"^^xsd:dateTime.
var zonedDate = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?)(?:Z|[+-]\d{2}:\d{2})$`)

// withoutZone drops the time zone of a date constant. Freebase stores
// dates without one, so a compared value with a zone would match nothing
// the engine reads, and a plan that carries it teaches the planner a form
// no question uses.
func withoutZone(v string) string {
	if m := zonedDate.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return v
}
