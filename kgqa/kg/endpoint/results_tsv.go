package endpoint

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/parog/parog-go/internal/jsonscan"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// errUnread marks a tab-separated or XML body the client cannot read
// with certainty; it then asks the same query again as JSON.
var errUnread = errors.New("results not read")

// XSD datatypes of Turtle's bare literals.
const (
	xsdNS      = "http://www.w3.org/2001/XMLSchema#"
	xsdDecimal = xsdNS + "decimal"
	xsdDouble  = xsdNS + "double"
	xsdBoolean = xsdNS + "boolean"
	xsdInt     = xsdNS + "integer"
)

// parseResultsTSV reads SPARQL 1.1 Query Results TSV: a header line of
// ?variables, then one line a solution, its RDF terms in Turtle syntax
// separated by tabs, empty for unbound. It makes the nodes the JSON
// reading makes of the same result: an IRI and a blank node are their
// value (the label without "_:"), a literal its lexical form with its
// datatype (none for xsd:string) or language tag; Turtle's bare
// integers, decimals, doubles and booleans take their XSD datatype, their
// text as written. What it cannot read with certainty fails with
// ErrBadResponse and errUnread: a header that is not ?variables (such
// as Virtuoso 7's text/tab-separated-values, which quotes the names and
// writes IRIs and literals alike as quoted text, without datatype or
// language tag), a line whose columns do not match the header, a term of
// Turtle it does not read (a long or single-quoted string, a prefixed
// name), an escape naming no character, a datatype knakk/rdf refuses (the
// JSON reading gives it two readings), invalid UTF-8.
func parseResultsTSV(body []byte) (*backend.Table, error) {
	lines := bytes.Split(body, []byte{'\n'})
	if len(lines) > 1 && len(lines[len(lines)-1]) == 0 {
		// Every line ends with a newline; the last one may not.
		lines = lines[:len(lines)-1]
	}
	vars, err := tsvHeader(lines[0])
	if err != nil {
		return nil, err
	}
	t := &backend.Table{Vars: vars, Rows: make([]map[string]backend.Node, 0, len(lines)-1)}
	if len(vars) == 0 && len(lines) > 1 {
		return nil, tsvError("solutions of no variables")
	}
	var cols [][]byte
	r := &tsvReader{}
	for i, line := range lines[1:] {
		line = bytes.TrimSuffix(line, []byte{'\r'})
		cols = splitTabs(cols[:0], line)
		if len(cols) != len(vars) {
			return nil, tsvError(fmt.Sprintf("line %d has %d columns for %d variables", i+2, len(cols), len(vars)))
		}
		row := make(map[string]backend.Node, len(vars))
		for j, col := range cols {
			if len(col) == 0 {
				continue
			}
			n, err := r.term(col)
			if err != nil {
				return nil, tsvError(fmt.Sprintf("line %d, ?%s: %v: %.80q", i+2, vars[j], err, col))
			}
			row[vars[j]] = n
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

func tsvError(reason string) error {
	return fmt.Errorf("%w: %w: %s", backend.ErrBadResponse, errUnread, reason)
}

func splitTabs(cols [][]byte, line []byte) [][]byte {
	for {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			return append(cols, line)
		}
		cols = append(cols, line[:i])
		line = line[i+1:]
	}
}

// tsvHeader reads the variables of the header line.
func tsvHeader(line []byte) ([]string, error) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	vars := []string{}
	if len(line) == 0 {
		return vars, nil
	}
	for _, col := range bytes.Split(line, []byte{'\t'}) {
		if len(col) < 2 || (col[0] != '?' && col[0] != '$') || !varName(col[1:]) {
			return nil, tsvError(fmt.Sprintf("header is not SPARQL ?variables: %.80q", line))
		}
		name := string(col[1:])
		for _, v := range vars {
			if v == name {
				return nil, tsvError("variable ?" + name + " twice in the header")
			}
		}
		vars = append(vars, name)
	}
	return vars, nil
}

// varName says whether s is a variable name the engine writes: ASCII
// letters, digits and underscores (a wider name is left to JSON).
func varName(s []byte) bool {
	for _, c := range s {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// tsvReader reads the terms of one body; a literal's datatype and
// language tag repeat from row to row, so each is allocated once.
type tsvReader struct {
	datatypes, langs []string
	goodIRIs         checkedIRIs
}

// term reads one RDF term in Turtle syntax.
func (r *tsvReader) term(s []byte) (backend.Node, error) {
	if !utf8.Valid(s) {
		return backend.Node{}, errors.New("invalid UTF-8")
	}
	switch s[0] {
	case '<':
		v, rest, err := iriRef(s)
		if err != nil || len(rest) > 0 {
			return backend.Node{}, errors.Join(errors.New("bad IRI"), err)
		}
		return backend.Node{Kind: backend.NodeIRI, Value: v}, nil
	case '_':
		if len(s) < 3 || s[1] != ':' || !blankLabel(s[2:]) {
			return backend.Node{}, errors.New("bad blank node")
		}
		return backend.Node{Kind: backend.NodeBlank, Value: string(s[2:])}, nil
	case '"':
		return r.literal(s)
	}
	if dt := bareDatatype(s); dt != "" {
		return backend.Node{Kind: backend.NodeLiteral, Value: string(s), Datatype: dt}, nil
	}
	return backend.Node{}, errors.New("not a term this reader knows")
}

// iriRef reads <...> at the start of s, its \u and \U escapes decoded,
// and returns the rest of s.
func iriRef(s []byte) (string, []byte, error) {
	if end := bytes.IndexByte(s, '>'); end > 0 && plainIRI(s[1:end]) {
		return string(s[1:end]), s[end+1:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '>':
			return b.String(), s[i+1:], nil
		case c == '\\':
			r, n, err := uchar(s[i:])
			if err != nil {
				return "", nil, err
			}
			b.WriteRune(r)
			i += n
			continue
		case c <= ' ' || strings.IndexByte("<\"{}|^`", c) >= 0:
			return "", nil, fmt.Errorf("character %q in an IRI", c)
		}
		b.WriteByte(c)
		i++
	}
	return "", nil, errors.New("unterminated IRI")
}

// plainIRI says whether s holds no escape and no character an IRI may
// not hold raw.
func plainIRI(s []byte) bool {
	for _, c := range s {
		if c <= ' ' || c == '\\' || strings.IndexByte("<\"{}|^`", c) >= 0 {
			return false
		}
	}
	return true
}

// datatype reads the <datatype> at the start of s, allocated once per
// body.
func (r *tsvReader) datatype(s []byte) (string, []byte, error) {
	if end := bytes.IndexByte(s, '>'); end > 0 && plainIRI(s[1:end]) {
		return intern(&r.datatypes, s[1:end]), s[end+1:], nil
	}
	return iriRef(s)
}

// uchar decodes the \uXXXX or \UXXXXXXXX at the start of s and returns
// its length; a surrogate or a code point past Unicode is an error.
func uchar(s []byte) (rune, int, error) {
	n := 0
	switch {
	case len(s) > 1 && s[1] == 'u':
		n = 4
	case len(s) > 1 && s[1] == 'U':
		n = 8
	default:
		return 0, 0, errors.New("bad escape")
	}
	if len(s) < 2+n {
		return 0, 0, errors.New("short escape")
	}
	r, ok := jsonscan.Hex(s[2 : 2+n])
	if !ok {
		return 0, 0, errors.New("bad hex digit in escape")
	}
	if r > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
		return 0, 0, fmt.Errorf("escape U+%X names no character", r)
	}
	return r, 2 + n, nil
}

// literal reads "..." with its escapes, then @lang or ^^<datatype>.
func (r *tsvReader) literal(s []byte) (backend.Node, error) {
	if bytes.HasPrefix(s, []byte(`"""`)) && len(s) > 3 {
		return backend.Node{}, errors.New("long string")
	}
	if end := bytes.IndexByte(s[1:], '"'); end >= 0 && !bytes.ContainsAny(s[1:1+end], "\\\r\n") {
		return r.suffix(backend.Node{Kind: backend.NodeLiteral, Value: string(s[1 : 1+end])}, s[2+end:])
	}
	var b strings.Builder
	i := 1
	for ; ; i++ {
		if i >= len(s) {
			return backend.Node{}, errors.New("unterminated string")
		}
		c := s[i]
		if c == '"' {
			break
		}
		if c == '\r' || c == '\n' {
			return backend.Node{}, errors.New("raw line break in a string")
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return backend.Node{}, errors.New("unterminated string")
		}
		if e := strings.IndexByte(`tbnrf"'\`, s[i+1]); e >= 0 {
			b.WriteByte("\t\b\n\r\f\"'\\"[e])
			i++
			continue
		}
		r, n, err := uchar(s[i:])
		if err != nil {
			return backend.Node{}, err
		}
		b.WriteRune(r)
		i += n - 1
	}
	return r.suffix(backend.Node{Kind: backend.NodeLiteral, Value: b.String()}, s[i+1:])
}

// suffix reads what follows a string: nothing, @lang or ^^<datatype>.
func (r *tsvReader) suffix(n backend.Node, rest []byte) (backend.Node, error) {
	switch {
	case len(rest) == 0:
		return n, nil
	case rest[0] == '@':
		if !langTag(rest[1:]) {
			return backend.Node{}, errors.New("bad language tag")
		}
		n.Lang = intern(&r.langs, rest[1:])
		return n, nil
	case bytes.HasPrefix(rest, []byte("^^<")):
		dt, after, err := r.datatype(rest[2:])
		if err != nil || len(after) > 0 {
			return backend.Node{}, errors.Join(errors.New("bad datatype"), err)
		}
		if !r.goodIRIs.ok(dt) {
			return backend.Node{}, errors.New("a datatype knakk/rdf refuses")
		}
		if dt != xsdString {
			n.Datatype = dt
		}
		return n, nil
	}
	return backend.Node{}, errors.New("text after a string")
}

// langTag says whether s is a Turtle LANGTAG: [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*.
func langTag(s []byte) bool {
	for k, part := range bytes.Split(s, []byte{'-'}) {
		if len(part) == 0 {
			return false
		}
		for _, c := range part {
			letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if !letter && (k == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// blankLabel says whether s is a blank node label this reader takes:
// ASCII letters, digits, '_', '-' and '.' not at the end.
func blankLabel(s []byte) bool {
	if s[len(s)-1] == '.' || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// bareDatatype is the XSD datatype of a Turtle bare literal (true,
// false, an INTEGER, DECIMAL or DOUBLE), or "" when s is none.
func bareDatatype(s []byte) string {
	if string(s) == "true" || string(s) == "false" {
		return xsdBoolean
	}
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	mant, exp := s, []byte(nil)
	if i := bytes.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if !digits(exp) {
			return ""
		}
	}
	whole, frac, dot := bytes.Cut(mant, []byte{'.'})
	switch {
	case !dot && digits(whole) && exp == nil:
		return xsdInt
	case dot && (len(whole) == 0 || digits(whole)) && digits(frac) && exp == nil:
		return xsdDecimal
	case exp != nil && (digits(whole) && (!dot || len(frac) == 0 || digits(frac)) || len(whole) == 0 && dot && digits(frac)):
		return xsdDouble
	}
	return ""
}

func digits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(s) > 0
}
