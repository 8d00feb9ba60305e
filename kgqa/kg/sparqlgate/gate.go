// Package sparqlgate decides which SPARQL a client may run against the
// knowledge graph, and what text is actually sent.
//
// A query is parsed by goRDFlib's SPARQL parser, checked against an
// allow-list (SELECT or ASK; SPARQL 1.1 built-in functions only; no
// SERVICE, update, pragma or extension function) and written out again
// from the parse tree. Only that canonical text goes on: the parser is
// lenient (it ignores trailing text, reads an unknown bare word as a term,
// and expands \u escapes before tokenising, even inside strings), so
// forwarding the client's own text would send an endpoint words the gate
// never saw. What it would have to drop (text after the query, FROM and
// FROM NAMED) is refused instead. The canonical text has full IRIs, no
// PREFIX but xsd: for the casts (goRDFlib reads a function call only by a
// prefixed name), no escapes other than \" \\ \n \r \t inside strings,
// and parses back to itself. Within a group it writes the VALUES blocks and sub-SELECTs joined
// with triples first and the triples in connected order (chain), which
// changes no answer and keeps an engine that evaluates left to right
// (goRDFlib) from pairing triples that share no variable yet.
package sparqlgate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tggo/goRDFlib/sparql"
)

// ErrRefused is the error of every query the gate does not let through;
// the message says why.
var ErrRefused = errors.New("query refused")

// Query is a query that passed the gate.
type Query struct {
	// Form is "SELECT" or "ASK".
	Form string
	// Limit is the query's LIMIT, -1 when it has none.
	Limit  int
	parsed *sparql.ParsedQuery
}

func refuse(format string, args ...any) error {
	return fmt.Errorf("sparqlgate: %w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// Parse parses text and checks it. The error wraps ErrRefused and says
// what was refused.
func Parse(text string) (q *Query, err error) {
	defer func() {
		// The parser is not ours; a panic in it on hostile input refuses
		// the query instead of taking the process down.
		if v := recover(); v != nil {
			q, err = nil, refuse("the query does not parse")
		}
	}()
	if err := oneOperation(text); err != nil {
		return nil, err
	}
	pq, err := sparql.Parse(text)
	if err != nil {
		return nil, refuse("%v", strings.TrimPrefix(err.Error(), "sparql "))
	}
	if err := readToTheEnd(text); err != nil {
		return nil, err
	}
	if pq.Type != "SELECT" && pq.Type != "ASK" {
		return nil, refuse("only SELECT and ASK queries are accepted, not %s", pq.Type)
	}
	if pq.BaseURI != "" {
		return nil, refuse("BASE is not supported: write absolute IRIs")
	}
	if err := checkCosts(pq); err != nil {
		return nil, err
	}
	q = &Query{Form: pq.Type, Limit: pq.Limit, parsed: pq}
	canon, err := q.render()
	if err != nil {
		return nil, err
	}
	// The canonical text must read back as itself; a difference would mean
	// that the endpoint and the gate see different queries.
	again, err := sparql.Parse(canon)
	if err != nil {
		return nil, refuse("the query cannot be rewritten faithfully: %v", err)
	}
	back, err := (&Query{Form: again.Type, Limit: again.Limit, parsed: again}).render()
	if err != nil || back != canon {
		return nil, refuse("the query cannot be rewritten faithfully")
	}
	// From here on the query is its canonical text: Bounded judges the
	// groups in the order they are sent.
	q.parsed = again
	return q, nil
}

// endProbe is an OFFSET no client sends, appended to a query to learn
// whether the parser reads the query to its end.
const endProbe = 987_654_321

// readToTheEnd refuses a query with text after its end. The parser stops
// at the first word it cannot read among the solution modifiers and drops
// the rest (a LIMIT after it included); it reads an OFFSET appended to
// the text only when it read everything before it.
func readToTheEnd(text string) error {
	probe, err := sparql.Parse(text + "\nOFFSET " + strconv.Itoa(endProbe))
	if err != nil || probe.Offset != endProbe {
		return refuse("text after the query: the parser stops before the end of the text (it would drop the rest, so the query is refused)")
	}
	return nil
}

// String returns the canonical text of the query, the only text that may
// be sent to a backend.
func (q *Query) String() string {
	s, err := q.render()
	if err != nil {
		// Parse rendered the same tree without error.
		panic("sparqlgate: render of a checked query failed: " + err.Error())
	}
	return s
}

// CapRows sets the query's LIMIT to at most n (n > 0). For an ASK it does
// nothing.
func (q *Query) CapRows(n int) {
	if q.Form != "SELECT" || n <= 0 {
		return
	}
	if q.Limit < 0 || q.Limit > n {
		q.Limit = n
	}
}

func (q *Query) render() (string, error) {
	w := &writer{prefixes: q.parsed.Prefixes}
	pq := *q.parsed
	pq.Limit = q.Limit
	w.query(&pq, true)
	if w.err != nil {
		return "", w.err
	}
	if w.casts {
		return "PREFIX xsd: <" + xsdNS + "> " + w.b.String(), nil
	}
	return w.b.String(), nil
}

// writer renders a parse tree; the first refusal sticks in err.
type writer struct {
	b        strings.Builder
	prefixes map[string]string
	err      error
	// casts is set when the text calls an XSD cast (xsd:T), whose prefix
	// render declares.
	casts bool
}

func (w *writer) fail(format string, args ...any) {
	if w.err == nil {
		w.err = refuse(format, args...)
	}
}

func (w *writer) str(s string) { w.b.WriteString(s) }

// query writes a query or, when top is false, a sub-SELECT.
func (w *writer) query(q *sparql.ParsedQuery, top bool) {
	if len(q.GroupByAliases) > 0 {
		for _, a := range q.GroupByAliases {
			if a != "" {
				w.fail("GROUP BY (expression AS ?var) is not supported")
				return
			}
		}
	}
	if q.Type == "ASK" {
		if !top {
			w.fail("only SELECT sub-queries are accepted")
			return
		}
		w.str("ASK WHERE ")
		w.group(q.Where)
		return
	}
	if q.Type != "SELECT" {
		w.fail("only SELECT sub-queries are accepted")
		return
	}
	w.str("SELECT ")
	if q.Distinct {
		w.str("DISTINCT ")
	}
	w.projection(q)
	w.str(" WHERE ")
	w.group(q.Where)
	w.modifiers(q)
}

func (w *writer) projection(q *sparql.ParsedQuery) {
	if q.Variables == nil {
		if len(q.ProjectExprs) > 0 {
			w.fail("a projection expression needs an explicit variable list")
		}
		w.str("*")
		return
	}
	exprs := make(map[string]sparql.Expr, len(q.ProjectExprs))
	for _, pe := range q.ProjectExprs {
		exprs[pe.Var] = pe.Expr
	}
	for i, v := range q.Variables {
		if i > 0 {
			w.str(" ")
		}
		if e, ok := exprs[v]; ok {
			w.str("(")
			w.expr(e)
			w.str(" AS ")
			w.variable(v)
			w.str(")")
			continue
		}
		w.variable(v)
	}
}

func (w *writer) modifiers(q *sparql.ParsedQuery) {
	if len(q.GroupBy) > 0 {
		w.str(" GROUP BY")
		for _, e := range q.GroupBy {
			w.str(" ")
			w.bracketed(e)
		}
	}
	if q.Having != nil {
		w.str(" HAVING ")
		w.bracketed(q.Having)
	}
	if len(q.OrderBy) > 0 {
		w.str(" ORDER BY")
		for _, o := range q.OrderBy {
			if o.Desc {
				w.str(" DESC(")
			} else {
				w.str(" ASC(")
			}
			w.expr(o.Expr)
			w.str(")")
		}
	}
	if q.Limit >= 0 {
		w.str(" LIMIT " + strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		w.str(" OFFSET " + strconv.Itoa(q.Offset))
	}
}

// bracketed writes a variable as it is and any other expression in
// brackets (GROUP BY, HAVING).
func (w *writer) bracketed(e sparql.Expr) {
	if v, ok := e.(*sparql.VarExpr); ok {
		w.variable(v.Name)
		return
	}
	w.str("(")
	w.expr(e)
	w.str(")")
}
