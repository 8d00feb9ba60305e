package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Strictify returns schema in the form OpenAI's strict structured outputs
// accept: every object lists all its properties as required, in the order
// they are written, and a property the schema left optional may be null
// instead of absent. The reply decoders read null as absent, so a reply
// valid under either form decodes to the same value. Key order is kept,
// so that a property written first ("reason") is generated first.
//
// A schema that does not parse is returned unchanged. Results are
// remembered per schema text, as StrictCompatible's are.
func Strictify(schema json.RawMessage) json.RawMessage {
	strictMu.RLock()
	v, ok := strictified[string(schema)] // no copy of the schema for a lookup
	strictMu.RUnlock()
	if ok {
		return v
	}
	out := schema
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber() // numbers are written back as they were read, not through float64
	if n, err := parseOrdered(dec); err == nil {
		var buf bytes.Buffer
		strictifyNode(n).write(&buf)
		out = buf.Bytes()
	}
	strictMu.Lock()
	if len(strictified) < maxStrictSeen {
		strictified[string(schema)] = out
	}
	strictMu.Unlock()
	return out
}

// strictified maps schema text to its strict form, under strictMu.
var strictified = map[string]json.RawMessage{}

// node is a JSON value that keeps its object keys in order.
type node struct {
	keys   []string // object keys, in order; nil for a non-object
	fields map[string]*node
	items  []*node // array items; nil for a non-array
	isArr  bool
	raw    json.RawMessage // a scalar
}

func parseOrdered(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{fields: map[string]*node{}, keys: []string{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseOrdered(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := n.fields[k]; !dup {
					n.keys = append(n.keys, k)
				}
				n.fields[k] = v
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &node{isArr: true}
			for dec.More() {
				v, err := parseOrdered(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("llm: strictify: unexpected %v", t)
	default:
		b, err := json.Marshal(t)
		return &node{raw: b}, err
	}
}

func (n *node) write(w io.Writer) {
	switch {
	case n.fields != nil:
		_, _ = io.WriteString(w, "{")
		for i, k := range n.keys {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			kb, _ := json.Marshal(k)
			_, _ = w.Write(kb)
			_, _ = io.WriteString(w, ":")
			n.fields[k].write(w)
		}
		_, _ = io.WriteString(w, "}")
	case n.isArr:
		_, _ = io.WriteString(w, "[")
		for i, it := range n.items {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			it.write(w)
		}
		_, _ = io.WriteString(w, "]")
	default:
		_, _ = w.Write(n.raw)
	}
}

func str(s string) *node { b, _ := json.Marshal(s); return &node{raw: b} }

// set puts v at key k, appending k when it is new.
func (n *node) set(k string, v *node) {
	if _, ok := n.fields[k]; !ok {
		n.keys = append(n.keys, k)
	}
	n.fields[k] = v
}

// strictifyNode rewrites every object schema below n in place.
func strictifyNode(n *node) *node {
	for _, it := range n.items {
		strictifyNode(it)
	}
	for _, k := range n.keys {
		strictifyNode(n.fields[k])
	}
	props := n.fields["properties"]
	if n.fields == nil || props == nil || props.fields == nil {
		return n
	}
	required := map[string]bool{}
	if r := n.fields["required"]; r != nil {
		for _, it := range r.items {
			var s string
			if json.Unmarshal(it.raw, &s) == nil {
				required[s] = true
			}
		}
	}
	all := &node{isArr: true}
	for _, k := range props.keys {
		all.items = append(all.items, str(k))
		if !required[k] {
			props.fields[k] = nullable(props.fields[k])
		}
	}
	n.set("required", all)
	n.set("additionalProperties", &node{raw: json.RawMessage("false")})
	return n
}

// nullable lets a property schema also be null.
func nullable(p *node) *node {
	if p.fields == nil {
		return p
	}
	if t := p.fields["type"]; t != nil && p.fields["const"] == nil {
		if t.isArr {
			t.items = append(t.items, str("null"))
		} else {
			p.fields["type"] = &node{isArr: true, items: []*node{t, str("null")}}
		}
		if e := p.fields["enum"]; e != nil && e.isArr {
			e.items = append(e.items, &node{raw: json.RawMessage("null")})
		}
		return p
	}
	null := &node{fields: map[string]*node{"type": str("null")}, keys: []string{"type"}}
	return &node{fields: map[string]*node{"anyOf": {isArr: true, items: []*node{p, null}}}, keys: []string{"anyOf"}}
}
