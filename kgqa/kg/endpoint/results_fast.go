package endpoint

import (
	"github.com/parog/parog-go/internal/jsonscan"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// decodeResults reads SPARQL 1.1 Query Results JSON in one pass straight
// into backend nodes, with package jsonscan. It reads only the documents
// it reads exactly as parseResultsKnakk does and reports ok false for
// anything else (a key it does not know or meets twice, a key outside
// printable ASCII or with escapes, null, a value of another JSON type,
// text after the document, a term knakk/rdf would normalise or refuse,
// anything malformed), so that its caller hands the whole body to the
// reference path, which then gives the result or the error.
func decodeResults(body []byte) (t *backend.Table, ok bool) {
	d := decoder{s: jsonscan.New(body)}
	if !d.document() || !d.s.End() || !d.hasBindings {
		return nil, false
	}
	return &backend.Table{Vars: d.vars, Rows: d.rows}, true
}

// decoder reads one body.
type decoder struct {
	s *jsonscan.Scanner
	// buf holds the string just read when it is compared, not kept.
	buf []byte
	// names are the variable names met so far, and datatypes and langs
	// the datatypes and language tags: a row's key and a literal's
	// datatype repeat from row to row, so each is allocated once.
	names, datatypes, langs []string
	// goodIRIs are the datatypes knakk/rdf accepted as IRIs.
	goodIRIs checkedIRIs

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
	return d.s.Object(func(key []byte) bool {
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
	return d.s.Object(func(key []byte) bool {
		switch string(key) {
		case "vars":
			d.vars = []string{}
			return seen.first(1) && d.s.Array(func(int) bool {
				ok := d.str()
				if ok {
					d.vars = append(d.vars, d.name(d.buf))
				}
				return ok
			})
		case "link":
			return seen.first(2) && d.s.Array(func(int) bool { return d.str() })
		}
		return false
	})
}

func (d *decoder) results() bool {
	var seen once
	return d.s.Object(func(key []byte) bool {
		switch string(key) {
		case "bindings":
			d.hasBindings = true
			d.rows = []map[string]backend.Node{}
			return seen.first(1) && d.s.Array(d.row)
		case "distinct":
			return seen.first(2) && d.boolean()
		case "ordered":
			return seen.first(4) && d.boolean()
		}
		return false
	})
}

// boolean reads true or false (encoding/json fails a bool field on any
// other value).
func (d *decoder) boolean() bool {
	c := d.s.Peek()
	return (c == 't' || c == 'f') && d.s.Skip()
}

// row reads one solution. Its values are gathered in one arena and become
// one string when the row ends: one allocation for all of a row's values,
// which a node kept alive keeps alive together, never the whole body.
func (d *decoder) row(int) bool {
	d.pending, d.arena = d.pending[:0], d.arena[:0]
	ok := d.s.Object(func(key []byte) bool {
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
	ok := d.s.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			ok := d.str()
			typ = termType(d.buf)
			return ok && seen.first(1)
		case "value":
			var ok bool
			d.arena, ok = d.s.AppendStr(d.arena)
			to = len(d.arena)
			return ok && seen.first(2)
		case "datatype":
			ok := d.str()
			datatype = intern(&d.datatypes, d.buf)
			return ok && seen.first(4)
		case "xml:lang":
			ok := d.str()
			lang = intern(&d.langs, d.buf)
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
	if !d.goodIRIs.ok(datatype) {
		return backend.Node{}, false
	}
	if datatype == xsdString {
		datatype = ""
	}
	return backend.Node{Kind: backend.NodeLiteral, Datatype: datatype}, true
}

// name returns a variable name, allocated once per decoder.
func (d *decoder) name(s []byte) string {
	return intern(&d.names, s)
}

// str reads a string into buf.
func (d *decoder) str() bool {
	var ok bool
	d.buf, ok = d.s.AppendStr(d.buf[:0])
	return ok
}
