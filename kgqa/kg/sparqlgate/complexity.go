package sparqlgate

import (
	"github.com/tggo/goRDFlib/sparql"
)

// The caps on the cost of a query's expressions. A SPARQL endpoint
// evaluates an expression once per row, in memory, with no limit of its
// own on the size of a string: 24 chained BIND(CONCAT(?v, ?v) AS ?w) in
// 1.3 KB of query grew Virtuoso by 9.9 GB. No benchmark gold query comes
// near any cap (TestParseCapsSpareGoldQueries).
const (
	// MaxCalls bounds the function calls in a query.
	MaxCalls = 64
	// MaxNesting bounds how deep function calls nest in one another.
	MaxNesting = 8
	// MaxGrowth bounds how many times longer than the longest value it
	// reads (a term of the graph or a literal of the query) a string built
	// by CONCAT, REPLACE, ENCODE_FOR_URI and the like can become.
	MaxGrowth = 64
	// MaxBindChain bounds a chain of BINDs each of which reads the
	// variable of the one before.
	MaxBindChain = 8
)

// costs walks a query's expressions in evaluation order: variables bound
// by BIND or by a projection carry their growth and chain length on.
type costs struct {
	calls  int
	growth map[string]int
	chain  map[string]int
	err    error
}

// checkCosts refuses a query whose expressions exceed a cap.
func checkCosts(q *sparql.ParsedQuery) error {
	c := &costs{growth: map[string]int{}, chain: map[string]int{}}
	c.query(q)
	return c.err
}

func (c *costs) fail(format string, args ...any) {
	if c.err == nil {
		c.err = refuse(format, args...)
	}
}

func (c *costs) query(q *sparql.ParsedQuery) {
	c.pattern(q.Where)
	for _, pe := range q.ProjectExprs {
		c.bind(pe.Var, pe.Expr)
	}
	for _, e := range q.GroupBy {
		c.expr(e)
	}
	c.expr(q.Having)
	for _, o := range q.OrderBy {
		c.expr(o.Expr)
	}
}

func (c *costs) pattern(p sparql.Pattern) {
	switch p := p.(type) {
	case *sparql.JoinPattern:
		c.pattern(p.Left)
		c.pattern(p.Right)
	case *sparql.OptionalPattern:
		c.pattern(p.Main)
		c.pattern(p.Optional)
	case *sparql.UnionPattern:
		c.pattern(p.Left)
		c.pattern(p.Right)
	case *sparql.MinusPattern:
		c.pattern(p.Left)
		c.pattern(p.Right)
	case *sparql.FilterPattern:
		c.pattern(p.Pattern)
		c.expr(p.Expr)
	case *sparql.BindPattern:
		c.pattern(p.Pattern)
		c.bind(p.Var, p.Expr)
	case *sparql.GraphPattern:
		c.pattern(p.Pattern)
	case *sparql.SubqueryPattern:
		c.query(p.Query)
	}
}

// bind records what v, bound to e, carries on.
func (c *costs) bind(v string, e sparql.Expr) {
	g := c.expr(e)
	link := 0
	for _, u := range exprVars(e) {
		link = max(link, c.chain[u])
	}
	c.growth[v] = max(c.growth[v], g)
	c.chain[v] = max(c.chain[v], link+1)
	if c.chain[v] > MaxBindChain {
		c.fail("a chain of more than %d BINDs, each reading the one before (?%s)", MaxBindChain, clip(v))
	}
}

// expr checks e and returns its growth: how many times the longest value
// it reads its string can be.
func (c *costs) expr(e sparql.Expr) int {
	g := c.grow(e, 0)
	if g > MaxGrowth {
		c.fail("an expression can build a string more than %d times longer than the values it reads (CONCAT, REPLACE or ENCODE_FOR_URI chains)", MaxGrowth)
	}
	return g
}

func (c *costs) grow(e sparql.Expr, depth int) int {
	switch e := e.(type) {
	case *sparql.VarExpr:
		return max(c.growth[e.Name], 1)
	case *sparql.BinaryExpr:
		c.grow(e.Left, depth)
		c.grow(e.Right, depth)
	case *sparql.UnaryExpr:
		c.grow(e.Arg, depth)
	case *sparql.ExistsExpr:
		c.pattern(e.Pattern)
	case *sparql.FuncExpr:
		return c.call(e, depth+1)
	}
	return 1
}

func (c *costs) call(f *sparql.FuncExpr, depth int) int {
	c.calls++
	if c.calls == MaxCalls+1 {
		c.fail("more than %d function calls", MaxCalls)
	}
	if depth == MaxNesting+1 {
		c.fail("function calls nested more than %d deep", MaxNesting)
	}
	args := make([]int, len(f.Args))
	for i, a := range f.Args {
		args[i] = c.grow(a, depth)
	}
	arg := func(i int) int {
		if i < len(args) {
			return args[i]
		}
		return 1
	}
	switch f.Name {
	case "CONCAT":
		sum := 0
		for _, g := range args {
			sum = min(sum+g, MaxGrowth+1)
		}
		return max(sum, 1)
	case "REPLACE":
		// Each match, empty ones included, becomes the replacement: with
		// a literal of length n the result is at most (n+1) times longer;
		// with a value of the row it grows with the product of two
		// lengths, which no factor bounds.
		lit, ok := argLiteral(f, 2)
		if !ok {
			return MaxGrowth + 1
		}
		return min(arg(0)*(len(lit)+1), MaxGrowth+1)
	case "ENCODE_FOR_URI":
		// Every byte may become %XX.
		return min(arg(0)*3, MaxGrowth+1)
	case "IF":
		return max(arg(1), arg(2))
	case "COALESCE":
		m := 1
		for _, g := range args {
			m = max(m, g)
		}
		return m
	case "STR", "UCASE", "LCASE", "SUBSTR", "STRBEFORE", "STRAFTER", "STRDT", "STRLANG", "IRI", "URI",
		"SAMPLE", "MIN", "MAX", "GROUP_CONCAT":
		return arg(0)
	}
	return 1
}

func argLiteral(f *sparql.FuncExpr, i int) (string, bool) {
	if i >= len(f.Args) {
		return "", false
	}
	l, ok := f.Args[i].(*sparql.LiteralExpr)
	if !ok || l.Value == nil {
		return "", false
	}
	return l.Value.String(), true
}

// exprVars lists the variables e reads.
func exprVars(e sparql.Expr) []string {
	switch e := e.(type) {
	case *sparql.VarExpr:
		return []string{e.Name}
	case *sparql.BinaryExpr:
		return append(exprVars(e.Left), exprVars(e.Right)...)
	case *sparql.UnaryExpr:
		return exprVars(e.Arg)
	case *sparql.FuncExpr:
		var vs []string
		for _, a := range e.Args {
			vs = append(vs, exprVars(a)...)
		}
		return vs
	}
	return nil
}
