package endpoint

import (
	"unicode/utf8"

	"github.com/knakk/rdf"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// decodeResults reads SPARQL 1.1 Query Results JSON in one pass straight
// into backend nodes. It reads only the documents it reads exactly as
// parseResultsKnakk does and reports ok false for anything else (a key it
// does not know or meets twice, null, a value of another JSON type,
// invalid UTF-8, a lone surrogate escape, text after the document, a term
// knakk/rdf would normalise or refuse, or anything malformed), so that its
// caller hands the whole body to the reference path, which then gives the
// result or the error.
func decodeResults(body []byte) (t *backend.Table, ok bool) {
	d := decoder{b: body}
	if !d.document() {
		return nil, false
	}
	d.space()
	if d.i != len(d.b) || !d.hasBindings {
		return nil, false
	}
	return &backend.Table{Vars: d.vars, Rows: d.rows}, true
}

// decoder is the cursor of decodeResults over one body.
type decoder struct {
	b []byte
	i int
	// buf holds a string whose escapes were decoded; it is valid until
	// the next string.
	buf []byte
	// names are the variable names met so far, and datatypes and langs
	// the datatypes and language tags: a row's key and a literal's
	// datatype repeat from row to row, so each is allocated once.
	names, datatypes, langs []string
	// goodDatatype is the last datatype knakk/rdf accepted as an IRI.
	goodDatatype string

	vars        []string
	rows        []map[string]backend.Node
	hasBindings bool
	// pending are the current row's bindings, their values as offsets
	// into arena until the row ends.
	pending []pendingNode
	arena   []byte
}

// pendingNode is a binding of the current row whose value lies at
// arena[from:to].
type pendingNode struct {
	name     string
	node     backend.Node
	from, to int
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and consumes c.
func (d *decoder) next(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads an object whose values field reads, after the key (valid
// until the next string) and its colon.
func (d *decoder) object(field func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		key, ok := d.str()
		if !ok || !d.next(':') || !field(key) {
			return false
		}
		if d.next('}') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// array reads an array whose elements elem reads.
func (d *decoder) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.next(']') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// once is a set of the keys of one object met so far; a repeated key
// (which encoding/json reads as "the last one wins", merging objects)
// is left to the reference path.
type once uint8

func (s *once) first(bit once) bool {
	if *s&bit != 0 {
		return false
	}
	*s |= bit
	return true
}

func (d *decoder) document() bool {
	var seen once
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "head":
			return seen.first(1) && d.head()
		case "results":
			return seen.first(2) && d.results()
		case "boolean":
			return seen.first(4) && d.boolean()
		}
		return false
	})
}

func (d *decoder) head() bool {
	var seen once
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "vars":
			d.vars = []string{}
			return seen.first(1) && d.array(func() bool {
				s, ok := d.str()
				if ok {
					d.vars = append(d.vars, d.name(s))
				}
				return ok
			})
		case "link":
			return seen.first(2) && d.array(func() bool {
				_, ok := d.str()
				return ok
			})
		}
		return false
	})
}

func (d *decoder) results() bool {
	var seen once
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "bindings":
			d.hasBindings = true
			d.rows = []map[string]backend.Node{}
			return seen.first(1) && d.array(d.row)
		case "distinct":
			return seen.first(2) && d.boolean()
		case "ordered":
			return seen.first(4) && d.boolean()
		}
		return false
	})
}

func (d *decoder) boolean() bool {
	d.space()
	for _, lit := range []string{"true", "false"} {
		if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
			d.i += len(lit)
			return true
		}
	}
	return false
}

// row reads one solution. Its values are gathered in one arena and become
// one string when the row ends: one allocation for all of a row's values,
// which a node kept alive keeps alive together, never the whole body.
func (d *decoder) row() bool {
	d.pending, d.arena = d.pending[:0], d.arena[:0]
	ok := d.object(func(key []byte) bool {
		name := d.name(key)
		for _, p := range d.pending {
			if p.name == name {
				return false
			}
		}
		return d.binding(name)
	})
	if !ok {
		return false
	}
	values := string(d.arena)
	row := make(map[string]backend.Node, len(d.pending))
	for _, p := range d.pending {
		p.node.Value = values[p.from:p.to]
		row[p.name] = p.node
	}
	d.rows = append(d.rows, row)
	return true
}

// Binding types.
const (
	typeNone = iota
	typeURI
	typeBnode
	typeLiteral
	typeTypedLiteral
)

// binding reads the term bound to name and queues it on the current row.
func (d *decoder) binding(name string) bool {
	var seen once
	typ, datatype, lang := typeNone, "", ""
	from, to := len(d.arena), len(d.arena)
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			s, ok := d.str()
			typ = termType(s)
			return ok && seen.first(1)
		case "value":
			s, ok := d.str()
			d.arena = append(d.arena, s...)
			to = len(d.arena)
			return ok && seen.first(2)
		case "datatype":
			s, ok := d.str()
			datatype = intern(&d.datatypes, s)
			return ok && seen.first(4)
		case "xml:lang":
			s, ok := d.str()
			lang = intern(&d.langs, s)
			return ok && seen.first(8)
		}
		return false
	})
	if !ok {
		return false
	}
	node, ok := d.term(typ, datatype, lang)
	d.pending = append(d.pending, pendingNode{name: name, node: node, from: from, to: to})
	return ok
}

func termType(s []byte) int {
	switch string(s) {
	case "uri":
		return typeURI
	case "bnode":
		return typeBnode
	case "literal":
		return typeLiteral
	case "typed-literal":
		return typeTypedLiteral
	}
	return typeNone
}

// term is the node, without its value, that parseResultsKnakk makes of a
// binding, for the bindings it reads in one way only: an IRI and a blank
// node are their value whatever knakk/rdf makes of them; a literal with a
// language tag drops its datatype; a typed literal keeps a datatype that
// knakk/rdf accepts as an IRI, xsd:string read as none. Left to it: an
// unknown type, a datatype it refuses (a "literal" loses it, a
// "typed-literal" keeps it), a typed literal with a language tag.
func (d *decoder) term(typ int, datatype, lang string) (backend.Node, bool) {
	switch typ {
	case typeURI:
		return backend.Node{Kind: backend.NodeIRI}, true
	case typeBnode:
		return backend.Node{Kind: backend.NodeBlank}, true
	case typeLiteral:
		if lang != "" {
			return backend.Node{Kind: backend.NodeLiteral, Lang: lang}, true
		}
		if datatype == "" {
			return backend.Node{Kind: backend.NodeLiteral}, true
		}
	case typeTypedLiteral:
		if lang != "" {
			return backend.Node{}, false
		}
	default:
		return backend.Node{}, false
	}
	if !d.iri(datatype) {
		return backend.Node{}, false
	}
	if datatype == xsdString {
		datatype = ""
	}
	return backend.Node{Kind: backend.NodeLiteral, Datatype: datatype}, true
}

// iri says whether knakk/rdf accepts s as an IRI.
func (d *decoder) iri(s string) bool {
	if s != "" && s == d.goodDatatype {
		return true
	}
	if _, err := rdf.NewIRI(s); err != nil {
		return false
	}
	d.goodDatatype = s
	return true
}

// name returns a variable name, allocated once per decoder.
func (d *decoder) name(s []byte) string {
	return intern(&d.names, s)
}

// intern returns s from seen, adding it while seen is short; past that
// a string is allocated each time rather than searched for at length.
func intern(seen *[]string, s []byte) string {
	for _, v := range *seen {
		if v == string(s) {
			return v
		}
	}
	v := string(s)
	if len(*seen) < 16 {
		*seen = append(*seen, v)
	}
	return v
}

// str reads a string. Its bytes lie in the body, or in d.buf when it has
// escapes; either way they are valid until the next string.
func (d *decoder) str() ([]byte, bool) {
	if !d.next('"') {
		return nil, false
	}
	start, ascii := d.i, true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return nil, false
}

// escaped reads the rest of a string from its first backslash at d.i,
// decoding escapes into d.buf as encoding/json does. A lone or reversed
// surrogate (which encoding/json turns into U+FFFD) is left to the
// reference path.
func (d *decoder) escaped(start int) ([]byte, bool) {
	d.buf = append(d.buf[:0], d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.buf, utf8.Valid(d.buf)
		case c < 0x20:
			return nil, false
		case c != '\\':
			d.buf = append(d.buf, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return nil, false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			d.buf = append(d.buf, e)
		case 'b':
			d.buf = append(d.buf, '\b')
		case 'f':
			d.buf = append(d.buf, '\f')
		case 'n':
			d.buf = append(d.buf, '\n')
		case 'r':
			d.buf = append(d.buf, '\r')
		case 't':
			d.buf = append(d.buf, '\t')
		case 'u':
			r, ok := d.codePoint()
			if !ok {
				return nil, false
			}
			d.buf = utf8.AppendRune(d.buf, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

// codePoint reads the hex digits of a \u escape at d.i, and the low half's
// escape after a high surrogate.
func (d *decoder) codePoint() (rune, bool) {
	r, ok := d.hex4()
	switch {
	case !ok || 0xDC00 <= r && r < 0xE000:
		return 0, false
	case r < 0xD800 || r >= 0xE000:
		return r, true
	}
	if d.i+2 > len(d.b) || d.b[d.i] != '\\' || d.b[d.i+1] != 'u' {
		return 0, false
	}
	d.i += 2
	lo, ok := d.hex4()
	if !ok || lo < 0xDC00 || lo >= 0xE000 {
		return 0, false
	}
	return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), true
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}
