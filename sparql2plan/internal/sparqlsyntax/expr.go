package sparqlsyntax

import "strings"

// aggregates are the aggregate functions (DISTINCT, COUNT(*), SEPARATOR).
var aggregates = map[string]bool{"COUNT": true, "SUM": true, "MIN": true, "MAX": true, "AVG": true, "SAMPLE": true, "GROUP_CONCAT": true}

// clauseWords start the clauses that follow a list of keys or conditions,
// so none of them starts a call (HAVING (...) after GROUP BY keys).
var clauseWords = map[string]bool{"GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true, "OFFSET": true, "VALUES": true}

// startsConstraint reports whether a FILTER constraint starts next: a
// bracketed expression, EXISTS / NOT EXISTS, or a function call.
func (p *parser) startsConstraint() bool {
	t, n := p.peek(), p.peekAt(1)
	switch {
	case p.isPunct("("):
		return true
	case t.kind == tWord && (strings.EqualFold(t.text, "EXISTS") || strings.EqualFold(t.text, "NOT")):
		return true
	case t.kind == tWord && clauseWords[strings.ToUpper(t.text)]:
		return false
	case t.kind == tWord || t.kind == tIRI || t.kind == tPName:
		return n.kind == tPunct && n.text == "("
	}
	return false
}

// constraint reads what follows FILTER or HAVING.
func (p *parser) constraint() (Expr, error) {
	if !p.startsConstraint() {
		return nil, p.unexpected("'(', a function call or [NOT] EXISTS")
	}
	if p.isPunct("(") {
		return p.bracketed()
	}
	return p.primary()
}

// bracketed reads ( expression ).
func (p *parser) bracketed() (Expr, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	e, err := p.expression()
	if err != nil {
		return nil, err
	}
	return e, p.expectPunct(")")
}

// expression reads an expression: || binds loosest, then &&, the
// comparisons and IN, + and -, * and /, and the unary operators.
func (p *parser) expression() (Expr, error) {
	return p.binaryLevel(0)
}

// levels are the binary operators by binding strength, loosest first.
var levels = [][]string{{"||"}, {"&&"}, nil, {"+", "-"}, {"*", "/"}}

func (p *parser) binaryLevel(l int) (Expr, error) {
	if l == 2 {
		return p.relational()
	}
	if l == len(levels) {
		return p.unary()
	}
	left, err := p.binaryLevel(l + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tPunct || !contains(levels[l], t.text) {
			return left, nil
		}
		p.i++
		right, err := p.binaryLevel(l + 1)
		if err != nil {
			return nil, err
		}
		left = &BinaryExpr{Op: t.text, Left: left, Right: right}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// relational reads one comparison or [NOT] IN; they do not chain.
func (p *parser) relational() (Expr, error) {
	left, err := p.binaryLevel(3)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind == tPunct && contains([]string{"=", "!=", "<", ">", "<=", ">="}, t.text) {
		p.i++
		right, err := p.binaryLevel(3)
		if err != nil {
			return nil, err
		}
		return &BinaryExpr{Op: t.text, Left: left, Right: right}, nil
	}
	not := p.isWord("NOT") && p.peekAt(1).kind == tWord && strings.EqualFold(p.peekAt(1).text, "IN")
	if not {
		p.i++
	}
	if !p.acceptWord("IN") {
		return left, nil
	}
	list, err := p.argList()
	if err != nil {
		return nil, err
	}
	return &InExpr{Expr: left, List: list, Not: not}, nil
}

func (p *parser) unary() (Expr, error) {
	if t := p.peek(); t.kind == tPunct && (t.text == "!" || t.text == "-" || t.text == "+") {
		p.i++
		arg, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &UnaryExpr{Op: t.text, Arg: arg}, nil
	}
	return p.primary()
}

// primary reads a bracketed expression, a call, [NOT] EXISTS, a variable
// or a constant.
func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tPunct:
		if t.text == "(" {
			return p.bracketed()
		}
	case tVar:
		p.i++
		return &VarExpr{Name: t.text}, nil
	case tString, tInteger, tDecimal, tDouble:
		c, err := p.constant()
		return &LiteralExpr{Value: c}, err
	case tIRI, tPName:
		iri, err := p.iri()
		if err != nil {
			return nil, err
		}
		if p.isPunct("(") {
			return p.call(iri)
		}
		return &IRIExpr{IRI: iri}, nil
	case tWord:
		return p.wordExpr(t)
	}
	return nil, p.unexpected("an expression")
}

// wordExpr reads an expression that starts with a bare name: true,
// false, [NOT] EXISTS, or a built-in call.
func (p *parser) wordExpr(t token) (Expr, error) {
	name := strings.ToUpper(t.text)
	switch {
	case name == "TRUE" || name == "FALSE":
		c, err := p.constant()
		return &LiteralExpr{Value: c}, err
	case name == "EXISTS":
		p.i++
		pt, err := p.groupPattern()
		return &ExistsExpr{Pattern: pt}, err
	case name == "NOT" && p.peekAt(1).kind == tWord && strings.EqualFold(p.peekAt(1).text, "EXISTS"):
		p.i += 2
		pt, err := p.groupPattern()
		return &ExistsExpr{Pattern: pt, Not: true}, err
	}
	p.i++
	if !p.isPunct("(") {
		return nil, p.errAt(t, "unknown name %q in an expression (a function call needs '(')", t.text)
	}
	return p.call(name)
}

// call reads the arguments of a call to name, after the name.
func (p *parser) call(name string) (Expr, error) {
	if !aggregates[name] {
		args, err := p.argList()
		if err != nil {
			return nil, err
		}
		return &CallExpr{Name: name, Args: args}, nil
	}
	c := &CallExpr{Name: name}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	c.Distinct = p.acceptWord("DISTINCT")
	if name == "COUNT" && p.acceptPunct("*") {
		c.Star = true
		return c, p.expectPunct(")")
	}
	arg, err := p.expression()
	if err != nil {
		return nil, err
	}
	c.Args = []Expr{arg}
	if name == "GROUP_CONCAT" && p.acceptPunct(";") {
		if err := p.expectWord("SEPARATOR"); err != nil {
			return nil, err
		}
		if err := p.expectPunct("="); err != nil {
			return nil, err
		}
		s := p.advance()
		if s.kind != tString {
			return nil, p.errAt(s, "expected a string after SEPARATOR =, found %s", s.describe())
		}
		c.Separator = &s.text
	}
	return c, p.expectPunct(")")
}

// argList reads ( expr, expr, ... ); NIL, (), is the empty list.
func (p *parser) argList() ([]Expr, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var args []Expr
	for !p.acceptPunct(")") {
		if len(args) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		e, err := p.expression()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return args, nil
}
