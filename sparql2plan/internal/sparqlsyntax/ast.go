// Package sparqlsyntax parses the SPARQL 1.1 queries that benchmark gold
// queries are written in (WebQSP, CWQ, GrailQA, QALD) into a small syntax
// tree, with errors that name the line and column of the fault.
//
// It reads SELECT and ASK queries: the prologue (PREFIX, BASE), projections
// with aggregates and (expr AS ?v), DISTINCT and REDUCED, FROM clauses,
// group graph patterns (triples with ; and , lists, property paths, FILTER,
// OPTIONAL, UNION, MINUS, GRAPH, SERVICE, VALUES, BIND, sub-selects) and
// the solution modifiers (GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET, a
// trailing VALUES). CONSTRUCT, DESCRIBE, updates and RDF collections are
// refused with an error.
//
// A group graph pattern comes out in the shape SPARQL's algebra gives it
// (§18.2.2 of the recommendation): its parts joined left to right, each
// OPTIONAL a LeftJoin of what precedes it, each BIND an Extend of what
// precedes it, and the group's FILTERs applied last, around the whole
// group, in the order written. Prefixed names are expanded against the
// prologue, and relative IRIs are resolved against BASE.
//
// goRDFlib's parser, which kgqa/kg/sparqlgate uses, did not serve here:
// its tree is made for its evaluator, with terms left as N3 text to
// resolve against the prologue, where sparql2plan reads the algebra's
// shape with resolved terms. And its errors name at most a byte offset,
// where a gold query that does not parse must be found by line and
// column in a benchmark file of thousands.
package sparqlsyntax

// Query is one parsed SELECT or ASK query, or a sub-select.
type Query struct {
	// Form is "SELECT" or "ASK".
	Form string
	// Base is the BASE IRI ("" when none); Prefixes maps each declared
	// prefix to its namespace. A sub-select shares its query's.
	Base     string
	Prefixes map[string]string
	// Distinct and Reduced are the SELECT modifiers.
	Distinct, Reduced bool
	// Star is SELECT *; Projection is otherwise the projected variables
	// and (expr AS ?var) bindings, in the order written.
	Star       bool
	Projection []Projection
	// Where is the WHERE clause's pattern.
	Where Pattern
	// GroupBy, Having and OrderBy are the solution modifiers; Limit is
	// -1 when the query has none.
	GroupBy []GroupKey
	Having  []Expr
	OrderBy []OrderKey
	Limit   int
	Offset  int
	// Values is the VALUES block after the modifiers, or nil.
	Values *Values
}

// Projection is one projected variable (Expr nil) or (Expr AS ?Var).
type Projection struct {
	Var  string
	Expr Expr
}

// Vars lists the names of the projected variables, in order.
func (q *Query) Vars() []string {
	out := make([]string, len(q.Projection))
	for i, p := range q.Projection {
		out[i] = p.Var
	}
	return out
}

// Bound lists the projections that bind an expression ((Expr AS ?Var)),
// in order.
func (q *Query) Bound() []Projection {
	var out []Projection
	for _, p := range q.Projection {
		if p.Expr != nil {
			out = append(out, p)
		}
	}
	return out
}

// GroupKey is one GROUP BY key; Var names it when written (expr AS ?v).
type GroupKey struct {
	Expr Expr
	Var  string
}

// OrderKey is one ORDER BY key.
type OrderKey struct {
	Expr Expr
	Desc bool
}

// TermKind tells the kinds of RDF terms and variables apart.
type TermKind int

// The kinds of a Term.
const (
	KindVar TermKind = iota + 1
	KindIRI
	KindBlank
	KindLiteral
)

// Term is a variable, IRI, blank node or literal of a triple pattern or a
// VALUES row.
type Term struct {
	Kind TermKind
	// Value is the variable's name (no ? or $), the full IRI, the blank
	// node's label (anonymous ones, [], get "#1", "#2"..., which no
	// written label can take) or the literal's lexical form, unescaped.
	Value string
	// Lang is a literal's language tag; Datatype its datatype IRI. As in
	// RDF 1.1, a literal without either has xsd:string, one with a
	// language tag rdf:langString, and a bare number or boolean the XSD
	// type its form implies (integer, decimal, double, boolean).
	Lang     string
	Datatype string
	// Typed is true when the literal's datatype was written (^^type).
	Typed bool
}

// Datatypes a literal's form implies.
const (
	XSDString     = "http://www.w3.org/2001/XMLSchema#string"
	XSDInteger    = "http://www.w3.org/2001/XMLSchema#integer"
	XSDDecimal    = "http://www.w3.org/2001/XMLSchema#decimal"
	XSDDouble     = "http://www.w3.org/2001/XMLSchema#double"
	XSDBoolean    = "http://www.w3.org/2001/XMLSchema#boolean"
	RDFLangString = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
	RDFType       = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
)

// Pattern is a graph pattern.
type Pattern interface{ pattern() }

// BGP is a basic graph pattern: triples matched together.
type BGP struct{ Triples []Triple }

// Triple is a triple pattern. Path is nil for a plain predicate
// (Predicate, an IRI or a variable); otherwise the predicate is the
// property path Path and Predicate is the zero Term.
type Triple struct {
	Subject, Predicate, Object Term
	Path                       Path
}

// Join is Left and Right matched together.
type Join struct{ Left, Right Pattern }

// LeftJoin is Main OPTIONAL { Optional }.
type LeftJoin struct{ Main, Optional Pattern }

// Union is { Left } UNION { Right }.
type Union struct{ Left, Right Pattern }

// Minus is Left MINUS { Right }.
type Minus struct{ Left, Right Pattern }

// Filter is Pattern restricted by FILTER (Expr).
type Filter struct {
	Pattern Pattern
	Expr    Expr
}

// Extend is Pattern followed by BIND (Expr AS ?Var).
type Extend struct {
	Pattern Pattern
	Expr    Expr
	Var     string
}

// Values is inline data: one row per solution, a nil entry for UNDEF.
type Values struct {
	Vars []string
	Rows [][]*Term
}

// SubSelect is { SELECT ... } inside a pattern.
type SubSelect struct{ Query *Query }

// Graph is GRAPH Name { Pattern }.
type Graph struct {
	Name    Term
	Pattern Pattern
}

// Service is SERVICE [SILENT] Endpoint { Pattern }.
type Service struct {
	Silent   bool
	Endpoint Term
	Pattern  Pattern
}

func (*BGP) pattern()       {}
func (*Join) pattern()      {}
func (*LeftJoin) pattern()  {}
func (*Union) pattern()     {}
func (*Minus) pattern()     {}
func (*Filter) pattern()    {}
func (*Extend) pattern()    {}
func (*Values) pattern()    {}
func (*SubSelect) pattern() {}
func (*Graph) pattern()     {}
func (*Service) pattern()   {}

// Path is a property path of two or more steps, or with an operator.
type Path interface{ path() }

// PathIRI is one predicate IRI, a step of a longer path.
type PathIRI struct{ IRI string }

// PathSequence is p1/p2/...: nested sequences are flattened.
type PathSequence struct{ Steps []Path }

// PathAlternative is p1|p2|...: nested alternatives are flattened.
type PathAlternative struct{ Choices []Path }

// PathInverse is ^p.
type PathInverse struct{ Path Path }

// PathRepeat is p* (Op '*'), p+ ('+') or p? ('?').
type PathRepeat struct {
	Path Path
	Op   byte
}

// PathNegated is !iri or !(iri|^iri|...): any predicate but IRIs
// forwards and Inverse backwards.
type PathNegated struct {
	IRIs, Inverse []string
}

func (*PathIRI) path()         {}
func (*PathSequence) path()    {}
func (*PathAlternative) path() {}
func (*PathInverse) path()     {}
func (*PathRepeat) path()      {}
func (*PathNegated) path()     {}

// Expr is an expression of FILTER, BIND, a projection or a modifier.
type Expr interface{ expr() }

// VarExpr is a variable.
type VarExpr struct{ Name string }

// IRIExpr is an IRI constant.
type IRIExpr struct{ IRI string }

// LiteralExpr is a literal constant (Value.Kind is KindLiteral).
type LiteralExpr struct{ Value Term }

// BinaryExpr is Left Op Right; Op is one of || && = != < > <= >= + - * /.
type BinaryExpr struct {
	Op          string
	Left, Right Expr
}

// UnaryExpr is Op Arg; Op is !, - or +.
type UnaryExpr struct {
	Op  string
	Arg Expr
}

// InExpr is Expr [NOT] IN (List...).
type InExpr struct {
	Expr Expr
	List []Expr
	Not  bool
}

// CallExpr is a call of a built-in function or aggregate (Name upper
// case: "REGEX", "COUNT") or of a function IRI (Name the full IRI, as
// written after prefix expansion: "http://www.w3.org/2001/XMLSchema#dateTime").
type CallExpr struct {
	Name string
	Args []Expr
	// Distinct, Star and Separator are an aggregate's DISTINCT, COUNT(*)
	// and GROUP_CONCAT's SEPARATOR (Separator is nil when not written).
	Distinct  bool
	Star      bool
	Separator *string
}

// ExistsExpr is EXISTS { Pattern }, or NOT EXISTS when Not.
type ExistsExpr struct {
	Pattern Pattern
	Not     bool
}

func (*VarExpr) expr()     {}
func (*IRIExpr) expr()     {}
func (*LiteralExpr) expr() {}
func (*BinaryExpr) expr()  {}
func (*UnaryExpr) expr()   {}
func (*InExpr) expr()      {}
func (*CallExpr) expr()    {}
func (*ExistsExpr) expr()  {}
