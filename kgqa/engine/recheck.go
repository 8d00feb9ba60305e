package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/parog/parog-go/refine"
)

// A refinement verdict is one judgement of the model; where the KG can
// say it is doubtful, the model is asked once more, told why, before the
// engine acts on it:
//
//   - an "aligned" verdict whose answer is the entity the subgoal starts
//     from (the facts read the wrong way round), whose answer is values
//     (dates, numbers, text) where a later step reads it as entities (a
//     find explores from it, a superlative reads its attributes), whose
//     answer is values a mediator's detail gives (its "from", its "end")
//     that the subgoal's words do not name, or whose answer is not of the
//     type the subgoal expects (its facts follow a relation other than
//     the one the subgoal names, to another kind of thing);
//   - a "misaligned" verdict that rejects facts along the relation that
//     matches the subgoal clearly best.
//
// Each re-ask costs one refine call, made only when a check fires: a
// verdict consistent with the KG is never asked twice. The second reply
// is the verdict (the first stands in the trace's recoveries).

// recheck asks again about verdict v of in when the KG doubts it. It
// returns the verdict to act on and the refine calls it made: none, one,
// or two when a misaligned verdict asked again turned aligned and that
// verdict is doubtful in turn.
func recheck(ctx context.Context, sg *subgoalRun, round int, in refine.Input, v kgqa.Verdict, anchors []kgqa.Term) (kgqa.Verdict, int, error) {
	shown := shownFacts(v, in.Facts)
	kind, note := doubt(sg, in.Subgoal, v, shown, anchors)
	if kind == "" || sg.rechecked(kind, shown) {
		return v, 0, nil
	}
	calls := 0
	for {
		in.Recheck = note
		again, err := sg.e.refiner.Refine(sg.inRound(ctx, round), in)
		calls++
		if err != nil {
			return kgqa.Verdict{}, calls, stepErr("refine", sg.s.ID, err)
		}
		to := ""
		if changed(v, again) {
			to = verdictWords(again)
		}
		sg.recovered(kind, sg.s.ID, verdictWords(v), to)
		if kind == kgqa.RecoveryAlignedRecheck && !again.Aligned {
			sg.reopen(kind, shown)
		}
		if kind != kgqa.RecoveryMisalignedRecheck || !again.Aligned {
			return again, calls, nil
		}
		// The misaligned verdict turned aligned: the new verdict is
		// checked as a first one would be (once, on its own doubts).
		v = again
		if kind, note = doubt(sg, in.Subgoal, v, shown, anchors); kind != kgqa.RecoveryAlignedRecheck || sg.rechecked(kind, shown) {
			return v, calls, nil
		}
	}
}

// shownFacts is the facts of a refine prompt that verdict v says the
// model saw.
func shownFacts(v kgqa.Verdict, facts []kgqa.Fact) []kgqa.Fact {
	return facts[:min(v.FactsShown, len(facts))]
}

// doubt returns what to recheck of verdict v over the facts the model saw
// and the note that says why, or "" when the KG gives no reason to doubt it.
func doubt(sg *subgoalRun, text string, v kgqa.Verdict, shown []kgqa.Fact, anchors []kgqa.Term) (kgqa.RecoveryKind, string) {
	if len(shown) == 0 {
		return "", ""
	}
	if v.Aligned && len(v.Entities) > 0 {
		if echoes(v.Entities, anchors, shown) {
			return kgqa.RecoveryAlignedRecheck, fmt.Sprintf("your answer, %s, is the entity the subgoal starts from, not what the subgoal asks of it: read each fact in the direction of its arrow.", names(v.Entities))
		}
		if got, better, ok := outranked(sg, text, v, shown, anchors); ok {
			return kgqa.RecoveryAlignedRecheck, fmt.Sprintf("your answer, %s, follows %s, but %s matches the subgoal's words better: say whether the facts along %s really answer the subgoal, or judge them misaligned.",
				names(v.Entities), got, better, got)
		}
		if !slices.ContainsFunc(v.Entities, kgqa.Term.IsEntity) {
			if reader, ok := entityReader(sg.plan, sg.s.ID); ok {
				return kgqa.RecoveryAlignedRecheck, fmt.Sprintf("your answer, %s, is a value, not an entity, but the next step (%q) reads it as entities, things with facts of their own: say whether the facts really answer the subgoal, or judge them misaligned.",
					names(v.Entities), reader.Text)
			}
			if attr, ok := unasked(sg, text, v, shown, anchors); ok {
				return kgqa.RecoveryAlignedRecheck, fmt.Sprintf("your answer, %s, is what the facts give as %s, a detail of the node they pass through, which the subgoal's words do not ask for: say whether the facts really answer the subgoal, or judge them misaligned.",
					names(v.Entities), attr)
			}
		}
		best, ok := clearBest(sg, text)
		if !ok || best.typ == "" {
			return "", ""
		}
		if got, off := offType(sg, v, shown, best); off {
			return kgqa.RecoveryAlignedRecheck, fmt.Sprintf("your answer, %s, is %s, but the subgoal asks for %s (what %s reaches, the relation that matches the subgoal best).",
				names(v.Entities), typeWords(got), typeWords(best.typ), best.readable)
		}
		return "", ""
	}
	if v.Aligned || v.Overruled != "" {
		return "", ""
	}
	best, ok := clearBest(sg, text)
	if !ok {
		return "", ""
	}
	var along []string
	for i, f := range shown {
		if best.rels[firstRelation(f)] {
			along = append(along, fmt.Sprintf("F%d", i+1))
		}
	}
	if len(along) == 0 {
		return "", ""
	}
	return kgqa.RecoveryMisalignedRecheck, fmt.Sprintf("%s follow %s, the relation that matches the subgoal best of those offered; say whether they answer the subgoal.",
		strings.Join(along[:min(len(along), 5)], ", "), best.readable)
}

// echoes reports whether every answer entity is one of the subgoal's
// anchors and none of them is reached by a fact shown: the answer is where
// the facts start, not what they lead to.
func echoes(answer, anchors []kgqa.Term, shown []kgqa.Fact) bool {
	own := map[string]bool{}
	for _, a := range anchors {
		own[a.Key()] = true
	}
	for _, e := range answer {
		if !own[e.Key()] {
			return false
		}
	}
	for _, f := range shown {
		if own[f.Tail.Key()] && slices.ContainsFunc(answer, func(e kgqa.Term) bool { return e.Key() == f.Tail.Key() }) {
			return false
		}
	}
	return true
}

// best is the relation that matches a subgoal clearly best among those
// offered from its anchors, with its inverses (the relations as good as
// it that reach the same type).
type best struct {
	rels     map[kgqa.Relation]bool
	typ      string // the type they reach; "" when the schema does not say
	readable string // the first one's readable name
}

// clearBest finds the offered relations that share the most words with
// the subgoal (its text without the anchors' names), when that is a whole
// word more than every other offered relation shares, and when the ranking
// exploration uses agrees (with a relation prior loaded, no other relation
// outranks them by overlap and prior together). Relations tied at the top
// must be two at most and reach one type (a property and its reverse);
// else nothing is clear.
// It reads only the rounds from the subgoal's own anchors, and finds
// nothing once facts were found further out (a second hop, a mediator's
// neighbours): there the subgoal's words name another step.
func clearBest(sg *subgoalRun, text string) (best, bool) {
	var offered []kgqa.Relation
	seen := map[kgqa.Relation]bool{}
	var anchors []kgqa.Term
	for _, rd := range sg.rec.Rounds {
		if rd == nil {
			continue
		}
		if rd.Depth > 0 {
			if len(rd.Facts) > 0 {
				return best{}, false
			}
			continue
		}
		anchors = append(anchors, rd.Anchors...)
		for _, r := range rd.OfferedRelations {
			if !seen[r] {
				seen[r] = true
				offered = append(offered, r)
			}
		}
	}
	d := sg.e.g.Dialect()
	q := explore.Tokens(explore.WithoutNames(text, anchors))
	shared := func(r kgqa.Relation) int {
		n := 0
		for w := range explore.Tokens(d.Readable(r.ID)) {
			if q[w] {
				n++
			}
		}
		return n
	}
	top := 0
	var group []kgqa.Relation
	for _, r := range offered {
		switch n := shared(r); {
		case n > top:
			top, group = n, []kgqa.Relation{r}
		case n == top && n > 0:
			group = append(group, r)
		}
	}
	if top == 0 || len(group) > 2 || !outranks(sg, text, anchors, offered, group) {
		return best{}, false
	}
	b := best{rels: map[kgqa.Relation]bool{}, typ: sg.reaches(group[0]), readable: d.Readable(group[0].ID)}
	for _, r := range group {
		if t := sg.reaches(r); len(group) > 1 && (t == "" || t != b.typ) {
			return best{}, false
		}
		b.rels[r] = true
	}
	return b, true
}

// outranks reports whether, with a relation prior loaded, the best of
// group scores at least as high as every other offered relation by word
// overlap and prior together, as exploration ranks an offer.
func outranks(sg *subgoalRun, text string, anchors []kgqa.Term, offered, group []kgqa.Relation) bool {
	p := sg.e.prior
	if p == nil {
		return true
	}
	d := sg.e.g.Dialect()
	query := explore.WithoutNames(text, anchors)
	q := explore.Tokens(query)
	names := map[string]bool{}
	for _, a := range anchors {
		for _, w := range relprior.Words(a.Name) {
			names[w] = true
		}
	}
	var words []string
	for _, w := range relprior.Words(query + " " + sg.ans.Question) {
		if !names[w] {
			words = append(words, w)
		}
	}
	sc := p.ForWords(words)
	score := func(r kgqa.Relation) float64 {
		return explore.Overlap(q, explore.Tokens(d.Readable(r.ID))) + relprior.DefaultWeight*sc.Score(r.ID)
	}
	top, other := 0.0, 0.0
	for _, r := range offered {
		s := score(r)
		if slices.Contains(group, r) {
			top = max(top, s)
		} else {
			other = max(other, s)
		}
	}
	return top >= other
}

// reaches is the type of what relation r leads to from an anchor: its
// range followed forwards, its domain backwards ("" when unknown or
// generic). A literal's type is a type.* primitive.
func (sg *subgoalRun) reaches(r kgqa.Relation) string {
	t := sg.e.schema.Range(r.ID)
	if r.Dir == kgqa.In {
		t = sg.e.schema.Domain(r.ID)
	}
	if literalType(t) {
		return t
	}
	if genericType(t) {
		return ""
	}
	return t
}

// literalType reports whether t is the type of literal values.
func literalType(t string) bool {
	switch t {
	case "type.datetime", "type.int", "type.float", "type.text", "type.boolean", "type.uri", "type.rawstring", "type.enumeration":
		return true
	}
	return false
}

// firstRelation is the relation a fact follows from its anchor.
func firstRelation(f kgqa.Fact) kgqa.Relation {
	return kgqa.Relation{ID: f.Path[0], Dir: f.Dir}
}

// offType reports whether no answer entity of v fits the type b reaches:
// each is reached (by a fact it relied on, else by a fact shown) along
// another relation than b's, to a type known to differ. An entity whose
// type the facts do not tell fits. got is the first differing type.
func offType(sg *subgoalRun, v kgqa.Verdict, shown []kgqa.Fact, b best) (got string, off bool) {
	for _, e := range v.Entities {
		t, known := sg.typeOf(e, v.UsedFacts, shown, b)
		if !known || fits(sg, t, b.typ) {
			return "", false
		}
		if got == "" {
			got = t
		}
	}
	return got, true
}

// typeOf is the type of answer entity e from the facts that reach it, the
// ones the model relied on first; known is false when a fact along b
// reaches it, or when no fact reaching it has a known type.
func (sg *subgoalRun) typeOf(e kgqa.Term, used, shown []kgqa.Fact, b best) (string, bool) {
	for _, facts := range [][]kgqa.Fact{used, shown} {
		for _, f := range facts {
			if f.Tail.Key() != e.Key() || len(f.Path) == 0 {
				continue
			}
			if b.rels[firstRelation(f)] {
				return "", false
			}
			if len(f.Path) > 1 && !literalType(b.typ) {
				// Through a mediator: a subgoal that names both of its
				// relations ("the award in the nominations of") matches
				// either, so the best match may be the mediator's own
				// relation, whose type says nothing of the answer's.
				continue
			}
			if !e.IsEntity() {
				return "type.text", true // any literal
			}
			last := kgqa.Relation{ID: f.Path[len(f.Path)-1], Dir: f.Dir}
			if len(f.Path) > 1 {
				last.Dir = f.SecondDir()
			}
			if t := sg.reaches(last); t != "" && !literalType(t) {
				return t, true
			}
		}
	}
	return "", false
}

// fits reports whether an answer of type got is what type want asks for:
// the same type, one of its subtypes or supertypes, or, for literals,
// any literal.
func fits(sg *subgoalRun, got, want string) bool {
	if literalType(got) || literalType(want) {
		return literalType(got) == literalType(want)
	}
	return slices.Contains(sg.e.schema.Supertypes(got), want) || slices.Contains(sg.e.schema.Supertypes(want), got)
}

// typeWords names a type for the model: "a value" for a literal, else its
// last part in words ("of the type molar mass unit").
func typeWords(t string) string {
	if literalType(t) {
		return "a value, not an entity"
	}
	name := t[strings.LastIndexByte(t, '.')+1:]
	return "of the type " + strings.ReplaceAll(name, "_", " ")
}

// changed reports whether the re-asked verdict says something else.
func changed(was, now kgqa.Verdict) bool {
	if was.Aligned != now.Aligned {
		return true
	}
	return !slices.EqualFunc(was.Entities, now.Entities, func(a, b kgqa.Term) bool { return a.Key() == b.Key() })
}

// verdictWords says a verdict in a few words for the trace.
func verdictWords(v kgqa.Verdict) string {
	if !v.Aligned {
		return "misaligned"
	}
	if len(v.Entities) > 0 {
		return "aligned: " + clip(names(v.Entities), 200)
	}
	return "aligned: " + clip(v.Answer, 200)
}
