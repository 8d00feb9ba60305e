package sparqlsyntax

import (
	"strconv"
	"strings"
)

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
	if err := p.expectPunct("("); err != nil {
		return err
	}
	e, err := p.expression()
	if err != nil {
		return err
	}
	if err := p.expectWord("AS"); err != nil {
		return err
	}
	v := p.advance()
	if v.kind != tVar {
		return p.errAt(v, "expected a variable after AS, found %s", v.describe())
	}
	if err := p.expectPunct(")"); err != nil {
		return err
	}
	g.result = &Extend{Pattern: g.sofar(), Expr: e, Var: v.text}
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
