package sparql2plan

import (
	"regexp"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// stepArgs is the structured part of a step's subgoal: a compare's or a
// superlative's arguments as built, and what a plan of version 2 states
// beside its text: a find's literal anchor (with its relation's id, as
// no entity's relations can be listed to find it), a filter's value with how it
// compares, and the time conditions of a find's mediator or a filter's
// members. A mediator's entity or literal condition stays in the text
// alone, as it always has.
func stepArgs(s Step) *kgqa.Args {
	var a kgqa.Args
	if s.Args != nil {
		a = *s.Args
	}
	switch {
	case s.Op == kgqa.OpFind && s.Literal != "" && len(s.Path) > 0:
		// No entity to list relations from: the relation is named.
		a.Attribute, a.Literal, a.Type = s.Path[0].Relation, s.Literal, planType(s.LiteralType)
	case s.Op == kgqa.OpFilter && s.Literal != "" && len(s.Path) > 0 && len(s.Anchors) == 0:
		a.Attribute, a.Cmp, a.Value, a.Type = filterAttribute(s.Path), "=", s.Literal, planType(s.LiteralType)
	}
	for _, q := range s.Qualifiers {
		if c, ok := timeCond(q); ok {
			a.Valid = append(a.Valid, c)
		}
	}
	if a.Attribute == "" && a.Order == "" && a.Cmp == "" && a.Value == "" && a.Type == "" && a.Literal == "" && len(a.Valid) == 0 {
		return nil
	}
	return &a
}

// filterAttribute names the value a filter's path reads, written from
// the value towards the member: its relation into the value, or, through
// a mediator, what the mediator measures.
func filterAttribute(p []Hop) string {
	rels := make([]string, len(p))
	for i, h := range p {
		rels[len(p)-1-i] = h.Relation
	}
	return attrName(rels)
}

// planType is the plan's value type of a literal the gold query matched
// as Step.LiteralType says: a string, a language-tagged one, or one
// compared through str() is text; a typed number or date compares by
// value.
func planType(literalType string) string {
	switch literalType {
	case "", "text", "string":
		return kgqa.TypeText
	case "date", "dateTime", "gYear", "gYearMonth":
		return kgqa.TypeDate
	case "integer", "int", "long", "float", "double", "decimal":
		return kgqa.TypeNumber
	}
	if strings.HasPrefix(literalType, "@") {
		return kgqa.TypeText
	}
	return ""
}

var planTime = regexp.MustCompile(`^-?[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$`)

// timeCond is the plan's form of a time qualifier: the date's readable
// attribute, the comparison, the date (its time of day and zone cut) and
// whether an open end passes. A span during an entity's is no time
// condition of the plan: its text states it.
func timeCond(q Qualifier) (kgqa.TimeCond, bool) {
	if q.Cmp == "" || q.Relation == "" || q.During != "" {
		return kgqa.TimeCond{}, false
	}
	v := dateOnly(q.Value)
	if !planTime.MatchString(v) {
		return kgqa.TimeCond{}, false
	}
	return kgqa.TimeCond{Attribute: readable(q.Relation), Cmp: q.Cmp, Value: v, Open: q.Open}, true
}
