package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
)

// A measurement that changes over time is stored as one mediator per date:
// Freebase's dated_integer (number, year, source) under
// statistical_region.population, Wikidata's statement with a point-in-time
// qualifier. Compared as they come, every year's value of a member counts,
// so "population of more than 38 million in 2019" would keep a country
// that had it in 2010. The functions here choose, per member, the
// mediator whose date the subgoal names, and read only its value.

// when is a point in time stated in a subgoal, with the precision it was
// stated at.
type when struct {
	at   value
	prec precision
}

// precision is how much of a date was stated.
type precision int

const (
	byYear precision = iota + 1
	byMonth
	byDay
)

// timeMention matches an ISO date, a year-month, or a year from 1000 to
// 2099 ("in 2019", "2019-06-30"); standsAlone rejects the ones inside a
// longer number ("4,600", "1.2019", "2019.5").
var timeMention = regexp.MustCompile(`\b(?:1\d|20)\d\d(?:-[01]\d(?:-[0-3]\d)?)?\b`)

func standsAlone(s string, start, end int) bool {
	if start > 0 && strings.ContainsRune(",.-", rune(s[start-1])) {
		return false
	}
	if end < len(s) {
		switch s[end] {
		case '-':
			return false
		case ',', '.':
			return end+1 >= len(s) || s[end+1] < '0' || s[end+1] > '9'
		}
	}
	return true
}

// statedTimes returns the times the subgoal states as a qualifier of its
// attribute ("population in 2019"): the dates and years in its attribute
// and its own text (not the results it refers to, whose names may hold
// years), except the comparison's reference value, which is what is
// compared rather than when.
func statedTimes(a kgqa.Args, text string) []when {
	ref := ""
	if a.Cmp != "" {
		ref = strings.TrimSpace(a.Value)
	}
	var out []when
	seen := map[string]bool{}
	all := a.Attribute + " \n " + text
	for _, loc := range timeMention.FindAllStringIndex(all, -1) {
		s := all[loc[0]:loc[1]]
		if seen[s] || !standsAlone(all, loc[0], loc[1]) || (ref != "" && strings.HasPrefix(ref, s)) {
			continue
		}
		seen[s] = true
		if v, ok := parseDate(s); ok {
			out = append(out, when{at: v, prec: precisionOf(s)})
		}
	}
	return out
}

func precisionOf(lexical string) precision {
	body := strings.TrimPrefix(strings.TrimPrefix(lexical, "+"), "-")
	if i := strings.IndexByte(body, '-'); i >= 4 && len(body) >= i+6 {
		// Wikidata's zero month or day: a year or a month, not a day.
		switch {
		case body[i+1:i+3] == "00":
			return byYear
		case body[i+4:i+6] == "00":
			return byMonth
		}
	}
	switch n := len(body); {
	case n <= 4:
		return byYear
	case n <= 7:
		return byMonth
	}
	return byDay
}

// matches reports whether a date qualifier falls in w, compared at the
// coarser of the two precisions: a "2019" qualifier matches "2019-06-30",
// and a "2019-03-01" qualifier matches "2019".
func (w when) matches(q value, qprec precision) bool {
	p := min(w.prec, qprec)
	a, b := w.at.at, q.at
	if a.Year() != b.Year() {
		return false
	}
	if p >= byMonth && a.Month() != b.Month() {
		return false
	}
	return p < byDay || a.Day() == b.Day()
}

// dateQualifier parses a typed date literal (not a plain string that
// happens to read as one).
func dateQualifier(t kgqa.Term) (value, precision, bool) {
	if t.IsEntity() {
		return value{}, 0, false
	}
	switch strings.TrimPrefix(t.Datatype, xsd) {
	case "date", "dateTime", "gYear", "gYearMonth":
		if v, ok := parseDate(strings.TrimSpace(t.Name)); ok && v.isTime {
			return v, precisionOf(strings.TrimSpace(t.Name)), true
		}
	}
	return value{}, 0, false
}

// datesCompared reports whether the constraint compares dates themselves
// (a date reference value, or a superlative by a date, year or time), so
// that dates on mediators are the values, not qualifiers.
func datesCompared(a kgqa.Args) bool {
	if a.Cmp != "" {
		v, ok := parseText(a.Value)
		return ok && v.isTime
	}
	words := explore.Tokens(a.Attribute)
	for _, w := range []string{"date", "year", "time", "when"} {
		if words[naming.Stem(w)] {
			return true
		}
	}
	return false
}

// qualify reads the values of dated mediators for exact set logic. A
// dated mediator is one whose facts (from one member) hold both a date
// literal and some other value. Its date facts are qualifiers and are
// dropped; its other facts are kept when its date matches a stated time,
// or, with no time stated, when it is the member's latest along the same
// relation (the current value, as a question without a date means). Facts
// not through a dated mediator pass unchanged, except, when a time is
// stated, a member's undated values along a relation it has dated
// mediators for (see dropUndated). note says what was chosen,
// for the trace; it is empty when no dated mediator was seen.
func qualify(facts []kgqa.Fact, times []when, a kgqa.Args) (kept []kgqa.Fact, note string) {
	if datesCompared(a) {
		return facts, ""
	}
	groups := datedGroups(facts, times)
	// With no time stated, each member's latest dated mediator per relation.
	latest := map[string]*mediatorGroup{}
	for _, g := range groups {
		if l := latest[g.key]; l == nil || g.date.at.After(l.date.at) {
			latest[g.key] = g
		}
	}
	drop := make([]bool, len(facts))
	chosen := 0
	for _, g := range groups {
		keep := g.matched
		if len(times) == 0 {
			keep = latest[g.key] == g
		}
		if keep {
			chosen++
		}
		for _, i := range g.idx {
			_, _, isDate := dateQualifier(facts[i].Tail)
			drop[i] = !keep || isDate
		}
	}
	if len(groups) == 0 {
		return facts, ""
	}
	if len(times) > 0 {
		dropUndated(facts, groups, drop)
	}
	for i, f := range facts {
		if !drop[i] {
			kept = append(kept, f)
		}
	}
	if len(times) == 0 {
		return kept, "dated values: the latest of each member"
	}
	var stated []string
	for _, w := range times {
		stated = append(stated, w.String())
	}
	return kept, fmt.Sprintf("dated values: those of %s (%d of %d mediators)", strings.Join(stated, ", "), chosen, len(groups))
}

// dropUndated marks for dropping the one-hop values of a member along a
// relation it also has dated mediators for. Wikidata keeps the preferred
// statement's value as a truthy wdt: edge with no date beside the dated
// p:/ps:/pq: statements; when the subgoal states a time, that undated copy
// cannot be of it, and only the statements of the stated time count.
func dropUndated(facts []kgqa.Fact, groups []*mediatorGroup, drop []bool) {
	dated := map[string]bool{}
	for _, g := range groups {
		dated[g.key] = true
	}
	for i, f := range facts {
		if len(f.Path) != 1 || !dated[f.Head.Key()+"|"+f.Path[0]] {
			continue
		}
		if _, ok := parseValue(f.Tail); ok {
			drop[i] = true
		}
	}
}

// mediatorGroup is the facts of one member through one dated mediator.
type mediatorGroup struct {
	key     string // member and first relation
	idx     []int  // indices of the facts
	date    value  // the latest date qualifier
	matched bool   // a date qualifier matches a stated time
}

// datedGroups groups the two-hop facts by member, first relation and
// mediator, and returns the groups that are dated: with a date literal and
// some other parsed value.
func datedGroups(facts []kgqa.Fact, times []when) []*mediatorGroup {
	var order []*mediatorGroup
	byKey := map[string]*mediatorGroup{}
	hasDate, hasValue := map[*mediatorGroup]bool{}, map[*mediatorGroup]bool{}
	for i, f := range facts {
		if f.Mediator == "" || len(f.Path) < 2 {
			continue
		}
		key := f.Head.Key() + "|" + f.Path[0]
		g := byKey[key+"|"+f.Mediator]
		if g == nil {
			g = &mediatorGroup{key: key}
			byKey[key+"|"+f.Mediator] = g
			order = append(order, g)
		}
		g.idx = append(g.idx, i)
		if d, p, ok := dateQualifier(f.Tail); ok {
			if !hasDate[g] || d.at.After(g.date.at) {
				g.date = d
			}
			hasDate[g] = true
			for _, w := range times {
				g.matched = g.matched || w.matches(d, p)
			}
		} else if _, ok := parseValue(f.Tail); ok {
			hasValue[g] = true
		}
	}
	out := order[:0]
	for _, g := range order {
		if hasDate[g] && hasValue[g] {
			out = append(out, g)
		}
	}
	return out
}

// String writes w at the precision it was stated at.
func (w when) String() string {
	switch w.prec {
	case byYear:
		return w.at.at.Format("2006")
	case byMonth:
		return w.at.at.Format("2006-01")
	}
	return w.at.at.Format("2006-01-02")
}
