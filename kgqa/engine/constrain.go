package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/parog/parog-go/refine"
	"golang.org/x/sync/errgroup"
)

// constrain runs compare, superlative and filter subgoals on the needed
// set. Like every subgoal it first gets a tentative answer from the
// model's own knowledge, asked while the attribute is explored. Values
// are compared exactly when they parse as numbers or dates (through a
// dated mediator, the value of the date the subgoal names; see qualify),
// which refines the tentative answer; for filters stated only in words,
// or values that do not parse, the model selects the members from the
// facts about them. Where the KG holds no value of the attribute for any
// member (or the needed set is empty), there is nothing to refine with:
// the tentative answer stands, as for a find without aligned evidence,
// and the set operation's method says so.
//
// A compare whose value is a reference "#k" compares with the values of
// subgoal sk's result (a date or number reached from another entity, such
// as the start of a presidency) instead of a literal; its members are those
// of its other needs. A member is kept when one of its values compares as
// stated with one of the bound's values, as a SPARQL FILTER between two
// variables keeps every binding that satisfies it.
func constrain(ctx context.Context, sg *subgoalRun) (kgqa.Result, int, error) {
	members, capped := sg.neededEntities(), neededCapped(sg)
	var bounds []value
	boundID, bounded := sg.s.Args.BoundRef()
	if bounded && sg.s.Op == kgqa.OpCompare {
		members, bounds = sg.neededExcept(boundID), sg.boundValues(boundID)
	} else {
		bounded = false
	}
	rec := &kgqa.SetOpRecord{Inputs: []int{len(members)}}
	sg.rec.SetOp = rec
	// Each member costs KG queries: as many as one neighbour query may
	// return, the same bound as every other set.
	if len(members) > sg.e.kgLimit {
		members, capped = members[:sg.e.kgLimit], true
		rec.Note = fmt.Sprintf("only the first %d of %d members were examined (the KG's neighbour limit)", sg.e.kgLimit, rec.Inputs[0])
	}
	sg.rec.Anchors = members
	sg.emit.send(kgqa.Event{Type: kgqa.EventSubgoalStarted, Subgoal: sg.s.ID, Anchors: topicsOf(members)})
	if res, ok, err := sg.validFilter(ctx, members, rec); ok || err != nil {
		return res, sg.d0, err
	}
	args := args(sg)
	rec.Cmp, rec.Order = args.Cmp, args.Order
	text := sg.text()
	x := sg.newExplorer(text)
	x.SetAttribute(args.Attribute)
	end := sg.d0
	var facts []kgqa.Fact
	var tent *kgqa.Tentative
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		tent, err = tentative(gctx, sg, text)
		return err
	})
	if len(members) > 0 && members[0].IsEntity() {
		g.Go(func() error {
			var err error
			facts, end, err = attributeFacts(gctx, sg, x, members, args, end)
			return err
		})
	}
	err := g.Wait()
	sg.rec.Tentative = tent
	if err != nil {
		return kgqa.Result{}, end, err
	}
	end = max(end, sg.d0+tentativeCalls(sg))
	sg.addFacts(facts)
	capped = capped || cappedFrom(sg.rec.Rounds, members)
	if len(members) == 0 {
		res, end, _, err := tentativeStands(ctx, sg, tent, members, "the needed set is empty", capped, end)
		return res, end, err
	}
	out, ok, note := checkValues(sg, args, members, facts, bounded, bounds, rec)
	if ok {
		rec.Method, rec.Note = "exact", joinNotes(rec.Note, note)
		out = keepUnvalued(sg, out, members, tent, rec)
		res := kgqa.Result{Text: names(out), Entities: out, Source: "exact", Capped: capped}
		sg.rec.Corrected = corrected(tent, res)
		return res, end, nil
	}
	if len(facts) == 0 && members[0].IsEntity() {
		why := "the KG holds no value of the attribute for any member"
		if sg.rec.Boundary != "" {
			why = sg.rec.Boundary + ": the KG holds no value of the attribute for any member (no relation of theirs carries it)"
		}
		if res, e, ok, err := tentativeStands(ctx, sg, tent, members, why, capped, end); ok || err != nil {
			return res, e, err
		}
	}
	rec.Method = "llm"
	out, err = selectMembers(ctx, sg, text, members, facts)
	if err != nil {
		return kgqa.Result{}, end, err
	}
	res := kgqa.Result{Text: names(out), Entities: nonNil(out), Source: "llm", Capped: capped}
	sg.rec.Corrected = corrected(tent, res)
	return res, end + 1, nil
}

// checkValues keeps the members whose values meet the constraint, exactly,
// when the KG's values can decide it (ok). Dated mediators: only the value
// of the date the subgoal names (its own text, not the member names #1
// expands to) is compared; compared with a bound of dates, the dates are
// the values themselves. note says how the dates were read.
func checkValues(sg *subgoalRun, args kgqa.Args, members []kgqa.Term, facts []kgqa.Fact, bounded bool, bounds []value, rec *kgqa.SetOpRecord) (out []kgqa.Term, ok bool, note string) {
	values := facts
	if !bounded || len(bounds) == 0 || !bounds[0].isTime {
		times := statedTimes(args, sg.s.Text)
		values, note = qualify(facts, times, args)
		if note != "" {
			rec.Dated = &kgqa.DatedValues{}
			for _, w := range times {
				rec.Dated.Times = append(rec.Dated.Times, w.String())
			}
		}
	}
	switch {
	case bounded:
		out, ok = boundedConstraint(members, values, args, bounds, rec)
	case args.Type == kgqa.TypeText:
		out, ok = textConstraint(members, values, args, rec)
	default:
		out, ok = exactConstraint(members, values, args, rec)
	}
	return out, ok, note
}

// tentativeStands makes the tentative answer the result of a constraint
// the KG gave nothing to check against, its names resolved to the members
// first and to the KG by exact name otherwise. ok is false when the
// tentative answer names nothing and the needed set is not empty: the
// model then selects from the members.
func tentativeStands(ctx context.Context, sg *subgoalRun, t *kgqa.Tentative, members []kgqa.Term, why string, capped bool, end int) (kgqa.Result, int, bool, error) {
	rec := sg.rec.SetOp
	if t == nil || len(t.Names) == 0 {
		if len(members) == 0 {
			rec.Method, rec.Note = "exact", joinNotes(rec.Note, why)
			return kgqa.Result{Entities: []kgqa.Term{}, Source: "exact", Capped: capped}, end, true, nil
		}
		return kgqa.Result{}, end, false, nil
	}
	pseudo := make([]kgqa.Fact, len(members))
	for i, m := range members {
		pseudo[i] = kgqa.Fact{Head: m, Tail: m}
	}
	ents, rest := refine.Resolve(pseudo, t.Names)
	res, err := fromTentative(ctx, sg, &kgqa.Tentative{Answer: t.Answer, Names: rest})
	if err != nil {
		return kgqa.Result{}, end, false, err
	}
	res.Entities = append(nonNil(ents), res.Entities...)
	res.Text, res.Capped = names(res.Entities), capped
	rec.Method, rec.Note = "tentative", joinNotes(rec.Note, why+": the tentative answer stands")
	return res, end, true, nil
}

// args returns the subgoal's structured constraint, completed from its
// text where the plan left it out.
func args(sg *subgoalRun) kgqa.Args {
	var a kgqa.Args
	if sg.s.Args != nil {
		a = *sg.s.Args
	}
	if sg.s.Op == kgqa.OpFilter && a.Value != "" && a.Cmp == "" {
		a.Cmp = "="
	}
	if sg.s.Op == kgqa.OpSuperlative && a.Order == "" {
		a.Order = inferOrder(sg.s.Text)
	}
	return a
}

func inferOrder(text string) string {
	words := explore.Tokens(text)
	for _, w := range []string{"last", "latest", "recent", "newest", "largest", "biggest", "highest", "longest", "tallest", "maximum", "greatest", "most"} {
		if words[naming.Stem(w)] {
			return "max"
		}
	}
	for _, w := range []string{"first", "earliest", "smallest", "lowest", "shortest", "least", "minimum", "fewest"} {
		if words[naming.Stem(w)] {
			return "min"
		}
	}
	return ""
}

// attributeFacts finds the relation that carries the compared attribute and
// fetches its values for every member. The relation is chosen lexically
// when one name clearly matches the attribute, else by the model.
func attributeFacts(ctx context.Context, sg *subgoalRun, x *explore.Explorer, members []kgqa.Term, args kgqa.Args, d int) ([]kgqa.Fact, int, error) {
	rd := &kgqa.Round{Anchors: members, Chosen: []kgqa.Relation{}, Facts: []kgqa.Fact{}}
	defer func() {
		sg.rec.Rounds = append(sg.rec.Rounds, rd)
		rc := *rd
		sg.emit.send(kgqa.Event{Type: kgqa.EventExploration, Subgoal: sg.s.ID, Round: &rc})
	}()
	rels, err := x.Relations(ctx, members)
	if err != nil {
		return nil, d, err
	}
	offered, has, cut, err := x.Offer(ctx, members, rels)
	if err != nil {
		return nil, d, err
	}
	rd.Offered, rd.OfferedRelations, rd.Cut = len(offered), offered, cut
	if len(offered) == 0 {
		sg.rec.Boundary = retrieval.ReasonPropertyNotInKG
		return nil, d, nil
	}
	// The model chooses, seeing the whole plan, as for a find; it may
	// keep more than one relation where the schema has alternatives
	// (a start date against a date of birth), and the values decide.
	max := sg.b.MaxRelationsPerEntity
	if len(offered) == 1 {
		rd.Chosen, rd.ChosenBy = offered, "only_offered"
	} else if r, ok := exactAttribute(sg, x, offered); ok {
		rd.Chosen, rd.ChosenBy = []kgqa.Relation{r}, chosenByName
	} else {
		calls, err := x.ChoosePaged(ctx, rd, offered, max)
		d += calls
		if err != nil {
			return nil, d, err
		}
		if len(rd.Chosen) == 0 && cut == nil {
			// Every relation of the members was offered and none
			// carries the attribute.
			sg.rec.Boundary = retrieval.ReasonPropertyNotInKG
		}
		if best, why, ok := planAttribute(sg, x, members, offered, rd.Chosen); ok {
			rd.Chosen, rd.ChosenBy, rd.Fallback = []kgqa.Relation{best}, chosenByPlan, why
			sg.rec.SetOp.Note = joinNotes(sg.rec.SetOp.Note, why)
		}
	}
	rd.Facts, err = x.Neighbors(ctx, rd, rd.Chosen, has)
	if err != nil {
		return nil, d, err
	}
	facts := rd.Facts
	if args.Cmp != "" || args.Order != "" {
		facts = bestAttribute(sg, rd.Chosen, members, facts)
	} else if len(rd.Chosen) == 1 {
		a := rd.Chosen[0]
		sg.rec.SetOp.Attribute = &a
	}
	return facts, d, nil
}

// bestAttribute keeps, of the relations chosen for a comparison or a
// superlative, the one that gives a value that parses (a number or a
// date) to the most members, ties in the model's order, and returns its
// facts; the others are named in the set operation's note. A relation
// whose values do not parse cannot be compared exactly.
func bestAttribute(sg *subgoalRun, chosen []kgqa.Relation, members []kgqa.Term, facts []kgqa.Fact) []kgqa.Fact {
	if len(chosen) == 0 {
		return facts
	}
	isMember := map[string]bool{}
	for _, m := range members {
		isMember[m.ID] = true
	}
	valued := map[kgqa.Relation]map[string]bool{}
	for _, f := range facts {
		r := factRelation(f)
		if _, ok := parseValue(f.Tail); ok && isMember[f.Head.ID] {
			if valued[r] == nil {
				valued[r] = map[string]bool{}
			}
			valued[r][f.Head.ID] = true
		}
	}
	best := chosen[0]
	for _, r := range chosen[1:] {
		if len(valued[r]) > len(valued[best]) {
			best = r
		}
	}
	sg.rec.SetOp.Attribute = &best
	if len(chosen) > 1 {
		var alt []string
		for _, r := range chosen {
			alt = append(alt, fmt.Sprintf("%s (%d of %d members valued)", r.ID, len(valued[r]), len(members)))
		}
		sg.rec.SetOp.Note = joinNotes(sg.rec.SetOp.Note, "attribute chosen by its values among "+strings.Join(alt, ", "))
	}
	var out []kgqa.Fact
	for _, f := range facts {
		if factRelation(f) == best {
			out = append(out, f)
		}
	}
	return out
}

// factRelation is the first relation of a fact, as it was chosen.
func factRelation(f kgqa.Fact) kgqa.Relation {
	if len(f.Path) == 0 {
		return kgqa.Relation{}
	}
	return kgqa.Relation{ID: f.Path[0], Dir: f.Dir}
}

// keepUnvalued adds to an exact result the members the tentative answer
// names that have no value of the attribute: exact logic cannot rule them
// out, so they stay candidates beside what it kept.
func keepUnvalued(sg *subgoalRun, out, members []kgqa.Term, t *kgqa.Tentative, rec *kgqa.SetOpRecord) []kgqa.Term {
	out = nonNil(out)
	if t == nil || len(t.Names) == 0 || rec.Unparsed == 0 {
		return out
	}
	pseudo := make([]kgqa.Fact, 0, len(members))
	for _, m := range members {
		if _, valued := rec.Values[m.Key()]; !valued {
			pseudo = append(pseudo, kgqa.Fact{Head: m, Tail: m})
		}
	}
	ents, _ := refine.Resolve(pseudo, t.Names)
	var kept []string
	for _, e := range ents {
		if !contains(out, e) {
			out = append(out, e)
			kept = append(kept, names([]kgqa.Term{e}))
		}
	}
	if len(kept) > 0 {
		rec.Note = joinNotes(rec.Note, "kept from the tentative answer, having no value to compare: "+strings.Join(kept, ", "))
	}
	return out
}
