package sparqlsyntax

import (
	"strconv"
	"strings"
)

// blankNodeList reads [ predicate-object list ] and returns its fresh
// blank node; its triples go to out.
func (p *parser) blankNodeList(out *[]Triple) (Term, error) {
	if err := p.expectPunct("["); err != nil {
		return Term{}, err
	}
	p.anon++
	node := Term{Kind: KindBlank, Value: "#" + strconv.Itoa(p.anon)}
	if p.acceptPunct("]") {
		return node, nil
	}
	if err := p.propertyList(node, out); err != nil {
		return Term{}, err
	}
	return node, p.expectPunct("]")
}

// term reads a subject or object: a variable, IRI, blank node (with its
// property list's triples going to out) or literal.
func (p *parser) term(out *[]Triple) (Term, error) {
	t := p.peek()
	switch {
	case t.kind == tVar:
		p.i++
		return Term{Kind: KindVar, Value: t.text}, nil
	case t.kind == tBlank:
		p.i++
		return Term{Kind: KindBlank, Value: t.text}, nil
	case p.isPunct("["):
		return p.blankNodeList(out)
	case p.isPunct("("):
		return Term{}, p.errAt(t, "RDF collections ( ... ) are not supported")
	}
	return p.constant()
}

// constant reads an IRI or a literal (of a triple or a VALUES row).
func (p *parser) constant() (Term, error) {
	t := p.peek()
	switch t.kind {
	case tIRI, tPName:
		iri, err := p.iri()
		return Term{Kind: KindIRI, Value: iri}, err
	case tString:
		return p.literal()
	case tInteger, tDecimal, tDouble:
		p.i++
		return number(t.kind, t.text), nil
	case tWord:
		if b := strings.ToLower(t.text); b == "true" || b == "false" {
			p.i++
			return Term{Kind: KindLiteral, Value: b, Datatype: XSDBoolean}, nil
		}
	case tPunct:
		if n := p.peekAt(1); (t.text == "+" || t.text == "-") && (n.kind == tInteger || n.kind == tDecimal || n.kind == tDouble) && n.pos == t.pos+1 {
			p.i += 2
			return number(n.kind, t.text+n.text), nil
		}
	}
	return Term{}, p.unexpected("a variable, IRI, blank node or literal")
}

func number(k tokKind, text string) Term {
	dt := map[tokKind]string{tInteger: XSDInteger, tDecimal: XSDDecimal, tDouble: XSDDouble}[k]
	return Term{Kind: KindLiteral, Value: text, Datatype: dt}
}

// literal reads a string with its optional @lang or ^^datatype.
func (p *parser) literal() (Term, error) {
	s := p.advance()
	lit := Term{Kind: KindLiteral, Value: s.text, Datatype: XSDString}
	switch t := p.peek(); {
	case t.kind == tLang:
		p.i++
		lit.Lang, lit.Datatype = t.text, RDFLangString
	case p.acceptPunct("^^"):
		dt, err := p.iri()
		if err != nil {
			return Term{}, err
		}
		lit.Datatype, lit.Typed = dt, true
	}
	return lit, nil
}

// iri reads an IRI reference or a prefixed name and returns the full IRI.
func (p *parser) iri() (string, error) {
	t := p.peek()
	switch t.kind {
	case tIRI:
		p.i++
		return p.resolveIRI(t.text), nil
	case tPName:
		p.i++
		prefix, local, _ := strings.Cut(t.text, ":")
		ns, ok := p.prefixes[prefix]
		if !ok {
			return "", p.errAt(t, "undeclared prefix %s: in %s (declare it with PREFIX %s: <...>)", prefix, t.text, prefix)
		}
		return ns + unescapeLocal(local), nil
	}
	return "", p.unexpected("an IRI or prefixed name")
}

// unescapeLocal drops the backslash of a local name's escapes (ns:a\.b is
// ns:a.b); %-escapes stay, as the recommendation says.
func unescapeLocal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// values reads the data block after VALUES.
func (p *parser) values() (*Values, error) {
	v := &Values{}
	multi := p.acceptPunct("(")
	for {
		t := p.peek()
		if t.kind != tVar {
			break
		}
		p.i++
		v.Vars = append(v.Vars, t.text)
		if !multi {
			break
		}
	}
	if len(v.Vars) == 0 && !multi {
		return nil, p.unexpected("a variable after VALUES")
	}
	if multi {
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
	}
	if err := p.expectPunct("{"); err != nil {
		return nil, err
	}
	for !p.acceptPunct("}") {
		row, err := p.valuesRow(multi, len(v.Vars))
		if err != nil {
			return nil, err
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

func (p *parser) valuesRow(multi bool, width int) ([]*Term, error) {
	start := p.peek()
	one := func() (*Term, error) {
		if p.acceptWord("UNDEF") {
			return nil, nil
		}
		c, err := p.constant()
		return &c, err
	}
	if !multi {
		c, err := one()
		return []*Term{c}, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var row []*Term
	for !p.acceptPunct(")") {
		c, err := one()
		if err != nil {
			return nil, err
		}
		row = append(row, c)
	}
	if len(row) != width {
		return nil, p.errAt(start, "a VALUES row of %d values for %d variables", len(row), width)
	}
	return row, nil
}
