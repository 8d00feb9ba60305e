package embedded

import (
	"github.com/tggo/goRDFlib/sparql"
)

// instrument returns a copy of q in which every row that the evaluator
// pairs or joins without reading a triple passes through a row hook
// (FILTER EXISTS { <rowHook> <rowHook> <rowHook> }), which the budgetStore
// counts and where it can stop the evaluation.
//
// goRDFlib evaluates a join by evaluating its right side once per row of
// the left; a right side that is not a basic graph pattern is evaluated in
// full each time (VALUES, BIND, groups), and its rows are paired with the
// left row in memory. So the hook goes on every right side (of a join or
// an OPTIONAL) that is not a basic graph pattern: the rows a join builds
// are then bounded by the hooks it fires or the triples it reads, and a
// VALUES product is counted as it grows. A basic graph pattern is left as
// it is: it reads a triple per row, which the scan budget counts, and
// wrapping it would make the evaluator lose its bindings.
func instrument(q *sparql.ParsedQuery) *sparql.ParsedQuery {
	c := *q
	c.Where = pattern(q.Where)
	return &c
}

func pattern(p sparql.Pattern) sparql.Pattern {
	switch p := p.(type) {
	case *sparql.JoinPattern:
		return &sparql.JoinPattern{Left: pattern(p.Left), Right: hooked(p.Right)}
	case *sparql.OptionalPattern:
		return &sparql.OptionalPattern{Main: pattern(p.Main), Optional: hooked(p.Optional)}
	case *sparql.UnionPattern:
		return &sparql.UnionPattern{Left: pattern(p.Left), Right: pattern(p.Right)}
	case *sparql.MinusPattern:
		return &sparql.MinusPattern{Left: pattern(p.Left), Right: pattern(p.Right)}
	case *sparql.FilterPattern:
		return &sparql.FilterPattern{Pattern: pattern(p.Pattern), Expr: expr(p.Expr)}
	case *sparql.BindPattern:
		return &sparql.BindPattern{Pattern: pattern(p.Pattern), Expr: expr(p.Expr), Var: p.Var}
	case *sparql.GraphPattern:
		return &sparql.GraphPattern{Name: p.Name, Pattern: pattern(p.Pattern)}
	case *sparql.SubqueryPattern:
		return &sparql.SubqueryPattern{Query: instrument(p.Query)}
	}
	return p
}

// hooked instruments p and, unless it is a basic graph pattern, passes
// each of its rows through the row hook.
func hooked(p sparql.Pattern) sparql.Pattern {
	if _, ok := p.(*sparql.BGP); ok || p == nil {
		return p
	}
	return &sparql.FilterPattern{Pattern: pattern(p), Expr: rowHookExpr}
}

var rowHookExpr = &sparql.ExistsExpr{Pattern: &sparql.BGP{Triples: []sparql.Triple{{
	Subject: "<" + rowHook + ">", Predicate: "<" + rowHook + ">", Object: "<" + rowHook + ">",
}}}}

// expr instruments the patterns of the EXISTS in e, which are evaluated
// once per row of the pattern e filters.
func expr(e sparql.Expr) sparql.Expr {
	switch e := e.(type) {
	case *sparql.ExistsExpr:
		return &sparql.ExistsExpr{Pattern: pattern(e.Pattern), Not: e.Not}
	case *sparql.BinaryExpr:
		return &sparql.BinaryExpr{Op: e.Op, Left: expr(e.Left), Right: expr(e.Right)}
	case *sparql.UnaryExpr:
		return &sparql.UnaryExpr{Op: e.Op, Arg: expr(e.Arg)}
	}
	return e
}
