package sparql2plan

import (
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// webqspNow is the date WebQSP's time-validity filters use for "now"
// (the Freebase dump date): a filter on it means "current".
const webqspNow = "2015-08-10"

// unnamedEntity stands for an entity the dataset gives no name for: a
// subgoal never shows a bare MID.
const unnamedEntity = "a specific entity"

// Namer returns the display name of an entity id ("" when unknown).
type Namer func(id string) string

// RenderTemplate renders each step as one deterministic English subgoal,
// the way a planner would state it: readable relation names read in the
// hop's direction ("Find the countries that Oceania contains", "Find the
// team whose mascot is Lou Seal"), a hop through a mediator node as one
// fact, entity names from names (a neutral phrase when there is none), and
// "#1"-style references to earlier steps. texts[i] belongs to steps[i].
func RenderTemplate(steps []Step, names Namer) []string {
	ref := map[string]string{}
	for i, s := range steps {
		ref[s.ID] = fmt.Sprintf("#%d", i+1)
	}
	r := renderer{names: names, ref: ref}
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = r.step(s)
	}
	return out
}

type renderer struct {
	names Namer
	ref   map[string]string
}

// name is an entity's display name: the dataset's, a known notable type's,
// a schema id in words, or the neutral phrase for a nameless MID.
func (r renderer) name(id string) string {
	if r.names != nil {
		if n := r.names(id); n != "" {
			return n
		}
	}
	if n, ok := notableTypeNames[id]; ok {
		return n
	}
	if n, ok := constantNames[id]; ok {
		return n
	}
	if midLike.MatchString(id) {
		return unnamedEntity
	}
	return readable(id)
}

func (r renderer) refs(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = r.ref[id]
	}
	return joinWords(parts, "and")
}

func joinWords(parts []string, conj string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	case 2:
		return parts[0] + " " + conj + " " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " " + conj + " " + parts[len(parts)-1]
}

// noun names a step's result set by its types: a schema type, else a
// notable type named by the dataset or the known table; "" if none.
func (r renderer) noun(types []string) string {
	for _, t := range types {
		if !strings.HasPrefix(t, notablePrefix) {
			return typeNoun(t)
		}
	}
	for _, t := range types {
		if n := r.name(strings.TrimPrefix(t, notablePrefix)); n != unnamedEntity {
			return strings.ToLower(n)
		}
	}
	return ""
}

func (r renderer) step(s Step) string {
	switch s.Op {
	case kgqa.OpFind:
		return "Find " + r.find(s) + "."
	case kgqa.OpIntersect:
		return r.intersect(s)
	case kgqa.OpUnion:
		return fmt.Sprintf("Take everything in %s.", joinWords(r.refList(s.Needs), "or"))
	case kgqa.OpFilter:
		if len(s.Qualifiers) > 0 {
			return fmt.Sprintf("Keep those of %s that hold%s.", r.refs(s.Needs), r.qualifiers(s.Qualifiers))
		}
		v := literal(s.Literal)
		if len(s.Anchors) > 0 {
			v = r.name(s.Anchors[0])
		}
		return fmt.Sprintf("Keep those of %s %s.", r.refs(s.Needs), valueCondition(s.Path, v))
	case kgqa.OpCompare:
		if bound, ok := s.Args.BoundRef(); ok && len(s.Needs) > 1 {
			return fmt.Sprintf("Keep those of %s whose %s is %s %s.", r.refs(s.Needs[:1]), attrWords(s), cmpWords[s.Args.Cmp], r.ref[bound])
		}
		return fmt.Sprintf("Keep those of %s whose %s is %s %s.", r.refs(s.Needs), attrWords(s), cmpWords[s.Args.Cmp], literal(s.Args.Value))
	case kgqa.OpSuperlative:
		return fmt.Sprintf("Which of %s has the %s %s?", r.refs(s.Needs), orderWord(s.Args), attrWords(s))
	case kgqa.OpCount:
		return fmt.Sprintf("Count the members of %s.", r.refs(s.Needs))
	}
	return string(s.Op) + " " + r.refs(s.Needs)
}

func (r renderer) refList(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = r.ref[id]
	}
	return out
}

func (r renderer) intersect(s Step) string {
	refs := r.refList(s.Needs)
	n := r.noun(s.Types)
	if len(refs) == 2 {
		if n != "" {
			return fmt.Sprintf("Which %s of %s are also in %s?", plural(n), refs[0], refs[1])
		}
		return fmt.Sprintf("Which of %s are also in %s?", refs[0], refs[1])
	}
	if n == "" {
		n = "entity"
	}
	return fmt.Sprintf("Find the %s in all of %s.", plural(n), joinWords(refs, "and"))
}

// find renders the set a find reaches, from its start (anchors, an
// earlier result, a literal) along its path.
func (r renderer) find(s Step) string {
	var start string
	switch {
	case len(s.Anchors) > 0:
		names := make([]string, len(s.Anchors))
		for i, a := range s.Anchors {
			names[i] = r.name(a)
		}
		start = joinWords(names, "or")
	case len(s.Needs) > 0:
		start = r.refs(s.Needs)
	case s.Literal != "":
		start = literal(s.Literal)
	default:
		n := r.noun(s.Types)
		if n == "" {
			n = "entity"
		}
		return "all " + plural(n)
	}
	quals := r.qualifiers(s.Qualifiers)
	if len(s.Path) == 2 && s.Path[0].Reverse == s.Path[1].Reverse {
		return r.mediatorHop(s, start) + quals
	}
	cur := start
	for i, h := range s.Path {
		var types []string
		if i == len(s.Path)-1 {
			types = s.Types
		}
		cur = r.hop(h, cur, types)
	}
	return cur + quals
}

// hop reads one relation step from the known side cur.
func (r renderer) hop(h Hop, cur string, types []string) string {
	words := relWords(h.Relation)
	n := r.noun(types)
	if prepositions[words] {
		// "religion.religious_text.religious_text_of": the type's own
		// noun was the relation's only content word.
		if h.Reverse {
			if n == "" {
				n = typeNoun(relationType(h.Relation))
			}
			return fmt.Sprintf("the %s %s %s", plural(n), words, cur)
		}
		if n == "" {
			n = "entity"
		}
		return fmt.Sprintf("the %s that %s is %s", plural(n), cur, readable(h.Relation))
	}
	if h.Reverse {
		// The result is the subject: "the team whose mascot is Lou Seal".
		if n == "" {
			n = typeNoun(relationType(h.Relation))
		}
		if n == "" {
			n = "entity"
		}
		switch formOf(words) {
		case formVerb:
			return fmt.Sprintf("the %s that %s %s", plural(n), words, cur)
		case formPassive:
			return fmt.Sprintf("the %s %s %s", plural(n), words, cur)
		case formByPhrase:
			return fmt.Sprintf("the %s with %s %s", plural(n), words, cur)
		}
		return fmt.Sprintf("the %s whose %s %s %s", plural(n), words, copula(words), cur)
	}
	// The result is the object: "the capital of France", "the countries
	// that Oceania contains".
	switch formOf(words) {
	case formVerb:
		if n == "" {
			n = "entity"
		}
		return fmt.Sprintf("the %s that %s %s", plural(n), cur, words)
	case formPassive:
		if n == "" {
			n = "entity"
		}
		return fmt.Sprintf("the %s that %s is %s", plural(n), cur, words)
	case formParticiple:
		return fmt.Sprintf("the %s by %s", words, cur)
	case formByPhrase:
		ws := strings.Fields(words)
		return fmt.Sprintf("the %s of %s", strings.Join(ws[:len(ws)-1], " "), cur)
	}
	if n != "" && !strings.Contains(words, n) {
		return fmt.Sprintf("the %s among the %s of %s", plural(n), words, cur)
	}
	return fmt.Sprintf("the %s of %s", words, cur)
}

// mediatorHop reads a hop through a mediator node as one fact, named by
// the relation into the mediator; the relation out of it names the role
// the result plays, and is left out when the first already says it
// ("national anthem" / "anthem").
func (r renderer) mediatorHop(s Step, start string) string {
	first, second := s.Path[0], s.Path[1]
	n := r.noun(s.Types)
	if !first.Reverse {
		// start -in-> m -out-> result: "the institution in the education
		// of Drew Brees".
		fact, role := relWords(first.Relation), relWords(second.Relation)
		out := fmt.Sprintf("the %s in the %s of %s", role, fact, start)
		if subsumes(fact, role) {
			out = fmt.Sprintf("the %s of %s", fact, start)
		}
		if n != "" && !strings.Contains(out, n) {
			out = fmt.Sprintf("the %s among %s", plural(n), out)
		}
		return out
	}
	// result -in-> m -out-> start: "the country whose national anthem is
	// X", "the films whose starring has character X".
	fact, role := relWords(second.Relation), relWords(first.Relation)
	if n == "" {
		n = typeNoun(relationType(second.Relation))
	}
	if subsumes(fact, role) {
		return fmt.Sprintf("the %s whose %s %s %s", plural(n), fact, copula(fact), start)
	}
	return fmt.Sprintf("the %s whose %s %s %s %s", plural(n), fact, have(fact), role, start)
}

// subsumes reports whether every word of role occurs in fact.
func subsumes(fact, role string) bool {
	fw := map[string]bool{}
	for _, w := range strings.Fields(fact) {
		fw[strings.TrimSuffix(w, "s")] = true
	}
	for _, w := range strings.Fields(role) {
		if !fw[strings.TrimSuffix(w, "s")] {
			return false
		}
	}
	return true
}

// copula agrees with the head of a relation's words: its last word, or its
// first when a participle or adverb follows ("characters born here").
func copula(words string) string {
	ws := strings.Fields(words)
	if len(ws) > 0 && (isPlural(ws[len(ws)-1]) || isPlural(ws[0]) && formOf(words) != formNoun) {
		return "include"
	}
	if len(ws) > 2 && isPlural(ws[0]) && ws[len(ws)-1] == "here" {
		return "include"
	}
	return "is"
}

func have(words string) string {
	ws := strings.Fields(words)
	if len(ws) > 0 && isPlural(ws[len(ws)-1]) {
		return "include one with"
	}
	return "has"
}

// qualifiers renders the conditions folded into a hop: constants on the
// mediator, and time validity ("currently", "in 2011").
func (r renderer) qualifiers(qs []Qualifier) string {
	var parts []string
	current := false
	var from, to string
	for _, q := range qs {
		switch {
		case q.During != "":
			parts = append(parts, "during "+r.name(q.During))
		case q.Cmp != "" && q.Value != "":
			if strings.HasPrefix(q.Value, webqspNow) {
				if !current {
					parts = append(parts, "currently")
					current = true
				}
				continue
			}
			switch {
			case (q.Cmp == "<=" || q.Cmp == "<") && strings.HasSuffix(dateOnly(q.Value), "-12-31"):
				from = dateOnly(q.Value)[:len(dateOnly(q.Value))-6]
			case (q.Cmp == ">=" || q.Cmp == ">") && strings.HasSuffix(dateOnly(q.Value), "-01-01"):
				to = dateOnly(q.Value)[:len(dateOnly(q.Value))-6]
			default:
				parts = append(parts, fmt.Sprintf("with %s %s %s", relWords(q.Relation), cmpWords[q.Cmp], literal(q.Value)))
			}
		case q.Entity != "":
			parts = append(parts, fmt.Sprintf("with %s %s", relWords(q.Relation), r.name(q.Entity)))
		case q.Value != "":
			parts = append(parts, fmt.Sprintf("with %s %s", relWords(q.Relation), literal(q.Value)))
		}
	}
	switch {
	case from != "" && from == to:
		parts = append(parts, "in "+from)
	case from != "" || to != "":
		if to != "" {
			parts = append(parts, "still valid in "+to)
		}
		if from != "" {
			parts = append(parts, "already valid in "+from)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}

// dateOnly cuts a time zone or time off a date literal.
func dateOnly(v string) string {
	if len(v) >= 10 && v[4] == '-' && v[7] == '-' {
		return v[:10]
	}
	return v
}

// literal shows a constant: dates without their time zone, the rest as
// written.
func literal(v string) string { return dateOnly(v) }

var cmpWords = map[string]string{"<": "less than", "<=": "at most", ">": "greater than", ">=": "at least", "=": "equal to"}

// attrWords names the attribute a compare or superlative reads, without
// the words that only repeat its type ("country calling code" ->
// "calling code").
func attrWords(s Step) string {
	if len(s.Path) == 0 {
		return s.Args.Attribute
	}
	rels := make([]string, len(s.Path))
	for i, h := range s.Path {
		rels[i] = h.Relation
	}
	last := rels[len(rels)-1]
	if len(rels) > 1 && strings.HasPrefix(last, "measurement_unit.") {
		return relWords(rels[len(rels)-2])
	}
	return relWords(last)
}

func orderWord(a *kgqa.Args) string {
	dateLike := false
	for _, w := range []string{"date", "time", "year", "released", "founded", "start", "from", "opened", "born"} {
		if strings.Contains(a.Attribute, w) {
			dateLike = true
		}
	}
	switch {
	case a.Order == "max" && dateLike:
		return "latest"
	case a.Order == "min" && dateLike:
		return "earliest"
	case a.Order == "max":
		return "largest"
	}
	return "smallest"
}

// valueCondition says that the value reached along a filter's path (read
// from the value towards the set) is v: one relation ("whose iso 639 3
// code is acy"), or a mediator and its value ("whose size of armed forces
// is 10000" for a measurement, "whose leaders include one with end date
// 1805" otherwise).
func valueCondition(p []Hop, v string) string {
	switch len(p) {
	case 1:
		w := relWords(p[0].Relation)
		if prepositions[w] {
			return fmt.Sprintf("that are %s %s", readable(p[0].Relation), v)
		}
		return fmt.Sprintf("whose %s %s %s", w, copula(w), v)
	case 2:
		fact, role := relWords(p[1].Relation), relWords(p[0].Relation)
		if strings.HasPrefix(p[0].Relation, "measurement_unit.") || subsumes(fact, role) {
			return fmt.Sprintf("whose %s %s %s", fact, copula(fact), v)
		}
		return fmt.Sprintf("whose %s %s %s %s", fact, have(fact), role, v)
	}
	parts := make([]string, len(p))
	for i, h := range p {
		parts[len(p)-1-i] = relWords(h.Relation)
	}
	return fmt.Sprintf("whose %s is %s", strings.Join(parts, " of "), v)
}
