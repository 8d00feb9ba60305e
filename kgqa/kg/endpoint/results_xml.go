package endpoint

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

// parseResultsXML reads SPARQL Query Results XML into the nodes the JSON
// reading makes of the same result. It reads the elements of the format
// alone, in their order, with the attributes endpoints write (Virtuoso's
// namespace declarations, distinct and ordered), and fails with
// ErrBadResponse and errUnread on anything else: a raw carriage return
// (an XML parser reads it as a newline; Virtuoso writes it raw), a
// character XML 1.0 forbids (Virtuoso writes a control character as
// `&#1;`), an unknown element, attribute or entity, text between
// elements, a binding named twice, a literal with both a datatype and a
// language tag, a datatype knakk/rdf refuses, an xsd:boolean (whose
// lexical form Virtuoso writes differently in JSON), a boolean (ASK)
// result.
func parseResultsXML(body []byte) (*backend.Table, error) {
	if bytes.IndexByte(body, '\r') >= 0 {
		return nil, xmlError("a raw carriage return")
	}
	r := &xmlReader{d: xml.NewDecoder(bytes.NewReader(body))}
	r.d.Strict = true
	t, err := r.document()
	if err != nil {
		return nil, xmlError(err.Error())
	}
	return t, nil
}

func xmlError(reason string) error {
	return fmt.Errorf("%w: %w: XML: %s", backend.ErrBadResponse, errUnread, reason)
}

// xmlReader reads one body token by token.
type xmlReader struct {
	d                *xml.Decoder
	datatypes, langs []string
	goodIRIs         checkedIRIs
}

// next returns the next start or end element, skipping white space, the
// XML declaration and comments.
func (r *xmlReader) next() (xml.Token, error) {
	for {
		tok, err := r.d.RawToken()
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement, xml.EndElement:
			return tok, nil
		case xml.CharData:
			if len(bytes.TrimLeft(tok, " \t\n")) > 0 {
				return nil, errors.New("text between elements")
			}
		case xml.Comment:
		case xml.ProcInst:
			if tok.Target != "xml" {
				return nil, errors.New("processing instruction")
			}
		default:
			return nil, fmt.Errorf("unexpected %T", tok)
		}
	}
}

// start reads the start of the element named name, with no attributes
// but those of allowed; "" reads whatever start comes.
func (r *xmlReader) start(name string, allowed ...string) (xml.StartElement, error) {
	tok, err := r.next()
	if err != nil {
		return xml.StartElement{}, err
	}
	se, ok := tok.(xml.StartElement)
	if !ok {
		return xml.StartElement{}, fmt.Errorf("want <%s>", name)
	}
	if se.Name.Space != "" || (name != "" && !named(se.Name, name)) {
		return xml.StartElement{}, fmt.Errorf("want <%s>, got <%s:%s>", name, se.Name.Space, se.Name.Local)
	}
	return se, checkAttrs(se, allowed)
}

// checkAttrs refuses an attribute of se outside allowed ("name",
// "xml:lang").
func checkAttrs(se xml.StartElement, allowed []string) error {
	for _, a := range se.Attr {
		full := a.Name.Local
		if a.Name.Space != "" {
			full = a.Name.Space + ":" + a.Name.Local
		}
		if !slices.Contains(allowed, full) {
			return fmt.Errorf("attribute %s:%s on <%s>", a.Name.Space, a.Name.Local, se.Name.Local)
		}
	}
	return nil
}

// end reads the end of the element named name.
func (r *xmlReader) end(name string) error {
	tok, err := r.next()
	if err != nil {
		return err
	}
	if ee, ok := tok.(xml.EndElement); !ok || !named(ee.Name, name) {
		return fmt.Errorf("want </%s>", name)
	}
	return nil
}

// startOrEnd reads either the start of an element named want or the end
// of the element named parent (then ok is false).
func (r *xmlReader) startOrEnd(want, parent string, allowed ...string) (se xml.StartElement, ok bool, err error) {
	tok, err := r.next()
	if err != nil {
		return se, false, err
	}
	switch tok := tok.(type) {
	case xml.EndElement:
		if !named(tok.Name, parent) {
			return se, false, fmt.Errorf("want </%s>", parent)
		}
		return se, false, nil
	case xml.StartElement:
		if !named(tok.Name, want) {
			return se, false, fmt.Errorf("want <%s> or </%s>", want, parent)
		}
		if err := checkAttrs(tok, allowed); err != nil {
			return se, false, err
		}
		return tok, true, nil
	}
	return se, false, errors.New("unexpected token")
}

// named says whether n is the format's element local (no prefix).
func named(n xml.Name, local string) bool { return n.Space == "" && n.Local == local }

func attr(se xml.StartElement, space, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

func (r *xmlReader) document() (*backend.Table, error) {
	if _, err := r.start("sparql", "xmlns", "xmlns:xsi", "xsi:schemaLocation"); err != nil {
		return nil, err
	}
	if _, err := r.start("head"); err != nil {
		return nil, err
	}
	t := &backend.Table{Vars: []string{}, Rows: []map[string]backend.Node{}}
	for {
		se, ok, err := r.startOrEnd("variable", "head", "name")
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		name, ok := attr(se, "", "name")
		if !ok {
			return nil, errors.New("<variable> without a name")
		}
		t.Vars = append(t.Vars, name)
		if err := r.end("variable"); err != nil {
			return nil, err
		}
	}
	if _, err := r.start("results", "distinct", "ordered"); err != nil {
		return nil, err
	}
	for {
		_, ok, err := r.startOrEnd("result", "results")
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		row, err := r.result()
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	if err := r.end("sparql"); err != nil {
		return nil, err
	}
	if _, err := r.next(); err != io.EOF {
		return nil, errors.New("content after </sparql>")
	}
	return t, nil
}

// result reads the bindings of one <result>, up to its end.
func (r *xmlReader) result() (map[string]backend.Node, error) {
	row := map[string]backend.Node{}
	for {
		se, ok, err := r.startOrEnd("binding", "result", "name")
		if err != nil {
			return nil, err
		}
		if !ok {
			return row, nil
		}
		name, ok := attr(se, "", "name")
		if !ok {
			return nil, errors.New("<binding> without a name")
		}
		if _, dup := row[name]; dup {
			return nil, fmt.Errorf("binding %q twice", name)
		}
		term, err := r.start("", "datatype", "xml:lang")
		if err != nil {
			return nil, err
		}
		text, err := r.text(term.Name.Local)
		if err != nil {
			return nil, err
		}
		n, err := r.node(term, text)
		if err != nil {
			return nil, err
		}
		row[name] = n
		if err := r.end("binding"); err != nil {
			return nil, err
		}
	}
}

// text reads the character data of a term up to its end.
func (r *xmlReader) text(name string) (string, error) {
	var b strings.Builder
	for {
		tok, err := r.d.RawToken()
		if err != nil {
			return "", err
		}
		switch tok := tok.(type) {
		case xml.CharData:
			b.Write(tok)
		case xml.EndElement:
			if !named(tok.Name, name) {
				return "", fmt.Errorf("want </%s>", name)
			}
			return b.String(), nil
		default:
			return "", fmt.Errorf("%T inside <%s>", tok, name)
		}
	}
}

// node makes the term read of the JSON reading's node.
func (r *xmlReader) node(se xml.StartElement, text string) (backend.Node, error) {
	dt, hasDT := attr(se, "", "datatype")
	lang, hasLang := attr(se, "xml", "lang")
	switch se.Name.Local {
	case "uri", "bnode":
		if hasDT || hasLang {
			return backend.Node{}, fmt.Errorf("<%s> with a datatype or language", se.Name.Local)
		}
		kind := backend.NodeIRI
		if se.Name.Local == "bnode" {
			kind = backend.NodeBlank
		}
		return backend.Node{Kind: kind, Value: text}, nil
	case "literal":
	default:
		return backend.Node{}, fmt.Errorf("unknown term <%s>", se.Name.Local)
	}
	n := backend.Node{Kind: backend.NodeLiteral, Value: text}
	switch {
	case hasDT && hasLang:
		return backend.Node{}, errors.New("literal with a datatype and a language tag")
	case hasLang:
		// An attribute's white space is normalised: a tag outside the
		// grammar may not be what the endpoint meant.
		if lang != "" && !langTag([]byte(lang)) {
			return backend.Node{}, fmt.Errorf("language tag %q", lang)
		}
		n.Lang = intern(&r.langs, lang)
	case hasDT:
		if !r.goodIRIs.ok(dt) {
			return backend.Node{}, errors.New("a datatype knakk/rdf refuses")
		}
		if dt == xsdBoolean {
			// Virtuoso writes xsd:boolean false as 0 in JSON and as
			// false in XML.
			return backend.Node{}, errors.New("an xsd:boolean")
		}
		if dt != xsdString {
			n.Datatype = intern(&r.datatypes, dt)
		}
	}
	return n, nil
}
