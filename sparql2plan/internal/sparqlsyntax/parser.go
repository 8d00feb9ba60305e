package sparqlsyntax

import (
	"net/url"
	"strconv"
	"strings"
)

// Parse parses one SELECT or ASK query. A fault is returned as a
// *SyntaxError.
func Parse(query string) (*Query, error) {
	p := &parser{src: query, prefixes: map[string]string{}}
	if err := p.tokenize(); err != nil {
		return nil, err
	}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return q, nil
}

// parser reads the tokens of one query.
type parser struct {
	src      string
	toks     []token
	i        int
	prefixes map[string]string
	base     string
	anon     int // anonymous blank nodes made so far
}

func (p *parser) tokenize() error {
	l := &lexer{src: p.src}
	for {
		t, err := l.next()
		if err != nil {
			return err
		}
		p.toks = append(p.toks, t)
		if t.kind == tEOF {
			return nil
		}
	}
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// errAt is a syntax error at token t.
func (p *parser) errAt(t token, format string, args ...any) error {
	return newSyntaxError(p.src, t.pos, format, args...)
}

// unexpected is the error for a token that fits nowhere here.
func (p *parser) unexpected(want string) error {
	t := p.peek()
	return p.errAt(t, "expected %s, found %s", want, t.describe())
}

// isWord reports whether the next token is the keyword kw (any case).
func (p *parser) isWord(kw string) bool {
	t := p.peek()
	return t.kind == tWord && strings.EqualFold(t.text, kw)
}

// acceptWord consumes keyword kw when it is next.
func (p *parser) acceptWord(kw string) bool {
	if p.isWord(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectWord(kw string) error {
	if !p.acceptWord(kw) {
		return p.unexpected(kw)
	}
	return nil
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) acceptPunct(s string) bool {
	if p.isPunct(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) error {
	if !p.acceptPunct(s) {
		return p.unexpected("'" + s + "'")
	}
	return nil
}

// query reads the prologue, the query form, WHERE and the modifiers.
func (p *parser) query() (*Query, error) {
	if err := p.prologue(); err != nil {
		return nil, err
	}
	q := &Query{Limit: -1}
	switch {
	case p.acceptWord("SELECT"):
		q.Form = "SELECT"
		if err := p.selectClause(q); err != nil {
			return nil, err
		}
	case p.acceptWord("ASK"):
		q.Form = "ASK"
	case p.isWord("CONSTRUCT"), p.isWord("DESCRIBE"):
		return nil, p.errAt(p.peek(), "%s queries are not supported (only SELECT and ASK)", strings.ToUpper(p.peek().text))
	default:
		return nil, p.unexpected("SELECT or ASK")
	}
	if err := p.fromClauses(); err != nil {
		return nil, err
	}
	if err := p.bodyAndValues(q); err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, p.unexpected("end of query")
	}
	q.Base, q.Prefixes = p.base, p.prefixes
	return q, nil
}

// prologue reads PREFIX and BASE declarations.
func (p *parser) prologue() error {
	for {
		switch {
		case p.acceptWord("BASE"):
			t := p.advance()
			if t.kind != tIRI {
				return p.errAt(t, "expected an IRI after BASE, found %s", t.describe())
			}
			p.base = p.resolveIRI(t.text)
		case p.acceptWord("PREFIX"):
			t := p.advance()
			if t.kind != tPName || !strings.HasSuffix(t.text, ":") || strings.Count(t.text, ":") != 1 {
				return p.errAt(t, "expected a prefix such as ns: after PREFIX, found %s", t.describe())
			}
			iri := p.advance()
			if iri.kind != tIRI {
				return p.errAt(iri, "expected the namespace IRI of %s, found %s", t.text, iri.describe())
			}
			p.prefixes[strings.TrimSuffix(t.text, ":")] = p.resolveIRI(iri.text)
		default:
			return nil
		}
	}
}

// resolveIRI resolves a relative IRI against BASE.
func (p *parser) resolveIRI(iri string) string {
	if p.base == "" || strings.Contains(iri, ":") {
		return iri
	}
	b, err := url.Parse(p.base)
	if err != nil {
		return p.base + iri
	}
	r, err := url.Parse(iri)
	if err != nil {
		return p.base + iri
	}
	return b.ResolveReference(r).String()
}

// fromClauses skips FROM and FROM NAMED: a gold query's dataset is the
// graph it is run against.
func (p *parser) fromClauses() error {
	for p.acceptWord("FROM") {
		p.acceptWord("NAMED")
		if _, err := p.iri(); err != nil {
			return err
		}
	}
	return nil
}

// body reads WHERE { ... } and the solution modifiers; the WHERE keyword
// is optional.
func (p *parser) body(q *Query) error {
	p.acceptWord("WHERE")
	if !p.isPunct("{") {
		return p.unexpected("'{' to open the WHERE clause")
	}
	where, err := p.groupPattern()
	if err != nil {
		return err
	}
	q.Where = where
	return p.modifiers(q)
}

// bodyAndValues reads the WHERE clause, the solution modifiers and a
// trailing VALUES block, of a query or a subquery.
func (p *parser) bodyAndValues(q *Query) error {
	if err := p.body(q); err != nil {
		return err
	}
	if p.acceptWord("VALUES") {
		v, err := p.values()
		if err != nil {
			return err
		}
		q.Values = v
	}
	return nil
}

// exprAs reads ( expr AS ?var ), in a projection or after BIND.
func (p *parser) exprAs() (Expr, string, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, "", err
	}
	e, err := p.expression()
	if err != nil {
		return nil, "", err
	}
	if err := p.expectWord("AS"); err != nil {
		return nil, "", err
	}
	v := p.advance()
	if v.kind != tVar {
		return nil, "", p.errAt(v, "expected a variable after AS, found %s", v.describe())
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, "", err
	}
	return e, v.text, nil
}

// selectClause reads what follows SELECT up to WHERE.
func (p *parser) selectClause(q *Query) error {
	if p.acceptWord("DISTINCT") {
		q.Distinct = true
	} else if p.acceptWord("REDUCED") {
		q.Reduced = true
	}
	if p.acceptPunct("*") {
		q.Star = true
		return nil
	}
	for {
		switch t := p.peek(); {
		case t.kind == tVar:
			p.i++
			q.Projection = append(q.Projection, Projection{Var: t.text})
		case p.isPunct("("):
			e, v, err := p.exprAs()
			if err != nil {
				return err
			}
			q.Projection = append(q.Projection, Projection{Var: v, Expr: e})
		default:
			if len(q.Projection) == 0 {
				return p.unexpected("a variable, (expression AS ?var) or * after SELECT")
			}
			return nil
		}
	}
}

// modifiers reads GROUP BY, HAVING, ORDER BY, LIMIT and OFFSET.
func (p *parser) modifiers(q *Query) error {
	if p.acceptWord("GROUP") {
		if err := p.expectWord("BY"); err != nil {
			return err
		}
		for len(q.GroupBy) == 0 || p.startsConstraint() || p.peek().kind == tVar {
			k, err := p.groupKey()
			if err != nil {
				return err
			}
			q.GroupBy = append(q.GroupBy, k)
		}
	}
	if p.acceptWord("HAVING") {
		// A condition is a bracketed expression or a call, but as Virtuoso
		// does, an unbracketed comparison is read whole (WebQSP writes
		// HAVING COUNT(?city) = 2).
		for len(q.Having) == 0 || p.startsConstraint() {
			e, err := p.expression()
			if err != nil {
				return err
			}
			q.Having = append(q.Having, e)
		}
	}
	if p.acceptWord("ORDER") {
		if err := p.expectWord("BY"); err != nil {
			return err
		}
		for len(q.OrderBy) == 0 || p.startsConstraint() || p.peek().kind == tVar || p.isWord("ASC") || p.isWord("DESC") {
			k, err := p.orderKey()
			if err != nil {
				return err
			}
			q.OrderBy = append(q.OrderBy, k)
		}
	}
	// LIMIT and OFFSET come in either order.
	for range 2 {
		switch {
		case p.acceptWord("LIMIT"):
			n, err := p.count("LIMIT")
			if err != nil {
				return err
			}
			q.Limit = n
		case p.acceptWord("OFFSET"):
			n, err := p.count("OFFSET")
			if err != nil {
				return err
			}
			q.Offset = n
		}
	}
	return nil
}

func (p *parser) count(what string) (int, error) {
	t := p.advance()
	if t.kind != tInteger {
		return 0, p.errAt(t, "expected a whole number after %s, found %s", what, t.describe())
	}
	n, err := strconv.Atoi(t.text)
	if err != nil {
		return 0, p.errAt(t, "%s %s is out of range", what, t.text)
	}
	return n, nil
}

func (p *parser) groupKey() (GroupKey, error) {
	if t := p.peek(); t.kind == tVar {
		p.i++
		return GroupKey{Expr: &VarExpr{Name: t.text}}, nil
	}
	if p.acceptPunct("(") {
		e, err := p.expression()
		if err != nil {
			return GroupKey{}, err
		}
		k := GroupKey{Expr: e}
		if p.acceptWord("AS") {
			v := p.advance()
			if v.kind != tVar {
				return GroupKey{}, p.errAt(v, "expected a variable after AS, found %s", v.describe())
			}
			k.Var = v.text
		}
		return k, p.expectPunct(")")
	}
	if !p.startsConstraint() {
		return GroupKey{}, p.unexpected("a GROUP BY key")
	}
	e, err := p.constraint()
	return GroupKey{Expr: e}, err
}

func (p *parser) orderKey() (OrderKey, error) {
	if p.isWord("ASC") || p.isWord("DESC") {
		desc := strings.EqualFold(p.advance().text, "DESC")
		if !p.isPunct("(") {
			return OrderKey{}, p.unexpected("'(' after ASC or DESC")
		}
		e, err := p.bracketed()
		return OrderKey{Expr: e, Desc: desc}, err
	}
	if t := p.peek(); t.kind == tVar {
		p.i++
		return OrderKey{Expr: &VarExpr{Name: t.text}}, nil
	}
	if !p.startsConstraint() {
		return OrderKey{}, p.unexpected("an ORDER BY key")
	}
	e, err := p.constraint()
	return OrderKey{Expr: e}, err
}

// subSelect reads a sub-select after its '{' up to its '}'.
func (p *parser) subSelect() (*Query, error) {
	if err := p.expectWord("SELECT"); err != nil {
		return nil, err
	}
	q := &Query{Form: "SELECT", Limit: -1}
	if err := p.selectClause(q); err != nil {
		return nil, err
	}
	if err := p.bodyAndValues(q); err != nil {
		return nil, err
	}
	q.Base, q.Prefixes = p.base, p.prefixes
	return q, nil
}
