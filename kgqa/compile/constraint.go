package compile

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// Comparison operators a constraint may use.
var comparisons = map[string]bool{"<": true, "<=": true, ">": true, ">=": true, "=": true}

// key is the expression a value variable compares by: a number, or an
// ISO date padded to its first day ("1990" and "1990-01-01" compare
// equal, as the engine compares dates of different precision).
func key(kind ValueKind, v string) string {
	switch kind {
	case KindNumber:
		return "xsd:double(STR(" + v + "))"
	case KindDate:
		return `SUBSTR(CONCAT(STR(` + v + `), "-01-01"), 1, 10)`
	}
	return v
}

// guard keeps only values of the kind: a date key of a value that is not
// a date would compare as a string.
func guard(kind ValueKind, v string) string {
	if kind == KindDate {
		return `FILTER(REGEX(STR(` + v + `), "^[0-9]{4}(-[0-9]{2}){0,2}([T ].*)?Z?$"))` + "\n"
	}
	return ""
}

// constant prints a compare's constant in kind.
func constant(kind ValueKind, s string) (string, error) {
	switch kind {
	case KindNumber:
		return numberLit(s)
	case KindDate:
		return dateLit(s)
	}
	return nativeLit(s)
}

// memberSet binds out to the members a constraint keeps from: the union
// of its needs, the bound excepted.
func (c *compiler) memberSet(n *Node, out string, depth int) (string, error) {
	var ids []string
	for _, id := range n.Needs {
		if id != n.Bound {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("%w: a constraint with no member set", ErrUnsupported)
	}
	return c.members(ids, out, depth)
}

// value binds val to a member's value: the member itself when the node
// reads no attribute (its members are literals), else what the attribute
// paths reach.
func (c *compiler) value(n *Node, member, val string, depth int) (string, string, error) {
	if len(n.Attribute) == 0 {
		return "", member, nil
	}
	if n.Dated != nil {
		s, err := c.dated(n.Attribute, n.Dated, member, val)
		return s, val, err
	}
	s, err := c.paths(n.Attribute, member, val, nil, depth)
	return s, val, err
}

var statedTime = regexp.MustCompile(`^[0-9]{4}(-[0-9]{2}){0,2}$`)

// dated binds val to the values of member's dated mediators that count:
// each path is a mediated pair, the mediator carries a date along
// d.DateRelation, and the date is one of d.Times or, with none, no other
// mediator of the member along the same relation is later.
func (c *compiler) dated(ps []Path, d *Dated, member, val string) (string, error) {
	var alts []string
	for _, p := range ps {
		if len(p) != 2 || !p[0].Mediator {
			return "", fmt.Errorf("%w: a dated value not on a mediator", ErrUnsupported)
		}
		m, date := c.fresh("m"), c.fresh("d")
		lines, err := c.datedHops(p, d, member, m, val, date)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString(strings.Join(lines, ""))
		b.WriteString(guard(KindDate, date))
		if len(d.Times) > 0 {
			var conds []string
			for _, t := range d.Times {
				if !statedTime.MatchString(t) {
					return "", fmt.Errorf("%w: stated time %q", ErrInvalid, clipText(t))
				}
				conds = append(conds, "STRSTARTS("+key(KindDate, date)+`, "`+t+`")`)
			}
			b.WriteString("FILTER(" + strings.Join(conds, " || ") + ")\n")
		} else {
			m2, d2, x2 := c.fresh("m"), c.fresh("d"), c.fresh("x")
			var inner strings.Builder
			lines, _ := c.datedHops(p, d, member, m2, x2, d2)
			for _, s := range lines {
				inner.WriteString(strings.TrimSuffix(s, "\n") + " ")
			}
			b.WriteString("FILTER NOT EXISTS { " + inner.String() + "FILTER(" + key(KindDate, d2) + " > " + key(KindDate, date) + ") }\n")
		}
		alts = append(alts, b.String())
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	var b strings.Builder
	for i, a := range alts {
		if i > 0 {
			b.WriteString("UNION\n")
		}
		b.WriteString("{\n" + prefixLines(a, 1) + "}\n")
	}
	return b.String(), nil
}

// compare keeps the members with a value that compares as Cmp says with
// Value or with one of Bound's values; a filter whose Value is an entity
// keeps the members whose attribute reaches it.
func (c *compiler) compare(n *Node, out string, depth int) (string, error) {
	var b strings.Builder
	body, err := c.memberSet(n, out, depth)
	if err != nil {
		return "", err
	}
	b.WriteString(body)
	if c.v.d.ValidEntity(n.Value) && n.Bound == "" {
		if len(n.Attribute) == 0 {
			return "", fmt.Errorf("%w: an entity filter with no attribute", ErrUnsupported)
		}
		e, err := c.v.entityRef(n.Value)
		if err != nil {
			return "", err
		}
		s, err := c.paths(n.Attribute, out, e, nil, depth)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		return b.String(), nil
	}
	cmp := n.Cmp
	if cmp == "" && n.Op == "filter" {
		cmp = "="
	}
	if !comparisons[cmp] {
		return "", fmt.Errorf("%w: comparison %q", ErrInvalid, clipText(cmp))
	}
	s, val, err := c.value(n, out, c.fresh("v"), depth)
	if err != nil {
		return "", err
	}
	b.WriteString(s + guard(n.Kind, val))
	var rhs string
	if n.Bound != "" {
		bv := c.fresh("b")
		body, err := c.node(n.Bound, bv, depth+1)
		if err != nil {
			return "", err
		}
		b.WriteString("{\n" + prefixLines(body, 1) + "}\n" + guard(n.Kind, bv))
		rhs = key(n.Kind, bv)
	} else {
		if rhs, err = constant(n.Kind, n.Value); err != nil {
			return "", err
		}
	}
	b.WriteString("FILTER(" + key(n.Kind, val) + " " + cmp + " " + rhs + ")\n")
	return b.String(), nil
}

// superlative keeps the members whose value is the largest (or smallest)
// of all members' values: a sub-select finds the best key, and a member
// is kept when one of its values has it.
func (c *compiler) superlative(n *Node, out string, depth int) (string, error) {
	agg := map[string]string{"max": "MAX", "min": "MIN"}[n.Order]
	if agg == "" {
		return "", fmt.Errorf("%w: superlative order %q", ErrInvalid, clipText(n.Order))
	}
	best := c.fresh("best")
	inner, iv := c.fresh("o"), c.fresh("v")
	members, err := c.memberSet(n, inner, depth+2)
	if err != nil {
		return "", err
	}
	vs, ival, err := c.value(n, inner, iv, depth+2)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("{\n  SELECT (" + agg + "(" + key(n.Kind, ival) + ") AS " + best + ") WHERE {\n")
	b.WriteString(prefixLines(members+vs+guard(n.Kind, ival), 2) + "  }\n}\n")
	body, err := c.memberSet(n, out, depth)
	if err != nil {
		return "", err
	}
	s, val, err := c.value(n, out, c.fresh("v"), depth)
	if err != nil {
		return "", err
	}
	b.WriteString(body + s + guard(n.Kind, val))
	b.WriteString("FILTER(" + key(n.Kind, val) + " = " + best + ")\n")
	return b.String(), nil
}

// datedHops prints the triples of a dated mediated pair p: member to
// mediator m, m to val, and m's date along d.DateRelation.
func (c *compiler) datedHops(p Path, d *Dated, member, m, val, date string) ([]string, error) {
	var lines []string
	for _, h := range []struct {
		hop      Hop
		from, to string
	}{{p[0], member, m}, {p[1], m, val}, {Hop{Relation: d.DateRelation, Dir: kgqa.Out}, m, date}} {
		s, err := c.hop(c.v.direct, h.hop, h.from, h.to)
		if err != nil {
			return nil, err
		}
		lines = append(lines, s)
	}
	return lines, nil
}
