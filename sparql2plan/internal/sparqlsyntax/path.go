package sparqlsyntax

// verb reads a predicate: a variable, or a property path, which is the
// plain predicate when it is a single IRI.
func (p *parser) verb() (Term, Path, error) {
	if t := p.peek(); t.kind == tVar {
		p.i++
		return Term{Kind: KindVar, Value: t.text}, nil, nil
	}
	switch t := p.peek(); {
	case t.kind == tIRI, t.kind == tPName, t.kind == tWord && t.text == "a",
		t.kind == tPunct && (t.text == "^" || t.text == "!" || t.text == "("):
	default:
		return Term{}, nil, p.unexpected("a predicate (IRI, prefixed name, a, variable or property path)")
	}
	path, err := p.pathAlternative()
	if err != nil {
		return Term{}, nil, err
	}
	if one, ok := path.(*PathIRI); ok {
		return Term{Kind: KindIRI, Value: one.IRI}, nil, nil
	}
	return Term{}, path, nil
}

func (p *parser) pathAlternative() (Path, error) {
	first, err := p.pathSequence()
	if err != nil {
		return nil, err
	}
	if !p.isPunct("|") {
		return first, nil
	}
	alt := &PathAlternative{Choices: []Path{first}}
	for p.acceptPunct("|") {
		next, err := p.pathSequence()
		if err != nil {
			return nil, err
		}
		alt.Choices = append(alt.Choices, next)
	}
	return alt, nil
}

func (p *parser) pathSequence() (Path, error) {
	first, err := p.pathStep()
	if err != nil {
		return nil, err
	}
	if !p.isPunct("/") {
		return first, nil
	}
	seq := &PathSequence{}
	add := func(s Path) {
		if inner, ok := s.(*PathSequence); ok {
			seq.Steps = append(seq.Steps, inner.Steps...)
		} else {
			seq.Steps = append(seq.Steps, s)
		}
	}
	add(first)
	for p.acceptPunct("/") {
		next, err := p.pathStep()
		if err != nil {
			return nil, err
		}
		add(next)
	}
	return seq, nil
}

// pathStep reads [^] primary [* + ?].
func (p *parser) pathStep() (Path, error) {
	inverse := p.acceptPunct("^")
	prim, err := p.pathPrimary()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tPunct && (t.text == "*" || t.text == "+" || t.text == "?") {
		p.i++
		prim = &PathRepeat{Path: prim, Op: t.text[0]}
	}
	if inverse {
		return &PathInverse{Path: prim}, nil
	}
	return prim, nil
}

func (p *parser) pathPrimary() (Path, error) {
	switch t := p.peek(); {
	case t.kind == tWord && t.text == "a":
		p.i++
		return &PathIRI{IRI: RDFType}, nil
	case p.acceptPunct("("):
		inner, err := p.pathAlternative()
		if err != nil {
			return nil, err
		}
		return inner, p.expectPunct(")")
	case p.acceptPunct("!"):
		return p.negatedSet()
	}
	iri, err := p.iri()
	if err != nil {
		return nil, err
	}
	return &PathIRI{IRI: iri}, nil
}

// negatedSet reads what follows '!': one (^)iri, or ( (^)iri | ... ).
func (p *parser) negatedSet() (Path, error) {
	n := &PathNegated{}
	one := func() error {
		inverse := p.acceptPunct("^")
		var iri string
		if t := p.peek(); t.kind == tWord && t.text == "a" {
			p.i++
			iri = RDFType
		} else {
			var err error
			if iri, err = p.iri(); err != nil {
				return err
			}
		}
		if inverse {
			n.Inverse = append(n.Inverse, iri)
		} else {
			n.IRIs = append(n.IRIs, iri)
		}
		return nil
	}
	if !p.acceptPunct("(") {
		return n, one()
	}
	for !p.acceptPunct(")") {
		if len(n.IRIs)+len(n.Inverse) > 0 {
			if err := p.expectPunct("|"); err != nil {
				return nil, err
			}
		}
		if err := one(); err != nil {
			return nil, err
		}
	}
	return n, nil
}
