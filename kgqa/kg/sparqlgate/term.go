package sparqlgate

import (
	"errors"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	rdflibgo "github.com/tggo/goRDFlib"
)

var (
	numberRE  = regexp.MustCompile(`^[+-]?([0-9]+|[0-9]*\.[0-9]+|[0-9]+\.[0-9]*)([eE][+-]?[0-9]+)?$`)
	langRE    = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)
	bnodeRE   = regexp.MustCompile(`^_:[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_-])?$`)
	pnameRE   = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.-]*)?:([A-Za-z0-9_:%-]([A-Za-z0-9_.:%-]*[A-Za-z0-9_:%-])?)?$`)
	errNoTerm = errors.New("not a term")
)

// token checks one term of a triple pattern as the parser left it (a
// variable, IRI, prefixed name, literal, number, boolean or blank node)
// and returns its canonical form.
func (w *writer) token(tok string) (string, error) {
	switch {
	case tok == "":
		return "", errNoTerm
	case tok[0] == '?' || tok[0] == '$':
		if !validVar(tok[1:]) {
			return "", refuse("bad variable name %q", tok)
		}
		return "?" + tok[1:], nil
	case strings.HasPrefix(tok, "<<"):
		return "", refuse("triple terms are not supported")
	case tok[0] == '<' && tok[len(tok)-1] == '>':
		return iriText(tok[1 : len(tok)-1])
	case tok[0] == '"' || tok[0] == '\'':
		lex, lang, dt, err := w.literalToken(tok)
		if err != nil {
			return "", err
		}
		return literalText(lex, lang, dt)
	case tok == "true" || tok == "false":
		return tok, nil
	case numberRE.MatchString(tok):
		return tok, nil
	case bnodeRE.MatchString(tok):
		return tok, nil
	}
	iri, err := w.expand(tok)
	if err != nil {
		return "", err
	}
	return iriText(iri)
}

// expand turns a prefixed name into its IRI; an undeclared prefix or a
// bare word is refused.
func (w *writer) expand(tok string) (string, error) {
	m := pnameRE.FindStringSubmatch(tok)
	if m == nil {
		return "", refuse("%q is not a term", clip(tok))
	}
	ns, ok := w.prefixes[m[1]]
	if !ok {
		return "", refuse("undeclared prefix %q", m[1]+":")
	}
	return ns + m[2], nil
}

// literalToken splits a literal as written ("…", '…', """…""", ”'…”'
// with @lang or ^^datatype) into its lexical form, language and datatype.
func (w *writer) literalToken(tok string) (lex, lang, dt string, err error) {
	q := tok[:1]
	if strings.HasPrefix(tok, q+q+q) && len(tok) >= 6 {
		q = q + q + q
	}
	end := -1
	for i := len(q); i < len(tok); i++ {
		if tok[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(tok[i:], q) {
			end = i
			break
		}
	}
	if end < 0 {
		return "", "", "", refuse("unterminated string")
	}
	lex, err = unescape(tok[len(q):end])
	if err != nil {
		return "", "", "", err
	}
	rest := tok[end+len(q):]
	switch {
	case rest == "":
	case rest[0] == '@':
		lang = rest[1:]
	case strings.HasPrefix(rest, "^^<") && strings.HasSuffix(rest, ">"):
		dt = rest[3 : len(rest)-1]
	case strings.HasPrefix(rest, "^^"):
		dt, err = w.expand(rest[2:])
	default:
		err = refuse("unexpected text after a string: %q", clip(rest))
	}
	return lex, lang, dt, err
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i >= len(s) {
			return "", refuse("a string ends in a backslash")
		}
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '"', '\'', '\\':
			b.WriteByte(s[i])
		default:
			return "", refuse("unknown escape \\%c in a string", s[i])
		}
	}
	return b.String(), nil
}

// rdfTerm writes a term the parser resolved (VALUES, expressions).
func (w *writer) rdfTerm(t rdflibgo.Term) {
	var s string
	var err error
	switch t := t.(type) {
	case rdflibgo.URIRef:
		s, err = iriText(t.Value())
	case rdflibgo.Literal:
		s, err = literalText(t.Lexical(), t.Language(), t.Datatype().Value())
	default:
		err = refuse("unsupported term %T", t)
	}
	if err != nil {
		w.fail("%v", err)
		return
	}
	w.str(s)
}

func (w *writer) iri(s string) {
	t, err := iriText(s)
	if err != nil {
		w.fail("%v", err)
		return
	}
	w.str(t)
}

func (w *writer) variable(name string) {
	if !validVar(name) {
		w.fail("bad variable name %q", name)
		return
	}
	w.str("?" + name)
}

func validVar(name string) bool {
	if name == "" || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// iriText returns <iri> for an absolute IRI made only of characters the
// IRIREF production allows.
func iriText(iri string) (string, error) {
	if !utf8.ValidString(iri) {
		return "", refuse("an IRI is not valid UTF-8")
	}
	for _, r := range iri {
		if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) || r == utf8.RuneError {
			return "", refuse("character %q is not allowed in an IRI", r)
		}
	}
	if i := strings.IndexByte(iri, ':'); i <= 0 {
		return "", refuse("IRI %q is not absolute", clip(iri))
	}
	return "<" + iri + ">", nil
}

// literalText writes a literal with only the escapes every SPARQL engine
// reads the same way.
func literalText(lex, lang, dt string) (string, error) {
	if !utf8.ValidString(lex) {
		return "", refuse("a string is not valid UTF-8")
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range lex {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			return "", refuse("control character %U in a string", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	switch {
	case lang != "":
		if !langRE.MatchString(lang) {
			return "", refuse("bad language tag %q", clip(lang))
		}
		b.WriteString("@" + lang)
	case dt != "" && dt != xsdString:
		t, err := iriText(dt)
		if err != nil {
			return "", err
		}
		b.WriteString("^^" + t)
	}
	return b.String(), nil
}

const xsdNS = "http://www.w3.org/2001/XMLSchema#"

const xsdString = xsdNS + "string"

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
