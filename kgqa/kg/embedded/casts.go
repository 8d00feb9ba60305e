package embedded

import (
	"regexp"
	"strings"

	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/sparql"
)

// The cast as goRDFlib's parser names it: the full IRI, upper case, so
// xsd:datetime (Virtuoso's spelling in CWQ) and xsd:dateTime are one.
const dateTimeCast = "HTTP://WWW.W3.ORG/2001/XMLSCHEMA#DATETIME"

// dateTimeForms turn the lexical forms Freebase writes type.datetime in
// (xsd:gYear, xsd:gYearMonth, xsd:date, xsd:dateTime) into an
// xsd:dateTime lexical form, as Virtuoso's cast does: the first instant
// of the year, month or day.
var dateTimeForms = []struct{ pattern, suffix string }{
	{`^-?[0-9]{4}$`, "-01-01T00:00:00"},
	{`^-?[0-9]{4}-[0-9]{2}$`, "-01T00:00:00"},
	{`^-?[0-9]{4}-[0-9]{2}-[0-9]{2}$`, "T00:00:00"},
	{`^-?[0-9]{4}-[0-9]{2}-[0-9]{2}T`, ""},
}

// rewriteCasts makes a parsed query's xsd:dateTime casts evaluable by
// goRDFlib, which yields nothing for them (its castXSD knows only the
// numeric, boolean and string casts), so that ORDER BY
// DESC(xsd:datetime(?d)) orders by date as on Virtuoso. goRDFlib takes no
// custom functions, so each cast becomes an expression of built-ins it
// does evaluate; xsd:dateTime constants written as a bare date
// ("2015-08-10"^^xsd:dateTime, which Virtuoso accepts) get their time.
func rewriteCasts(q *sparql.ParsedQuery) {
	if q == nil {
		return
	}
	q.Where = rewritePattern(q.Where)
	for i := range q.ProjectExprs {
		q.ProjectExprs[i].Expr = rewriteExpr(q.ProjectExprs[i].Expr)
	}
	for i := range q.OrderBy {
		q.OrderBy[i].Expr = rewriteExpr(q.OrderBy[i].Expr)
	}
	for i := range q.GroupBy {
		q.GroupBy[i] = rewriteExpr(q.GroupBy[i])
	}
	q.Having = rewriteExpr(q.Having)
}

func rewritePattern(p sparql.Pattern) sparql.Pattern {
	switch p := p.(type) {
	case *sparql.JoinPattern:
		p.Left, p.Right = rewritePattern(p.Left), rewritePattern(p.Right)
	case *sparql.OptionalPattern:
		p.Main, p.Optional = rewritePattern(p.Main), rewritePattern(p.Optional)
	case *sparql.UnionPattern:
		p.Left, p.Right = rewritePattern(p.Left), rewritePattern(p.Right)
	case *sparql.MinusPattern:
		p.Left, p.Right = rewritePattern(p.Left), rewritePattern(p.Right)
	case *sparql.FilterPattern:
		p.Pattern, p.Expr = rewritePattern(p.Pattern), rewriteExpr(p.Expr)
	case *sparql.BindPattern:
		p.Pattern, p.Expr = rewritePattern(p.Pattern), rewriteExpr(p.Expr)
	case *sparql.GraphPattern:
		p.Pattern = rewritePattern(p.Pattern)
	case *sparql.SubqueryPattern:
		rewriteCasts(p.Query)
	}
	return p
}

func rewriteExpr(e sparql.Expr) sparql.Expr {
	switch e := e.(type) {
	case *sparql.BinaryExpr:
		e.Left, e.Right = rewriteExpr(e.Left), rewriteExpr(e.Right)
	case *sparql.UnaryExpr:
		e.Arg = rewriteExpr(e.Arg)
	case *sparql.ExistsExpr:
		e.Pattern = rewritePattern(e.Pattern)
	case *sparql.LiteralExpr:
		if l, ok := e.Value.(rdflibgo.Literal); ok && l.Datatype() == rdflibgo.XSDDateTime {
			e.Value = dateTimeConstant(l)
		}
	case *sparql.FuncExpr:
		for i := range e.Args {
			e.Args[i] = rewriteExpr(e.Args[i])
		}
		if strings.ToUpper(e.Name) == dateTimeCast && len(e.Args) == 1 {
			return dateTimeOf(e.Args[0])
		}
	}
	return e
}

// dateTimeConstant completes a bare date written as xsd:dateTime.
func dateTimeConstant(l rdflibgo.Literal) rdflibgo.Literal {
	lex := l.Lexical()
	if strings.Contains(lex, "T") {
		return l
	}
	for _, f := range dateTimeForms[:3] {
		if matches(f.pattern, lex) {
			return rdflibgo.NewLiteral(lex+f.suffix, rdflibgo.WithDatatype(rdflibgo.XSDDateTime))
		}
	}
	return l
}

// dateTimeOf is IF(REGEX(STR(x), form1), STRDT(CONCAT(STR(x), suffix1),
// xsd:dateTime), IF(...)), ending in an unbound value, as a failed cast
// is on Virtuoso.
func dateTimeOf(x sparql.Expr) sparql.Expr {
	str := func() sparql.Expr { return &sparql.FuncExpr{Name: "STR", Args: []sparql.Expr{x}} }
	lit := func(s string) sparql.Expr { return &sparql.LiteralExpr{Value: rdflibgo.NewLiteral(s)} }
	var out sparql.Expr = &sparql.VarExpr{Name: "_parog_failed_cast"}
	for i := len(dateTimeForms) - 1; i >= 0; i-- {
		f := dateTimeForms[i]
		lex := str()
		if f.suffix != "" {
			lex = &sparql.FuncExpr{Name: "CONCAT", Args: []sparql.Expr{str(), lit(f.suffix)}}
		}
		out = &sparql.FuncExpr{Name: "IF", Args: []sparql.Expr{
			&sparql.FuncExpr{Name: "REGEX", Args: []sparql.Expr{str(), lit(f.pattern)}},
			&sparql.FuncExpr{Name: "STRDT", Args: []sparql.Expr{lex, &sparql.IRIExpr{Value: rdflibgo.XSDDateTime.Value()}}},
			out,
		}}
	}
	return out
}

var formRE = func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for _, f := range dateTimeForms {
		m[f.pattern] = regexp.MustCompile(f.pattern)
	}
	return m
}()

func matches(pattern, s string) bool { return formRE[pattern].MatchString(s) }
