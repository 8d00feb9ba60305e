package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
)

// chosenByPlan marks, in a round, an attribute relation taken from the
// plan's own words over the model's choice (see planAttribute).
const chosenByPlan = "plan_attribute"

// planAttribute checks the relations the model chose to compare or order
// by against the attribute the plan names (the subgoal's attribute, else
// its text without the members' names). When the model's choice
// contradicts the plan (see namedAttribute), the relation the plan names
// is compared instead: "total time" names a total time, not a cooking
// time. It costs no call; why explains the override for the trace.
func planAttribute(sg *subgoalRun, x *explore.Explorer, members []kgqa.Term, offered, chosen []kgqa.Relation) (best kgqa.Relation, why string, ok bool) {
	named := x.Attribute()
	if named == "" {
		named = x.RelationQuery(members)
	}
	d := sg.e.g.Dialect()
	return namedAttribute(named, d.Readable, offered, chosen)
}

// namedAttribute returns the offered relation whose readable name shares
// more words with named than every other offered relation does and than
// every chosen one, when the model did not choose it. ok is false, and
// the model's choice stands, when nothing was chosen, when named matches
// no offered relation, when two offered relations match it equally well
// (ambiguous), or when a chosen relation matches as well as the best.
// Words are counted, not scored as overlap does: the override needs a
// whole word more, not a shorter name.
func namedAttribute(named string, readable func(string) string, offered, chosen []kgqa.Relation) (best kgqa.Relation, why string, ok bool) {
	if len(chosen) == 0 || len(offered) < 2 {
		return kgqa.Relation{}, "", false
	}
	q := explore.Tokens(named)
	matched := func(r kgqa.Relation) int {
		n := 0
		for w := range explore.Tokens(readable(r.ID)) {
			if q[w] {
				n++
			}
		}
		return n
	}
	top, second := 0, 0
	for _, r := range offered {
		switch n := matched(r); {
		case n > top:
			top, second, best = n, top, r
		case n > second:
			second = n
		}
	}
	if top == 0 || top == second || slices.Contains(chosen, best) {
		return kgqa.Relation{}, "", false
	}
	var was []string
	for _, r := range chosen {
		n := matched(r)
		if n >= top {
			return kgqa.Relation{}, "", false
		}
		was = append(was, fmt.Sprintf("%s (%d)", r.ID, n))
	}
	why = fmt.Sprintf("the plan names %q, which %s matches in %d words, more than any other offered relation and than the chosen %s: compared by %s",
		strings.TrimSpace(named), best.ID, top, strings.Join(was, ", "), best.ID)
	return best, why, true
}

// chosenByName marks, in a round, an attribute relation taken without a
// choice because its name is the attribute the plan names (see
// exactAttribute).
const chosenByName = "lexical"

// exactAttribute returns the one offered relation whose name is, word for
// word, the attribute the plan names ("par" is sports.golf_course.par,
// read "golf course: par"), when the config skips clear relation choices
// (engine.clear_top_facts): the comparison reads its values without a
// relations call. ok is false when the plan names no attribute, when no
// offered relation has that name, or when more than one has (the schema
// has alternatives, and the model chooses as usual).
func exactAttribute(sg *subgoalRun, x *explore.Explorer, offered []kgqa.Relation) (kgqa.Relation, bool) {
	if !sg.b.ClearTopFacts {
		return kgqa.Relation{}, false
	}
	return attributeNamed(x.Attribute(), sg.e.g.Dialect().Readable, offered)
}

// attributeNamed is exactAttribute's match: the relation's readable name
// after its type ("golf course: par" -> "par"), in lower case with
// underscores as spaces, equals named read the same way.
func attributeNamed(named string, readable func(string) string, offered []kgqa.Relation) (kgqa.Relation, bool) {
	norm := func(s string) string {
		return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, "_", " "))), " ")
	}
	want := norm(named)
	if want == "" {
		return kgqa.Relation{}, false
	}
	var found []kgqa.Relation
	for _, r := range offered {
		if norm(property(readable(r.ID))) == want {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return kgqa.Relation{}, false
	}
	return found[0], true
}

// property is a relation's readable name after its type ("golf course:
// par" -> "par"): the words of what it asks about, as the type's words
// name the subject, which every relation of an anchor shares.
func property(readable string) string {
	if _, prop, found := strings.Cut(readable, ": "); found {
		return prop
	}
	return readable
}
