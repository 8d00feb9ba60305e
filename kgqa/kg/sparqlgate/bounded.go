package sparqlgate

import (
	"strings"

	"github.com/tggo/goRDFlib/sparql"
)

// MaxValues bounds the cells of a query's VALUES blocks for Bounded.
const MaxValues = 1000

// Bounded refuses the shapes an evaluator without cancellation (the
// embedded store) cannot bound by the number of triples it reads: a
// cartesian product (parts of a group that share no variable: every row of
// one is paired with every row of the other, with no triple read for the
// pairing), MINUS (compared pairwise in memory), and large VALUES blocks.
// A part that yields at most one row (oneRow) pairs each row of the other
// with it alone, which is no product. Everything else grows with the
// triples read, which the embedded store caps.
func (q *Query) Bounded() error {
	return boundedQuery(q.parsed)
}

func boundedQuery(q *sparql.ParsedQuery) error {
	values := 0
	return bounded(q.Where, &values)
}

func bounded(p sparql.Pattern, values *int) error {
	switch p := p.(type) {
	case *sparql.BGP:
		return connected(p.Triples)
	case *sparql.JoinPattern:
		if err := bounded(p.Left, values); err != nil {
			return err
		}
		if err := bounded(p.Right, values); err != nil {
			return err
		}
		return sharing(p.Left, p.Right)
	case *sparql.OptionalPattern:
		if err := bounded(p.Main, values); err != nil {
			return err
		}
		if err := bounded(p.Optional, values); err != nil {
			return err
		}
		return sharing(p.Main, p.Optional)
	case *sparql.UnionPattern:
		if err := bounded(p.Left, values); err != nil {
			return err
		}
		return bounded(p.Right, values)
	case *sparql.MinusPattern:
		return refuse("MINUS is not supported by this backend: use FILTER NOT EXISTS")
	case *sparql.FilterPattern:
		return bounded(p.Pattern, values)
	case *sparql.BindPattern:
		return bounded(p.Pattern, values)
	case *sparql.GraphPattern:
		return bounded(p.Pattern, values)
	case *sparql.SubqueryPattern:
		return bounded(p.Query.Where, values)
	case *sparql.ValuesPattern:
		*values += len(p.Values) * max(len(p.Vars), 1)
		if *values > MaxValues {
			return refuse("VALUES blocks hold more than %d values", MaxValues)
		}
	}
	return nil
}

// sharing refuses a join of two parts with variables of which none is
// shared, unless one of them yields at most one row.
func sharing(a, b sparql.Pattern) error {
	if oneRow(a) || oneRow(b) {
		return nil
	}
	va, vb := map[string]bool{}, map[string]bool{}
	vars(a, va)
	vars(b, vb)
	if len(va) == 0 || len(vb) == 0 {
		return nil
	}
	for v := range va {
		if vb[v] {
			return nil
		}
	}
	return refuse("the query joins parts that share no variable (a cartesian product): connect them through a variable")
}

// connected refuses a basic graph pattern whose triples fall into more
// than one group of triples linked by shared variables.
func connected(ts []sparql.Triple) error {
	parent := map[string]string{}
	find := func(v string) string {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for _, t := range ts {
		vs := tripleVars(t)
		for _, v := range vs {
			if _, ok := parent[v]; !ok {
				parent[v] = v
			}
		}
		for _, v := range vs[min(1, len(vs)):] {
			parent[find(v)] = find(vs[0])
		}
	}
	roots := map[string]bool{}
	for v := range parent {
		roots[find(v)] = true
	}
	if len(roots) > 1 {
		return refuse("the query's triple patterns fall into %d groups that share no variable (a cartesian product): connect them through a variable", len(roots))
	}
	return nil
}

func tripleVars(t sparql.Triple) []string {
	var vs []string
	for _, s := range []string{t.Subject, t.Predicate, t.Object} {
		if strings.HasPrefix(s, "?") || strings.HasPrefix(s, "$") {
			vs = append(vs, s[1:])
		}
	}
	return vs
}

// vars collects the variables a pattern can bind.
func vars(p sparql.Pattern, into map[string]bool) {
	switch p := p.(type) {
	case *sparql.BGP:
		for _, t := range p.Triples {
			for _, v := range tripleVars(t) {
				into[v] = true
			}
		}
	case *sparql.JoinPattern:
		vars(p.Left, into)
		vars(p.Right, into)
	case *sparql.OptionalPattern:
		vars(p.Main, into)
		vars(p.Optional, into)
	case *sparql.UnionPattern:
		vars(p.Left, into)
		vars(p.Right, into)
	case *sparql.MinusPattern:
		vars(p.Left, into)
	case *sparql.FilterPattern:
		vars(p.Pattern, into)
	case *sparql.BindPattern:
		vars(p.Pattern, into)
		into[p.Var] = true
	case *sparql.GraphPattern:
		vars(p.Pattern, into)
		if strings.HasPrefix(p.Name, "?") {
			into[p.Name[1:]] = true
		}
	case *sparql.ValuesPattern:
		for _, v := range p.Vars {
			into[v] = true
		}
	case *sparql.SubqueryPattern:
		if p.Query.Variables == nil {
			vars(p.Query.Where, into)
			return
		}
		for _, v := range p.Query.Variables {
			into[v] = true
		}
	}
}

// oneRow reports whether p yields at most one row whatever the graph
// holds: a VALUES block of one row (GrailQA binds its topic entity so:
// VALUES ?x1 { :m.0yrlqjm }), a sub-SELECT with LIMIT 0 or 1, or a
// sub-SELECT that aggregates without GROUP BY, which has one group
// (WebQSP's { SELECT (MAX(?count) AS ?maxCount) WHERE { … } }).
func oneRow(p sparql.Pattern) bool {
	switch p := p.(type) {
	case *sparql.ValuesPattern:
		return len(p.Values) <= 1
	case *sparql.SubqueryPattern:
		q := p.Query
		if q.Limit == 0 || q.Limit == 1 {
			return true
		}
		if len(q.GroupBy) > 0 {
			return false
		}
		if q.Having != nil {
			return true
		}
		for _, pe := range q.ProjectExprs {
			if hasAggregate(pe.Expr) {
				return true
			}
		}
	}
	return false
}

// hasAggregate reports whether e calls a set function (outside an EXISTS,
// whose pattern is evaluated per row).
func hasAggregate(e sparql.Expr) bool {
	switch e := e.(type) {
	case *sparql.FuncExpr:
		if aggregates[e.Name] {
			return true
		}
		for _, a := range e.Args {
			if hasAggregate(a) {
				return true
			}
		}
	case *sparql.BinaryExpr:
		return hasAggregate(e.Left) || hasAggregate(e.Right)
	case *sparql.UnaryExpr:
		return hasAggregate(e.Arg)
	}
	return false
}
