package compile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// maxQueryBytes bounds the compiled text: a node needed by several others
// is compiled once per use (each use binds its own variables), so a plan
// that shares much could grow past what an endpoint takes.
const maxQueryBytes = 64 << 10

// Compile returns the SPARQL SELECT of q in d's vocabulary: one variable,
// ?answer, bound to the answering node's result, DISTINCT.
func Compile(q *Query, d Dialect) (string, error) {
	v, err := newVocab(d)
	if err != nil {
		return "", err
	}
	c := &compiler{v: v, nodes: map[string]*Node{}}
	if err := c.index(q); err != nil {
		return "", err
	}
	body, err := c.node(q.Answer, "?"+AnswerVar, 1)
	if err != nil {
		return "", err
	}
	out := v.prefixes + "SELECT DISTINCT ?" + AnswerVar + " WHERE {\n" + body + "}\n"
	if len(out) > maxQueryBytes {
		return "", fmt.Errorf("%w: the query would be %d bytes, more than %d", ErrUnsupported, len(out), maxQueryBytes)
	}
	return out, nil
}

type compiler struct {
	v     *vocab
	nodes map[string]*Node
	n     int // fresh variables made
	size  int // bytes emitted, to stop runaway sharing early
}

// index checks that node ids are unique and that every node needs only
// nodes before it (so the plan is acyclic), and that the answer exists.
func (c *compiler) index(q *Query) error {
	if q == nil || len(q.Nodes) == 0 {
		return fmt.Errorf("%w: empty query", ErrUnsupported)
	}
	for i := range q.Nodes {
		n := &q.Nodes[i]
		if _, dup := c.nodes[n.ID]; dup {
			return fmt.Errorf("%w: duplicate node %q", ErrInvalid, clipText(n.ID))
		}
		for _, need := range n.Needs {
			if _, ok := c.nodes[need]; !ok {
				return fmt.Errorf("%w: node %q needs %q, which does not come before it", ErrInvalid, clipText(n.ID), clipText(need))
			}
		}
		if n.Bound != "" && !slices.Contains(n.Needs, n.Bound) {
			return fmt.Errorf("%w: node %q is bound by %q, which it does not need", ErrInvalid, clipText(n.ID), clipText(n.Bound))
		}
		c.nodes[n.ID] = n
	}
	if _, ok := c.nodes[q.Answer]; !ok {
		return fmt.Errorf("%w: answer node %q", ErrInvalid, clipText(q.Answer))
	}
	return nil
}

// fresh returns a new variable.
func (c *compiler) fresh(stem string) string {
	c.n++
	return "?" + stem + strconv.Itoa(c.n)
}

// node compiles node id as a pattern binding out (a variable) to its
// result.
func (c *compiler) node(id, out string, depth int) (string, error) {
	n := c.nodes[id]
	if c.size > maxQueryBytes {
		return "", fmt.Errorf("%w: the query grows past %d bytes", ErrUnsupported, maxQueryBytes)
	}
	var body string
	var err error
	switch {
	case len(n.Given) > 0:
		body, err = c.given(n, out)
	case n.Op == kgqa.OpFind:
		body, err = c.find(n, out, depth)
	case n.Op == kgqa.OpIntersect:
		body, err = c.groups(n.Needs, out, depth, "")
	case n.Op == kgqa.OpUnion:
		body, err = c.groups(n.Needs, out, depth, "UNION ")
	case n.Op == kgqa.OpCount:
		body, err = c.count(n, out, depth)
	case isConditionFilter(n):
		body, err = c.conditionFilter(n, out, depth)
	case (n.Op == kgqa.OpFilter || n.Op == kgqa.OpCompare) && n.Kind == KindText:
		body, err = c.textFilter(n, out, depth)
	case n.Op == kgqa.OpFilter && n.Kind == KindTerm:
		body, err = c.termFilter(n, out, depth)
	case n.Op == kgqa.OpFilter, n.Op == kgqa.OpCompare:
		body, err = c.compare(n, out, depth)
	case n.Op == kgqa.OpSuperlative:
		body, err = c.superlative(n, out, depth)
	default:
		err = fmt.Errorf("%w: op %q", ErrUnsupported, clipText(string(n.Op)))
	}
	if err == nil && n.Op != kgqa.OpFind && len(n.Given) == 0 {
		body, err = c.types(body, n.Types, out)
	}
	if err != nil {
		return "", fmt.Errorf("node %s: %w", clipText(id), err)
	}
	c.size += len(body)
	return body, nil
}

func indent(depth int) string { return strings.Repeat("  ", depth) }

// given binds out to the node's stated entities.
func (c *compiler) given(n *Node, out string) (string, error) {
	refs := make([]string, 0, len(n.Given))
	for _, id := range n.Given {
		r, err := c.v.entityRef(id)
		if err != nil {
			return "", err
		}
		refs = append(refs, r)
	}
	return "VALUES " + out + " { " + strings.Join(refs, " ") + " }\n", nil
}

// groups compiles each of ids as its own group binding out, joined (an
// intersection) or separated by sep ("UNION ").
func (c *compiler) groups(ids []string, out string, depth int, sep string) (string, error) {
	if len(ids) == 0 {
		return "", fmt.Errorf("%w: no needed node", ErrUnsupported)
	}
	var b strings.Builder
	for i, id := range ids {
		body, err := c.node(id, out, depth+1)
		if err != nil {
			return "", err
		}
		if i > 0 && sep != "" {
			b.WriteString(indent(depth) + sep + "\n")
		}
		b.WriteString(indent(depth) + "{\n" + prefixLines(body, depth+1) + indent(depth) + "}\n")
	}
	return b.String(), nil
}

// members binds out to the union of the nodes of ids.
func (c *compiler) members(ids []string, out string, depth int) (string, error) {
	if len(ids) == 1 {
		return c.node(ids[0], out, depth)
	}
	return c.groups(ids, out, depth, "UNION ")
}

// prefixLines indents every line of body that is not yet indented to
// depth.
func prefixLines(body string, depth int) string {
	lines := strings.SplitAfter(body, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, indent(depth)) {
			b.WriteString(indent(depth))
		}
		b.WriteString(l)
	}
	return b.String()
}

// find binds out to what the node's paths reach from its start: its
// anchors, or the union of its needs.
func (c *compiler) find(n *Node, out string, depth int) (string, error) {
	if len(n.Paths) == 0 && len(n.Types) > 0 && len(n.Needs) == 0 && len(n.Anchors) == 0 {
		return c.types("", n.Types, out) // every member of the types
	}
	if len(n.Paths) == 0 {
		return "", fmt.Errorf("%w: a find with no relation path", ErrUnsupported)
	}
	var b strings.Builder
	start := ""
	switch {
	case len(n.Needs) > 0:
		start = c.fresh("x")
		body, err := c.members(n.Needs, start, depth)
		if err != nil {
			return "", err
		}
		b.WriteString(body)
	case len(n.Anchors) == 1:
		r, err := c.v.entityRef(n.Anchors[0])
		if err != nil {
			return "", err
		}
		start = r
	case len(n.Anchors) > 1:
		start = c.fresh("x")
		body, err := c.given(&Node{Given: n.Anchors}, start)
		if err != nil {
			return "", err
		}
		b.WriteString(body)
	case n.Value != "":
		lit, filter, err := c.literalStart(n)
		if err != nil {
			return "", err
		}
		start = lit
		b.WriteString(filter)
	default:
		return "", fmt.Errorf("%w: a find with neither anchors nor needs", ErrUnsupported)
	}
	paths, err := c.paths(n.Paths, start, out, n.Qualifiers, depth)
	if err != nil {
		return "", err
	}
	b.WriteString(paths)
	return c.types(b.String(), n.Types, out)
}

// types appends to body the patterns that out has each of types.
func (c *compiler) types(body string, types []string, out string) (string, error) {
	for _, t := range types {
		r, err := c.v.typeRef(t)
		if err != nil {
			return "", err
		}
		body += out + " " + c.v.typePred + " " + r + " .\n"
	}
	return body, nil
}

// paths binds to the terms any of ps reaches from from.
func (c *compiler) paths(ps []Path, from, to string, quals []Qualifier, depth int) (string, error) {
	if len(ps) == 1 {
		return c.path(ps[0], from, to, quals)
	}
	var b strings.Builder
	for i, p := range ps {
		body, err := c.path(p, from, to, quals)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString("UNION\n")
		}
		b.WriteString("{\n" + prefixLines(body, 1) + "}\n")
	}
	_ = depth
	return b.String(), nil
}

// path binds to (a variable or a constant) to what p reaches from from.
func (c *compiler) path(p Path, from, to string, quals []Qualifier) (string, error) {
	if len(p) == 0 || len(p) > maxHops {
		return "", fmt.Errorf("%w: a path of %d hops", ErrUnsupported, len(p))
	}
	var b strings.Builder
	at := from
	for i := 0; i < len(p); i++ {
		mediated := p[i].Mediator && i+1 < len(p)
		step := 1
		if mediated {
			step = 2
		}
		next := to
		if i+step < len(p) {
			next = c.fresh("y")
		}
		var s string
		var err error
		if mediated {
			s, err = c.mediated(p[i:i+2], at, next, quals)
		} else {
			s, err = c.hop(c.v.direct, p[i], at, next)
		}
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		at, i = next, i+step-1
	}
	return b.String(), nil
}

// maxHops bounds a path's length.
const maxHops = 8

// hop is one triple pattern from from to to along h.
func (c *compiler) hop(prefix string, h Hop, from, to string) (string, error) {
	if h.Any {
		if err := checkDir(h.Dir); err != nil {
			return "", err
		}
		p := c.fresh("p")
		if h.Dir == kgqa.In {
			return to + " " + p + " " + from + " .\n", nil
		}
		return from + " " + p + " " + to + " .\n", nil
	}
	if err := checkDir(h.Dir); err != nil {
		return "", err
	}
	r, err := c.v.relationRef(prefix, h.Relation)
	if err != nil {
		return "", err
	}
	if h.Dir == kgqa.In {
		return to + " " + r + " " + from + " .\n", nil
	}
	return from + " " + r + " " + to + " .\n", nil
}

// mediated crosses a mediator: a Freebase CVT node (the second hop not
// leading back to from, as the KG's mediator expansion reads it) or a
// Wikidata statement (p:, then ps: for the main value or the subject and
// pq: for a qualifier; deprecated statements left out).
func (c *compiler) mediated(p Path, from, to string, quals []Qualifier) (string, error) {
	m := c.fresh("m")
	var b strings.Builder
	if !c.v.wikidata {
		for i, h := range p {
			a, z := from, m
			if i == 1 {
				a, z = m, to
			}
			s, err := c.hop(c.v.direct, h, a, z)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		b.WriteString("FILTER(" + c.v.inExpr(to) + " != " + c.v.inExpr(from) + ")\n")
	} else {
		s, err := c.statement(p, from, to, m)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	s, err := c.qualifiers(quals, m)
	if err != nil {
		return "", err
	}
	b.WriteString(s)
	return b.String(), nil
}

func (c *compiler) qualifierPrefix() string {
	if c.v.wikidata {
		return "pq:"
	}
	return c.v.direct
}

// statement is a Wikidata two-hop path through statement node m.
func (c *compiler) statement(p Path, from, to, m string) (string, error) {
	first, second := p[0], p[1]
	var b strings.Builder
	claim, err := c.v.relationRef("p:", first.Relation)
	if err != nil {
		return "", err
	}
	stmt, _ := c.v.relationRef("ps:", first.Relation)
	if err := checkDir(first.Dir); err != nil {
		return "", err
	}
	if err := checkDir(second.Dir); err != nil {
		return "", err
	}
	if first.Dir == kgqa.Out {
		b.WriteString(from + " " + claim + " " + m + " .\n")
	} else {
		b.WriteString(m + " " + stmt + " " + from + " .\n")
	}
	switch {
	case second.Dir == kgqa.In && second.Relation == first.Relation:
		b.WriteString(to + " " + claim + " " + m + " .\n") // the subject
	case second.Relation == first.Relation:
		b.WriteString(m + " " + stmt + " " + to + " .\n") // the main value
	default:
		q, err := c.v.relationRef("pq:", second.Relation)
		if err != nil {
			return "", err
		}
		b.WriteString(m + " " + q + " " + to + " .\n")
	}
	b.WriteString("FILTER NOT EXISTS { " + m + " wikibase:rank wikibase:DeprecatedRank }\n")
	return b.String(), nil
}

// count binds out to the number of distinct members of the needs.
func (c *compiler) count(n *Node, out string, depth int) (string, error) {
	x := c.fresh("c")
	body, err := c.members(n.Needs, x, depth+1)
	if err != nil {
		return "", err
	}
	return "{\n  SELECT (COUNT(DISTINCT " + x + ") AS " + out + ") WHERE {\n" + prefixLines(body, 2) + "  }\n}\n", nil
}
