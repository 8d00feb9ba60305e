package engine

import (
	"context"
	"slices"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// find runs PARoG's loop for one subgoal: a tentative answer (beside the
// first exploration round), then rounds of exploration each checked by
// refinement, until the evidence is aligned or the budgets run out, when
// the tentative answer is kept. A subgoal whose text names two relations
// explores a second hop from the first's answer; a verified branch of a
// conjunction is first checked against the branch that ran before it.
func find(ctx context.Context, sg *subgoalRun) (kgqa.Result, int, error) {
	if res, end, ok, err := sg.literalFind(ctx); ok || err != nil {
		return res, end, err
	}
	if res, end, settled, err := checkBranch(ctx, sg); err != nil || settled {
		return res, end, err
	}
	text, anchors := sg.text(), sg.anchors()
	started(sg, anchors)
	x := sg.explorerFor(text)
	if sg.b.ClearTopFacts {
		x.SkipClearChoice()
	}
	tent, rd, end, err := answerAndExplore(ctx, sg, x, text, anchors)
	if err != nil {
		return kgqa.Result{}, end, err
	}
	var all []kgqa.Fact
	var first *firstHop
	depth, rounds := 0, sg.b.MaxRounds
	for round := 1; ; round++ {
		if err := sg.keepValidFacts(ctx, rd); err != nil {
			return kgqa.Result{}, end, err
		}
		all = explored(sg, rd, all)
		facts := promptFacts(sg.e.g.Dialect(), text, all, sg.b.MaxEntitiesPerRelation, sg.pack().FactsPerPrompt)
		v, calls, err := refineRound(ctx, sg, round, text, facts, anchors, tent, sg.fuse())
		end += calls
		if err != nil {
			return kgqa.Result{}, end, err
		}
		recordFused(sg, v)
		if v.Aligned && (len(v.Entities) > 0 || v.Answer != "") {
			if depth > 0 || !bundlesHops(sg) || round >= rounds || len(v.Entities) == 0 {
				return accept(ctx, sg, x, tent, v, all, facts, end)
			}
			// The first of the two hops the subgoal names: what it found
			// is where the second starts, and the answer if that hop
			// finds nothing aligned.
			first = &firstHop{v: v, all: slices.Clone(all), facts: facts}
			if rd, end, err = exploreRound(ctx, sg, x, round+1, v.Entities, 1, end); err != nil {
				return kgqa.Result{}, end, err
			}
			rd.DepthReason, depth = retrieval.ReasonCompositionTwoRelations, 1
			continue
		}
		if answeredEarly(sg) {
			break
		}
		if rd.ChoiceSkipped {
			// The clear top's facts did not answer: the round is run
			// again with the model's choice, and counts as none.
			rounds++
			if rd, end, all, err = reoffer(ctx, sg, x, round+1, rd, end); err != nil {
				return kgqa.Result{}, end, err
			}
			continue
		}
		if round >= rounds {
			break
		}
		var ok bool
		if rd, depth, end, ok, err = nextRound(ctx, sg, x, round+1, rd, depth, end); err != nil || !ok {
			if err != nil {
				return kgqa.Result{}, end, err
			}
			break
		}
	}
	return settle(ctx, sg, x, text, anchors, tent, first, all, end)
}

// started records the subgoal's anchors and reports that it started.
func started(sg *subgoalRun, anchors []kgqa.Term) {
	sg.rec.Anchors = anchors
	sg.emit.send(kgqa.Event{Type: kgqa.EventSubgoalStarted, Subgoal: sg.s.ID, Anchors: topicsOf(anchors)})
}

// answerAndExplore asks for the tentative answer and explores the first
// round at once: neither depends on the other. It returns the LLM depth
// at which both ended.
func answerAndExplore(ctx context.Context, sg *subgoalRun, x *explore.Explorer, text string, anchors []kgqa.Term) (*kgqa.Tentative, *kgqa.Round, int, error) {
	var tent *kgqa.Tentative
	var rd *kgqa.Round
	end := sg.d0
	err := both(ctx, func(gctx context.Context) error {
		var err error
		tent, err = tentative(gctx, sg, text)
		return err
	}, func(gctx context.Context) error {
		var err error
		rd, end, err = x.Round(sg.inRound(gctx, 1), anchors, 0, sg.d0)
		return err
	})
	if tent != nil {
		sg.rec.Tentative = tent
	}
	if err != nil {
		if rd != nil {
			sg.rec.Rounds = append(sg.rec.Rounds, rd)
		}
		return nil, nil, end, err
	}
	return tent, rd, max(end, sg.d0+tentativeCalls(sg)), nil
}

// explored records round rd and its facts, reports it, and returns all
// with its facts added.
func explored(sg *subgoalRun, rd *kgqa.Round, all []kgqa.Fact) []kgqa.Fact {
	sg.rec.Rounds = append(sg.rec.Rounds, rd)
	rc := *rd
	sg.emit.send(kgqa.Event{Type: kgqa.EventExploration, Subgoal: sg.s.ID, Round: &rc})
	sg.addFacts(rd.Facts)
	return append(all, rd.Facts...)
}

// exploreRound runs round n from anchors; a round that fails is recorded
// as far as it got.
func exploreRound(ctx context.Context, sg *subgoalRun, x *explore.Explorer, n int, anchors []kgqa.Term, depth, end int) (*kgqa.Round, int, error) {
	rd, end, err := x.Round(sg.inRound(ctx, n), anchors, depth, end)
	if err != nil {
		sg.rec.Rounds = append(sg.rec.Rounds, rd)
	}
	return rd, end, err
}

// nextRound runs round n from where round rd leads (explore.Next); ok is
// false when there is nowhere left to go.
func nextRound(ctx context.Context, sg *subgoalRun, x *explore.Explorer, n int, rd *kgqa.Round, depth, end int) (*kgqa.Round, int, int, bool, error) {
	next, depth, end, ok, err := x.Next(sg.inRound(ctx, n), rd, depth, end)
	if err != nil || !ok {
		return nil, depth, end, false, err
	}
	rd, end, err = exploreRound(ctx, sg, x, n, next, depth, end)
	return rd, depth, end, err == nil, err
}

// reoffer runs round n again from the anchors of round rd, which skipped
// the relation choice (explore.SkipClearChoice) and whose facts did not
// answer: the model chooses among the whole offer, the clear top
// included, as it would have in rd. rd's facts leave the evidence, which
// the new round's replace; all is what remains of it.
func reoffer(ctx context.Context, sg *subgoalRun, x *explore.Explorer, n int, rd *kgqa.Round, end int) (*kgqa.Round, int, []kgqa.Fact, error) {
	x.Reoffer(rd)
	sg.dropFacts(rd.Facts)
	next, end, err := exploreRound(ctx, sg, x, n, rd.Anchors, rd.Depth, end)
	if next != nil {
		next.Retry = retryClearTop
	}
	return next, end, nil, err
}

// settle ends a find whose rounds found no aligned evidence to accept at
// once: the first hop's answer when the second found nothing aligned,
// else a retry along the anchors' untried relations, else (asymmetric
// trust) the tentative answer.
func settle(ctx context.Context, sg *subgoalRun, x *explore.Explorer, text string, anchors []kgqa.Term, tent *kgqa.Tentative, first *firstHop, all []kgqa.Fact, end int) (kgqa.Result, int, error) {
	if first != nil {
		sg.rec.Verdict = &first.v
		return accept(ctx, sg, x, tent, first.v, first.all, first.facts, end)
	}
	if !answeredEarly(sg) {
		res, e, ok, err := retry(ctx, sg, x, text, anchors, tent, all, end)
		if err != nil || ok {
			return res, e, err
		}
		end = e
	}
	res, err := fromTentative(ctx, sg, tent)
	return res, end, err
}

// firstHop is the aligned verdict of the first of the two hops a
// subgoal names, with the evidence it saw.
type firstHop struct {
	v     kgqa.Verdict
	all   []kgqa.Fact
	facts []kgqa.Fact
}

// bundlesHops reports whether the subgoal's pack gave it a second hop
// because its text names two relations: the first hop's answer is then
// where the second starts.
func bundlesHops(sg *subgoalRun) bool {
	return sg.pack().Reasons[retrieval.ParamDepth] == retrieval.ReasonCompositionTwoRelations && sg.b.Depth >= 2
}

// checkBranch runs a verified branch of a conjunction as a check of the
// candidates of the branch it waits for (see verify). settled is false
// when the check settled nothing and the branch is to be explored in full,
// with its tentative answer.
func checkBranch(ctx context.Context, sg *subgoalRun) (res kgqa.Result, end int, settled bool, err error) {
	against, ok := sg.verifyAgainst[sg.s.ID]
	if !ok {
		return kgqa.Result{}, sg.d0, false, nil
	}
	res, end, settled, err = verify(ctx, sg, against)
	if err != nil || settled {
		return res, end, settled, err
	}
	sg.d0 = end // the check settled nothing: explore in full
	sg.mu.Lock()
	if t, ok := sg.tentativeBefore[sg.s.ID]; ok && sg.rec.Retrieval != nil {
		// Explored in full, the branch gets its tentative answer.
		sg.rec.Retrieval.Tentative, sg.rec.Retrieval.Reasons[retrieval.ParamTentative] = t, "verified_branch_explored"
	}
	sg.mu.Unlock()
	return kgqa.Result{}, end, false, nil
}

// verify runs a branch of a conjunction as a check of the candidates of
// the branch that ran first: the model chooses the branch's relations as
// in exploration, and the KG answers which candidates they reach, with no
// tentative answer, neighbour list or refinement. ok is false when the
// check settles nothing (no relation to check, or no candidate passed), so
// the branch is explored in full instead.
func verify(ctx context.Context, sg *subgoalRun, against string) (res kgqa.Result, end int, ok bool, err error) {
	sg.mu.Lock()
	first := sg.results[against]
	sg.mu.Unlock()
	v := &kgqa.Verification{Against: against}
	sg.rec.Verification = v
	var cands []kgqa.Term
	var ids []string
	capped := false
	if first != nil {
		capped = first.Capped
		for _, t := range first.Entities {
			if t.IsEntity() {
				cands, ids = append(cands, t), append(ids, t.ID)
			}
		}
	}
	v.Candidates = len(cands)
	text, anchors := sg.text(), sg.anchors()
	started(sg, anchors)
	x := sg.explorerFor(text)
	if len(cands) == 0 {
		// No entity to check (the first branch kept a tentative answer,
		// or the KG lacks its facts): explore this branch in full, with
		// its tentative answer and refinement, and let the intersection
		// decide, as when every branch is explored.
		v.Fallback, v.Note = true, "the branch checked against found no entity: explored in full"
		sg.mu.Lock()
		sg.picks[sg.s.ID] = x
		sg.mu.Unlock()
		return kgqa.Result{}, sg.d0, false, nil
	}
	rd, reached, end, err := x.Reach(ctx, anchors, ids, sg.d0)
	sg.rec.Rounds = append(sg.rec.Rounds, rd)
	if err != nil {
		return kgqa.Result{}, end, false, err
	}
	v.Relations = rd.Chosen
	kept := []kgqa.Term{}
	for _, t := range cands {
		if reached[t.ID] {
			kept = append(kept, t)
		}
	}
	v.Kept = len(kept)
	if len(kept) == 0 {
		v.Fallback, v.Note = true, "no candidate passed the check: explored in full"
		return kgqa.Result{}, end, false, nil
	}
	rc := *rd
	sg.emit.send(kgqa.Event{Type: kgqa.EventExploration, Subgoal: sg.s.ID, Round: &rc})
	return kgqa.Result{Text: names(kept), Entities: kept, Source: "verified", Capped: capped}, end, true, nil
}
