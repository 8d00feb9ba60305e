package sparqlsyntax

import "strings"

// groupPattern reads { ... }: a sub-select, or the parts of a group in the
// algebra's shape (see the package comment).
func (p *parser) groupPattern() (Pattern, error) {
	open := p.peek()
	if err := p.expectPunct("{"); err != nil {
		return nil, err
	}
	if p.isWord("SELECT") {
		q, err := p.subSelect()
		if err != nil {
			return nil, err
		}
		if !p.acceptPunct("}") {
			return nil, p.unexpected("'}' to close the sub-select (a sub-select stands alone in its braces)")
		}
		return &SubSelect{Query: q}, nil
	}
	g := &group{}
	for !p.acceptPunct("}") {
		if p.peek().kind == tEOF {
			return nil, p.errAt(open, "'{' is never closed")
		}
		if err := p.groupPart(g); err != nil {
			return nil, err
		}
	}
	return g.finish(), nil
}

// group collects one group's parts as they are read.
type group struct {
	result  Pattern
	triples []Triple
	filters []Expr
}

// flush joins the pending triples, as one BGP, onto the result.
func (g *group) flush() {
	if len(g.triples) > 0 {
		g.join(&BGP{Triples: g.triples})
		g.triples = nil
	}
}

func (g *group) join(pt Pattern) {
	if g.result == nil {
		g.result = pt
	} else {
		g.result = &Join{Left: g.result, Right: pt}
	}
}

// sofar is the pattern before an OPTIONAL, MINUS or BIND: the empty BGP
// at a group's start.
func (g *group) sofar() Pattern {
	g.flush()
	if g.result == nil {
		return &BGP{}
	}
	return g.result
}

func (g *group) finish() Pattern {
	out := g.sofar()
	for _, f := range g.filters {
		out = &Filter{Pattern: out, Expr: f}
	}
	return out
}

// groupPart reads one part of a group: a triples block or one pattern that
// is not triples, with its optional trailing '.'.
func (p *parser) groupPart(g *group) error {
	switch {
	case p.acceptWord("OPTIONAL"):
		main := g.sofar()
		opt, err := p.groupPattern()
		if err != nil {
			return err
		}
		g.result = &LeftJoin{Main: main, Optional: opt}
	case p.acceptWord("MINUS"):
		left := g.sofar()
		right, err := p.groupPattern()
		if err != nil {
			return err
		}
		g.result = &Minus{Left: left, Right: right}
	case p.isPunct("{"):
		g.flush()
		u, err := p.union()
		if err != nil {
			return err
		}
		g.join(u)
	case p.acceptWord("FILTER"):
		g.flush()
		e, err := p.constraint()
		if err != nil {
			return err
		}
		g.filters = append(g.filters, e)
	case p.acceptWord("BIND"):
		if err := p.bind(g); err != nil {
			return err
		}
	case p.acceptWord("VALUES"):
		g.flush()
		v, err := p.values()
		if err != nil {
			return err
		}
		g.join(v)
	case p.isWord("GRAPH"), p.isWord("SERVICE"):
		g.flush()
		pt, err := p.graphOrService()
		if err != nil {
			return err
		}
		g.join(pt)
	default:
		return p.triplesBlock(g)
	}
	p.acceptPunct(".")
	return nil
}

// union reads { A } UNION { B } UNION ...: left-nested, or the one group.
func (p *parser) union() (Pattern, error) {
	left, err := p.groupPattern()
	if err != nil {
		return nil, err
	}
	for p.acceptWord("UNION") {
		right, err := p.groupPattern()
		if err != nil {
			return nil, err
		}
		left = &Union{Left: left, Right: right}
	}
	return left, nil
}

// bind reads ( expr AS ?var ) after BIND.
func (p *parser) bind(g *group) error {
	e, v, err := p.exprAs()
	if err != nil {
		return err
	}
	g.result = &Extend{Pattern: g.sofar(), Expr: e, Var: v}
	return nil
}

func (p *parser) graphOrService() (Pattern, error) {
	service := strings.EqualFold(p.advance().text, "SERVICE")
	silent := service && p.acceptWord("SILENT")
	var name Term
	if t := p.peek(); t.kind == tVar {
		p.i++
		name = Term{Kind: KindVar, Value: t.text}
	} else {
		iri, err := p.iri()
		if err != nil {
			return nil, err
		}
		name = Term{Kind: KindIRI, Value: iri}
	}
	inner, err := p.groupPattern()
	if err != nil {
		return nil, err
	}
	if service {
		return &Service{Silent: silent, Endpoint: name, Pattern: inner}, nil
	}
	return &Graph{Name: name, Pattern: inner}, nil
}

// triplesBlock reads triples with a shared subject (and their ; and ,
// lists), then a '.' before more triples.
func (p *parser) triplesBlock(g *group) error {
	for {
		if err := p.triplesSameSubject(&g.triples); err != nil {
			return err
		}
		if !p.acceptPunct(".") || !p.startsTriples() {
			break
		}
	}
	if p.startsTriples() {
		return p.unexpected("'.' between triple patterns")
	}
	return nil
}

// startsTriples reports whether the next token can start a triple.
func (p *parser) startsTriples() bool {
	switch t := p.peek(); t.kind {
	case tVar, tIRI, tPName, tBlank, tString, tInteger, tDecimal, tDouble:
		return true
	case tWord:
		return strings.EqualFold(t.text, "true") || strings.EqualFold(t.text, "false")
	case tPunct:
		return t.text == "[" || t.text == "(" || t.text == "+" || t.text == "-"
	}
	return false
}

func (p *parser) triplesSameSubject(out *[]Triple) error {
	if !p.startsTriples() {
		return p.unexpected("a triple pattern, FILTER, OPTIONAL, UNION, BIND, VALUES or '}'")
	}
	var subj Term
	if p.isPunct("[") {
		s, err := p.blankNodeList(out)
		if err != nil {
			return err
		}
		subj = s
		if p.isPunct(".") || p.isPunct("}") {
			return nil // [ p o ] alone
		}
	} else {
		s, err := p.term(out)
		if err != nil {
			return err
		}
		subj = s
	}
	return p.propertyList(subj, out)
}

// propertyList reads verb objects (; verb objects)* after a subject.
func (p *parser) propertyList(subj Term, out *[]Triple) error {
	for {
		pred, path, err := p.verb()
		if err != nil {
			return err
		}
		for {
			obj, err := p.term(out)
			if err != nil {
				return err
			}
			*out = append(*out, Triple{Subject: subj, Predicate: pred, Object: obj, Path: path})
			if !p.acceptPunct(",") {
				break
			}
		}
		if !p.acceptPunct(";") {
			return nil
		}
		for p.acceptPunct(";") {
		}
		if p.isPunct(".") || p.isPunct("}") || p.isPunct("]") {
			return nil
		}
	}
}
