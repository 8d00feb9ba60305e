package endpoint

import (
	"bytes"
	"fmt"

	"github.com/knakk/rdf"
	"github.com/knakk/sparql"

	"github.com/parog/parog-go/kgqa/kg/backend"
)

const xsdString = "http://www.w3.org/2001/XMLSchema#string"

// parseResultsJSON reads SPARQL 1.1 Query Results JSON with knakk/sparql
// into knakk/rdf terms, then into backend nodes. A binding knakk/rdf cannot
// hold (an IRI with a character it refuses, a language tag with two
// dashes such as "be-x-old") keeps the endpoint's own reading of it; a
// binding of no known type fails the whole result.
func parseResultsJSON(body []byte) (*backend.Table, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '<' {
		return nil, fmt.Errorf("%w: got markup instead of SPARQL JSON results: %.80s", backend.ErrBadResponse, trimmed)
	}
	res, err := sparql.ParseJSON(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: malformed or truncated JSON: %v", backend.ErrBadResponse, err)
	}
	raw := res.Results.Bindings
	if raw == nil {
		return nil, fmt.Errorf("%w: JSON without results.bindings", backend.ErrBadResponse)
	}
	t := &backend.Table{Vars: res.Head.Vars, Rows: make([]map[string]backend.Node, 0, len(raw))}
	for i, sol := range res.Solutions() {
		row := make(map[string]backend.Node, len(raw[i]))
		for k, b := range raw[i] {
			if term, ok := sol[k]; ok {
				row[k] = fromRDF(term)
				continue
			}
			n, ok := fromBinding(b.Type, b.Value, b.DataType, b.Lang)
			if !ok {
				return nil, fmt.Errorf("%w: unknown term type %q", backend.ErrBadResponse, b.Type)
			}
			row[k] = n
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// fromRDF maps a knakk/rdf term to a node; plain and language-tagged
// strings carry no datatype.
func fromRDF(term rdf.Term) backend.Node {
	switch term := term.(type) {
	case rdf.IRI:
		return backend.Node{Kind: backend.NodeIRI, Value: term.String()}
	case rdf.Blank:
		return backend.Node{Kind: backend.NodeBlank, Value: term.String()}
	case rdf.Literal:
		n := backend.Node{Kind: backend.NodeLiteral, Value: term.String(), Lang: term.Lang()}
		if n.Lang == "" && term.DataType.String() != xsdString {
			n.Datatype = term.DataType.String()
		}
		return n
	}
	return backend.Node{}
}

// fromBinding reads a binding as the endpoint wrote it.
func fromBinding(typ, value, datatype, lang string) (backend.Node, bool) {
	switch typ {
	case "uri":
		return backend.Node{Kind: backend.NodeIRI, Value: value}, true
	case "bnode":
		return backend.Node{Kind: backend.NodeBlank, Value: value}, true
	case "literal", "typed-literal":
		if datatype == xsdString || lang != "" {
			datatype = ""
		}
		return backend.Node{Kind: backend.NodeLiteral, Value: value, Datatype: datatype, Lang: lang}, true
	}
	return backend.Node{}, false
}
