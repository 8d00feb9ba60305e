package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/refine"
)

// refineRound asks the refiner whether facts answer the subgoal (and,
// with fuse, whether the question is answered), asks again once when the
// KG doubts the verdict (see recheck), rechecks it (overrule), and records
// and reports it. calls is the refine calls made one after the other.
func refineRound(ctx context.Context, sg *subgoalRun, round int, text string, facts []kgqa.Fact, anchors []kgqa.Term, tent *kgqa.Tentative, fuse bool) (v kgqa.Verdict, calls int, err error) {
	in := refine.Input{Plan: sg.view(), Subgoal: text, Tentative: tent.Answer, Facts: facts, Fuse: fuse}
	v, err = sg.e.refiner.Refine(sg.inRound(ctx, round), in)
	if err != nil {
		return kgqa.Verdict{}, 0, stepErr("refine", sg.s.ID, err)
	}
	if len(facts) > 0 {
		calls = 1
	}
	v, n, err := recheck(ctx, sg, round, in, v, anchors)
	if err != nil {
		return kgqa.Verdict{}, calls + n, err
	}
	if v = overrule(sg, v, anchors, shownFacts(v, facts), tent); v.Overruled != "" && n > 0 {
		// The re-ask kept the answer the KG doubts: its recovery ends in
		// the overrule.
		sg.run.settleRecovery(kgqa.RecoveryAlignedRecheck, sg.s.ID, "misaligned (overruled)")
	}
	sg.rec.Verdict = &v
	vc := v
	sg.emit.send(kgqa.Event{Type: kgqa.EventRefinement, Subgoal: sg.s.ID, Verdict: &vc})
	return v, calls + n, nil
}

// The engine's own checks of what the model says during a find: the
// self-refinement loop trusts an "aligned" verdict only when it is
// consistent with the subgoal, and does not give up on a subgoal after a
// relation choice whose facts answered nothing while its anchors still
// have relations never offered to the model.

// Why a verdict was overruled, and why a round retried, in the trace.
const (
	overruledOwnAnchor = "the answer is the subgoal's own starting entity: a find answers what its relation reaches from it, so the facts were read the wrong way round"
	retryUntried       = "retry_untried"
	retryClearTop      = "clear_top_misaligned"
)

// overrule turns an aligned verdict into a misaligned one when its answer
// contradicts the subgoal: a find answers with the very entities it
// starts from. For a find from the question's topic entities (it needs no
// other subgoal) any such answer does; for one from an earlier result,
// an answer no fact shown reaches (see echoes), which the model gave
// even when asked again (see recheck): a set's member may be another
// member's neighbour, but then a fact says so. Such a verdict comes from
// facts read against their direction (a relation chosen the wrong way
// round); taking it would feed the step's own input to the next steps.
// The tentative answer stands, as for any misaligned evidence, and
// exploration goes on.
func overrule(sg *subgoalRun, v kgqa.Verdict, anchors []kgqa.Term, shown []kgqa.Fact, tent *kgqa.Tentative) kgqa.Verdict {
	if !v.Aligned || len(v.Entities) == 0 || len(anchors) == 0 {
		return v
	}
	if len(sg.s.Needs) > 0 && !echoes(v.Entities, anchors, shown) {
		return v
	}
	own := map[string]bool{}
	for _, a := range anchors {
		own[a.Key()] = true
	}
	for _, e := range v.Entities {
		if !own[e.Key()] {
			return v
		}
	}
	v.Aligned, v.KeptTentative, v.Entities, v.Overruled = false, true, nil, overruledOwnAnchor
	v.Answer = ""
	if tent != nil {
		v.Answer = tent.Answer
	}
	return v
}

// retry is one more round of a find whose rounds all ended without aligned
// evidence although facts were shown, and whose tentative answer names
// nothing (the subgoal would end with no answer): the model's relation choice (or its
// reading of the facts) led nowhere, and the descent from there found
// nothing better. Before the tentative answer is kept, the subgoal's own
// anchors are explored once more along the relations not yet tried (the
// relations prompt offers only those), and the facts found from the
// anchors are refined again with the new ones among them (a verdict may
// have misjudged the first round's; the facts found one hop beyond, from
// the wrong relation's entities, are left out). ok reports whether that gave an aligned answer, which is then
// the subgoal's result. It costs a relations call and a refine call, and
// only on subgoals that would otherwise rest on the tentative answer.
func retry(ctx context.Context, sg *subgoalRun, x *explore.Explorer, text string, anchors []kgqa.Term, tent *kgqa.Tentative, all []kgqa.Fact, end int) (kgqa.Result, int, bool, error) {
	if len(all) == 0 || len(anchors) == 0 || (tent != nil && len(tent.Names) > 0 && !echoesAnchors(tent.Names, anchors)) {
		// A tentative answer that names something stands on misaligned
		// evidence, as PARoG's asymmetric trust has it; one that names
		// only the subgoal's own anchors answers nothing (a find asks
		// what its relation reaches from them), as with an aligned
		// verdict (see overrule).
		return kgqa.Result{}, end, false, nil
	}
	// Untried from these anchors: a relation chosen one hop further on
	// (from other entities) is still to try here.
	round := len(sg.rec.Rounds) + 1
	rd, end, err := x.Retry(sg.inRound(ctx, round), anchors, triedFrom(sg, anchors), end)
	if rd == nil && err == nil {
		return kgqa.Result{}, end, false, nil
	}
	if rd != nil {
		rd.Retry = retryUntried
		sg.rec.Rounds = append(sg.rec.Rounds, rd)
	}
	if err != nil {
		return kgqa.Result{}, end, false, err
	}
	rc := *rd
	sg.emit.send(kgqa.Event{Type: kgqa.EventExploration, Subgoal: sg.s.ID, Round: &rc})
	if len(rd.Facts) == 0 {
		return kgqa.Result{}, end, false, nil
	}
	all = append(all, rd.Facts...)
	sg.addFacts(rd.Facts)
	facts := promptFacts(sg.e.g.Dialect(), text, fromAnchors(all, anchors), sg.b.MaxEntitiesPerRelation, sg.pack().FactsPerPrompt)
	// The retry's refine call judges sufficiency too, as the rounds' did:
	// a judgement made on their misaligned evidence is stale now.
	v, calls, err := refineRound(ctx, sg, round, text, facts, anchors, tent, sg.fuse())
	end += calls
	if err != nil {
		return kgqa.Result{}, end, false, err
	}
	recordFused(sg, v)
	if !v.Aligned || (len(v.Entities) == 0 && v.Answer == "") {
		echoRetried(sg, tent, rd, "")
		return kgqa.Result{}, end, false, nil
	}
	res, end, err := accept(ctx, sg, x, tent, v, all, facts, end)
	echoRetried(sg, tent, rd, summary(res))
	return res, end, err == nil, err
}

// echoRetried records the retry of a subgoal whose tentative answer named
// only its own anchors (see retry): the relations it tried, and what they
// gave ("" for nothing aligned).
func echoRetried(sg *subgoalRun, tent *kgqa.Tentative, rd *kgqa.Round, got string) {
	if tent == nil || len(tent.Names) == 0 {
		return
	}
	var rels []string
	for _, r := range rd.Chosen {
		rels = append(rels, r.ID+" ("+string(r.Dir)+")")
	}
	to := ""
	if got != "" {
		to = strings.Join(rels, ", ") + ": " + clip(got, 200)
	}
	sg.recovered(kgqa.RecoveryNextRelation, sg.s.ID, "tentative answer "+clip(tent.Answer, 200)+", the subgoal's own starting entity", to)
}

// triedFrom is the set of relations the subgoal's rounds chose from any of
// anchors.
func triedFrom(sg *subgoalRun, anchors []kgqa.Term) map[kgqa.Relation]bool {
	at := map[string]bool{}
	for _, a := range anchors {
		at[a.Key()] = true
	}
	out := map[kgqa.Relation]bool{}
	for _, rd := range sg.rec.Rounds {
		if rd == nil || !slices.ContainsFunc(rd.Anchors, func(a kgqa.Term) bool { return at[a.Key()] }) {
			continue
		}
		for _, r := range rd.Chosen {
			out[r] = true
		}
	}
	return out
}

// fromAnchors keeps the facts whose head is one of anchors.
func fromAnchors(facts []kgqa.Fact, anchors []kgqa.Term) []kgqa.Fact {
	at := map[string]bool{}
	for _, a := range anchors {
		at[a.Key()] = true
	}
	var out []kgqa.Fact
	for _, f := range facts {
		if at[f.Head.Key()] {
			out = append(out, f)
		}
	}
	return out
}

// accept makes the subgoal's result of an aligned verdict v.
func accept(ctx context.Context, sg *subgoalRun, x *explore.Explorer, tent *kgqa.Tentative, v kgqa.Verdict, all, facts []kgqa.Fact, end int) (kgqa.Result, int, error) {
	res := kgqa.Result{Text: v.Answer, Entities: nonNil(v.Entities), Source: "evidence"}
	if res.Text == "" {
		res.Text = names(res.Entities)
	}
	sg.rec.Corrected = corrected(tent, res)
	if !sg.truncates() {
		res, sg.rec.Expansion = expand(res, all, facts)
	}
	res.Capped = cappedFrom(sg.rec.Rounds, res.Entities)
	return truncate(ctx, sg, x, res, facts, end)
}

// truncate applies WithResultTruncation: the result keeps at most Width
// entities, pruned like a frontier and recorded in Truncation.
func truncate(ctx context.Context, sg *subgoalRun, x *explore.Explorer, res kgqa.Result, facts []kgqa.Fact, end int) (kgqa.Result, int, error) {
	if !sg.truncates() || len(res.Entities) <= sg.b.Width {
		return res, end, nil
	}
	var cands []explore.Candidate
	for _, t := range res.Entities {
		c := explore.Candidate{Term: t, Fact: kgqa.Fact{Head: t, Tail: t}}
		for _, f := range facts {
			if f.Tail.Key() == t.Key() || f.Head.Key() == t.Key() {
				c.Fact = f
				break
			}
		}
		cands = append(cands, c)
	}
	rd := &kgqa.Round{}
	kept, end, err := x.Prune(ctx, rd, cands, end)
	if err != nil {
		return kgqa.Result{}, end, err
	}
	sg.rec.Truncation = rd.Pruning
	res.Entities = kept
	res.Text = names(kept)
	return res, end, nil
}

// echoesAnchors reports whether every name is the name of one of anchors
// (folded).
func echoesAnchors(names []string, anchors []kgqa.Term) bool {
	own := map[string]bool{}
	for _, a := range anchors {
		own[naming.Fold(a.Name)] = true
	}
	for _, n := range names {
		if !own[naming.Fold(n)] {
			return false
		}
	}
	return len(names) > 0
}
