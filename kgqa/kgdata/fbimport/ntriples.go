// Package fbimport turns Freebase data into N-Triples that both KG backends
// load: the official dump (filtered and sharded for parallel bulk load),
// FB15k-237 (with its mediator nodes rebuilt), and a generator of lines in
// the dump's shapes for measuring the dump importer.
//
// Bad input is never fatal line by line: a line that is not N-Triples is
// counted with its file and line number and the import goes on.
package fbimport

import (
	"fmt"
	"strings"
)

// NS is the namespace of Freebase ids and relations.
const NS = "http://rdf.freebase.com/ns/"

// NameRelation is the relation holding an entity's name.
const NameRelation = "type.object.name"

// BadLine is one input line left out because it could not be read.
type BadLine struct {
	// File is the input file (or archive member) the line came from.
	File string `json:"file"`
	// Line is the 1-based line number in File.
	Line int64 `json:"line"`
	// Reason says what was wrong with it.
	Reason string `json:"reason"`
}

func (b BadLine) String() string { return fmt.Sprintf("%s:%d: %s", b.File, b.Line, b.Reason) }

// maxExamples bounds how many bad lines a report lists; all are counted.
const maxExamples = 50

// Problems counts bad lines and keeps the first few as examples.
type Problems struct {
	// Count is the number of bad lines.
	Count int64 `json:"count"`
	// Examples are the first bad lines, in input order.
	Examples []BadLine `json:"examples,omitempty"`
}

func (p *Problems) add(b BadLine) {
	p.Count++
	if len(p.Examples) < maxExamples {
		p.Examples = append(p.Examples, b)
	}
}

// Object kinds of a parsed triple.
const (
	objIRI     = 'i'
	objBlank   = 'b'
	objLiteral = 'l'
)

// triple is one parsed N-Triples statement; the slices alias the line.
type triple struct {
	s, p   []byte // subject (IRI without brackets, or "_:label") and predicate IRI
	o      []byte // object IRI without brackets, blank label, or literal lexical form (escaped)
	oKind  byte
	lang   []byte // a literal's language tag
	dtype  []byte // a literal's datatype IRI
	sBlank bool
}

// parseTriple reads one N-Triples line (no newline). It returns "" and
// fills t, or a reason the line is not N-Triples. Blank and comment lines
// give errSkip.
func parseTriple(line []byte, t *triple) string {
	i := skipWS(line, 0)
	if i == len(line) || line[i] == '#' {
		return errSkip
	}
	*t = triple{}
	var why string
	if line[i] == '_' {
		t.s, i, why = blankNode(line, i)
		t.sBlank = true
	} else {
		t.s, i, why = iri(line, i, "subject")
	}
	if why != "" {
		return why
	}
	i = skipWS(line, i)
	if t.p, i, why = iri(line, i, "predicate"); why != "" {
		return why
	}
	i = skipWS(line, i)
	if i == len(line) {
		return "missing object"
	}
	switch line[i] {
	case '<':
		t.oKind = objIRI
		t.o, i, why = iri(line, i, "object")
	case '_':
		t.oKind = objBlank
		t.o, i, why = blankNode(line, i)
	case '"':
		t.oKind = objLiteral
		i, why = literal(line, i, t)
	default:
		return "object is not an IRI, blank node or literal"
	}
	if why != "" {
		return why
	}
	i = skipWS(line, i)
	if i == len(line) || line[i] != '.' {
		return "missing final '.'"
	}
	i = skipWS(line, i+1)
	if i < len(line) && line[i] != '#' {
		return "text after the final '.'"
	}
	return ""
}

// errSkip marks a blank or comment line: not a statement, not an error.
const errSkip = "\x00skip"

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// iri reads <...> at i and returns its content.
func iri(b []byte, i int, role string) ([]byte, int, string) {
	if i >= len(b) || b[i] != '<' {
		return nil, i, role + " is not an IRI"
	}
	start := i + 1
	for j := start; j < len(b); j++ {
		c := b[j]
		switch {
		case c == '>':
			if j == start {
				return nil, j, "empty " + role + " IRI"
			}
			return b[start:j], j + 1, ""
		case c <= ' ':
			if c == ' ' {
				return nil, j, role + " IRI contains a space"
			}
			return nil, j, role + " IRI contains a control character"
		case c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`':
			return nil, j, fmt.Sprintf("%s IRI contains %q", role, c)
		case c == '\\':
			n, ok := uchar(b, j)
			if !ok {
				return nil, j, role + " IRI has a bad \\u escape"
			}
			j += n - 1
		}
	}
	return nil, len(b), role + " IRI is not closed with '>'"
}

// blankNode reads _:label at i.
func blankNode(b []byte, i int) ([]byte, int, string) {
	if i+2 >= len(b) || b[i+1] != ':' {
		return nil, i, "bad blank node"
	}
	j := i + 2
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], j, ""
}

// literal reads "..." with its optional @lang or ^^<datatype> into t.
func literal(b []byte, i int, t *triple) (int, string) {
	start := i + 1
	j := start
	for ; j < len(b); j++ {
		c := b[j]
		if c == '"' {
			break
		}
		if c == '\n' || c == '\r' {
			return j, "raw line break in a literal"
		}
		if c == '\\' {
			if j+1 >= len(b) {
				return j, "literal ends in a lone backslash"
			}
			switch b[j+1] {
			case 't', 'b', 'n', 'r', 'f', '"', '\'', '\\':
				j++
			case 'u', 'U':
				n, ok := uchar(b, j)
				if !ok {
					return j, "literal has a bad \\u escape"
				}
				j += n - 1
			default:
				return j, fmt.Sprintf("literal has a bad escape \\%c", b[j+1])
			}
		}
	}
	if j >= len(b) {
		return j, "literal is not closed with '\"'"
	}
	t.o = b[start:j]
	j++
	switch {
	case j < len(b) && b[j] == '@':
		k := j + 1
		for k < len(b) && (isAlnum(b[k]) || b[k] == '-') {
			k++
		}
		if k == j+1 || !isAlpha(b[j+1]) {
			return k, "literal has an empty or bad language tag"
		}
		t.lang = b[j+1 : k]
		return k, ""
	case j+1 < len(b) && b[j] == '^' && b[j+1] == '^':
		dt, k, why := iri(b, j+2, "datatype")
		t.dtype = dt
		return k, why
	}
	return j, ""
}

// uchar checks \uXXXX or \UXXXXXXXX at i and returns its length.
func uchar(b []byte, i int) (int, bool) {
	if i+1 >= len(b) {
		return 0, false
	}
	n := 0
	switch b[i+1] {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, false
	}
	if i+2+n > len(b) {
		return 0, false
	}
	for _, c := range b[i+2 : i+2+n] {
		if !isHex(c) {
			return 0, false
		}
	}
	return n + 2, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// escapeLiteral writes s as the inside of an N-Triples string literal.
func escapeLiteral(s string) string {
	if !strings.ContainsAny(s, "\"\\\n\r\t") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
