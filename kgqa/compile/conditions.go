package compile

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// The conditions of version 2 plans: time validity on a mediator or a
// member, text values, and literals as the gold queries write them. Each
// is printed in the gold queries' own form, casts included, so that a
// compiled query reads as its gold query does:
//
//	FILTER(NOT EXISTS { ?m ns:r ?d1 } || EXISTS { ?m ns:r ?d2 .
//	  FILTER(xsd:dateTime(?d2) <= "2015-08-10"^^xsd:dateTime) })
//	?v ... FILTER(STR(?v) = "Country")
//	?answer ns:r "120.0"^^xsd:float .

var (
	// datatypeName is an XSD datatype's local name.
	datatypeName = regexp.MustCompile(`^[A-Za-z]{1,32}$`)
	// langTag is a literal's language tag, after its "@".
	langTag = regexp.MustCompile(`^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$`)
)

// textLit prints s as a SPARQL string literal, escaped; a control
// character other than tab, newline and return is refused.
func textLit(s string) (string, error) {
	var b strings.Builder
	b.WriteByte('"')
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
			if r < 0x20 || r == 0x7f || r == 0xfffd {
				return "", fmt.Errorf("%w: text %q", ErrInvalid, clipText(s))
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// termLit prints a literal with its datatype or language (KindTerm).
func termLit(s, datatype string) (string, error) {
	lit, err := textLit(s)
	if err != nil {
		return "", err
	}
	switch {
	case datatype == "" || datatype == "string":
		return lit, nil
	case strings.HasPrefix(datatype, "@"):
		if !langTag.MatchString(datatype[1:]) {
			return "", fmt.Errorf("%w: language tag %q", ErrInvalid, clipText(datatype))
		}
		return lit + datatype, nil
	case datatypeName.MatchString(datatype):
		return lit + "^^xsd:" + datatype, nil
	}
	return "", fmt.Errorf("%w: datatype %q", ErrInvalid, clipText(datatype))
}

// dateTimeLit prints a time condition's date as the gold queries write
// it: "2015-08-10"^^xsd:dateTime (a year reads as its first day).
func dateTimeLit(s string) (string, error) {
	d, ok := ParseDate(s)
	if !ok {
		return "", fmt.Errorf("%w: date %q", ErrInvalid, clipText(s))
	}
	return `"` + d + `"^^xsd:dateTime`, nil
}

// qualifier prints one condition on subj (a mediator or a member).
func (c *compiler) qualifier(q Qualifier, subj string) (string, error) {
	rel, err := c.v.relationRef(c.qualifierPrefix(), q.Relation)
	if err != nil {
		return "", err
	}
	switch {
	case q.Cmp != "":
		return c.timeCondition(q, subj, rel)
	case q.Entity != "":
		e, err := c.v.entityRef(q.Entity)
		if err != nil {
			return "", err
		}
		return subj + " " + rel + " " + e + " .\n", nil
	case q.Kind == KindText:
		v := c.fresh("q")
		lit, err := textLit(q.Value)
		if err != nil {
			return "", err
		}
		return subj + " " + rel + " " + v + " .\nFILTER(STR(" + v + ") = " + lit + ")\n", nil
	case q.Kind == KindTerm:
		lit, err := termLit(q.Value, q.Datatype)
		if err != nil {
			return "", err
		}
		return subj + " " + rel + " " + lit + " .\n", nil
	}
	return "", fmt.Errorf("%w: a qualifier with neither entity, value nor comparison", ErrUnsupported)
}

// timeCondition prints a time condition on subj along rel: the date
// compared through xsd:dateTime, and with Open the gold queries' open
// end (no date along rel passes).
func (c *compiler) timeCondition(q Qualifier, subj, rel string) (string, error) {
	if !comparisons[q.Cmp] {
		return "", fmt.Errorf("%w: comparison %q", ErrInvalid, clipText(q.Cmp))
	}
	lit, err := dateTimeLit(q.Value)
	if err != nil {
		return "", err
	}
	if !q.Open {
		d := c.fresh("d")
		return subj + " " + rel + " " + d + " .\nFILTER(xsd:dateTime(" + d + ") " + q.Cmp + " " + lit + ")\n", nil
	}
	none, some := c.fresh("d"), c.fresh("d")
	return "FILTER(NOT EXISTS { " + subj + " " + rel + " " + none + " } || EXISTS { " + subj + " " + rel + " " + some +
		" . FILTER(xsd:dateTime(" + some + ") " + q.Cmp + " " + lit + ") })\n", nil
}

// qualifiers prints every condition on subj.
func (c *compiler) qualifiers(qs []Qualifier, subj string) (string, error) {
	var b strings.Builder
	for _, q := range qs {
		s, err := c.qualifier(q, subj)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// conditionFilter keeps the members of a filter's needs that satisfy its
// qualifiers (time conditions on the members themselves).
func (c *compiler) conditionFilter(n *Node, out string, depth int) (string, error) {
	body, err := c.memberSet(n, out, depth)
	if err != nil {
		return "", err
	}
	s, err := c.qualifiers(n.Qualifiers, out)
	if err != nil {
		return "", err
	}
	return body + s, nil
}

// textFilter keeps the members whose value's text equals (or contains)
// the node's Value.
func (c *compiler) textFilter(n *Node, out string, depth int) (string, error) {
	body, err := c.memberSet(n, out, depth)
	if err != nil {
		return "", err
	}
	s, val, err := c.value(n, out, c.fresh("v"), depth)
	if err != nil {
		return "", err
	}
	lit, err := textLit(n.Value)
	if err != nil {
		return "", err
	}
	switch n.Cmp {
	case "", "=":
		return body + s + "FILTER(STR(" + val + ") = " + lit + ")\n", nil
	case CmpContains:
		return body + s + "FILTER(CONTAINS(STR(" + val + "), " + lit + "))\n", nil
	}
	return "", fmt.Errorf("%w: text comparison %q", ErrInvalid, clipText(n.Cmp))
}

// termFilter keeps the members whose attribute reaches the literal Value
// itself, as a gold query's triple states it.
func (c *compiler) termFilter(n *Node, out string, depth int) (string, error) {
	if len(n.Attribute) == 0 {
		return "", fmt.Errorf("%w: a literal filter with no attribute", ErrUnsupported)
	}
	if n.Cmp != "" && n.Cmp != "=" {
		return "", fmt.Errorf("%w: literal comparison %q", ErrInvalid, clipText(n.Cmp))
	}
	body, err := c.memberSet(n, out, depth)
	if err != nil {
		return "", err
	}
	lit, err := termLit(n.Value, n.Datatype)
	if err != nil {
		return "", err
	}
	s, err := c.paths(n.Attribute, out, lit, nil, depth)
	if err != nil {
		return "", err
	}
	return body + s, nil
}

// literalStart binds the start of a find from a literal: the literal
// itself (KindTerm), or a variable whose text is the literal (KindText).
func (c *compiler) literalStart(n *Node) (start, filter string, err error) {
	switch n.Kind {
	case KindTerm:
		lit, err := termLit(n.Value, n.Datatype)
		return lit, "", err
	case KindText:
		lit, err := textLit(n.Value)
		if err != nil {
			return "", "", err
		}
		v := c.fresh("l")
		return v, "FILTER(STR(" + v + ") = " + lit + ")\n", nil
	}
	return "", "", fmt.Errorf("%w: a find from a literal of kind %q", ErrUnsupported, clipText(string(n.Kind)))
}

// isConditionFilter reports whether a filter node keeps its members by
// its qualifiers alone.
func isConditionFilter(n *Node) bool {
	return n.Op == kgqa.OpFilter && len(n.Qualifiers) > 0 && n.Value == "" && len(n.Attribute) == 0
}
