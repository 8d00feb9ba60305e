package engine

import (
	"context"
	"slices"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/parog/parog-go/refine"
)

// find runs the Answer-Explore-Refine loop of one subgoal: a tentative
// answer (in parallel with the first exploration round), then rounds of
// exploration each checked by refinement, until the evidence is aligned or
// the budgets run out, when the tentative answer is kept.
func (sg *subgoalRun) find(ctx context.Context) (kgqa.Result, int, error) {
	if res, end, ok, err := sg.literalFind(ctx); ok || err != nil {
		return res, end, err
	}
	if against, ok := sg.verifyAgainst[sg.s.ID]; ok {
		res, end, settled, err := sg.verify(ctx, against)
		if err != nil || settled {
			return res, end, err
		}
		sg.d0 = end // the check settled nothing: explore in full
		sg.mu.Lock()
		if t, ok := sg.tentativeBefore[sg.s.ID]; ok && sg.rec.Retrieval != nil {
			// Explored in full, the branch gets its tentative answer.
			sg.rec.Retrieval.Tentative, sg.rec.Retrieval.Reasons[retrieval.ParamTentative] = t, "verified_branch_explored"
		}
		sg.mu.Unlock()
	}
	text := sg.text()
	anchors := sg.anchors()
	sg.rec.Anchors = anchors
	sg.emit.send(kgqa.Event{Type: kgqa.EventSubgoalStarted, Subgoal: sg.s.ID, Anchors: topicsOf(anchors)})
	x := sg.explorerFor(text)

	var tent *kgqa.Tentative
	var rd *kgqa.Round
	end := sg.d0
	err := both(ctx, func(gctx context.Context) error {
		var err error
		tent, err = sg.tentative(gctx, text)
		return err
	}, func(gctx context.Context) error {
		var err error
		rd, end, err = x.round(sg.inRound(gctx, 1), anchors, 0, sg.d0)
		return err
	})
	if tent != nil {
		sg.rec.Tentative = tent
	}
	if err != nil {
		if rd != nil {
			sg.rec.Rounds = append(sg.rec.Rounds, rd)
		}
		return kgqa.Result{}, end, err
	}
	end = max(end, sg.d0+1) // the tentative answer is one call deep

	var all []kgqa.Fact
	var first *firstHop
	depth, answered := 0, false
	for round := 1; ; round++ {
		if err := sg.keepValidFacts(ctx, rd); err != nil {
			return kgqa.Result{}, end, err
		}
		sg.rec.Rounds = append(sg.rec.Rounds, rd)
		rc := *rd
		sg.emit.send(kgqa.Event{Type: kgqa.EventExploration, Subgoal: sg.s.ID, Round: &rc})
		all = append(all, rd.Facts...)
		sg.addFacts(rd.Facts)

		facts := promptFacts(sg.e.g.Dialect(), text, all, sg.b.MaxEntitiesPerRelation, sg.pack().FactsPerPrompt)
		v, err := sg.e.refiner.Refine(sg.inRound(ctx, round), refine.Input{Plan: sg.view(), Subgoal: text, Tentative: tent.Answer, Facts: facts, Fuse: sg.fuse()})
		if err != nil {
			return kgqa.Result{}, end, stepErr("refine", sg.s.ID, err)
		}
		if len(facts) > 0 {
			end++
		}
		v = sg.overrule(v, anchors, tent)
		sg.rec.Verdict = &v
		vc := v
		sg.emit.send(kgqa.Event{Type: kgqa.EventRefinement, Subgoal: sg.s.ID, Verdict: &vc})
		if v.Sufficient != nil {
			// The final answer may name entities of earlier subgoals:
			// resolve against all evidence, as the separate check does.
			ents := v.FinalEntities
			if *v.Sufficient {
				ents = sg.resolveAll(sg.judgedAfter(sg.plan, sg.s.ID), v.FinalRefs)
			}
			sg.rec.Sufficiency = &kgqa.Sufficiency{Sufficient: *v.Sufficient, Answer: v.FinalAnswer, Entities: ents, Fused: true, Reason: v.Reason}
		}
		if v.Aligned && (len(v.Entities) > 0 || v.Answer != "") {
			if depth == 0 && sg.bundlesHops() && round < sg.b.MaxRounds && len(v.Entities) > 0 {
				// The first of the two hops the subgoal names: what it
				// found is where the second hop starts, and the answer
				// if that hop finds nothing aligned.
				first = &firstHop{v: v, all: slices.Clone(all), facts: facts}
				if rd, end, err = x.round(sg.inRound(ctx, round+1), v.Entities, 1, end); err != nil {
					sg.rec.Rounds = append(sg.rec.Rounds, rd)
					return kgqa.Result{}, end, err
				}
				rd.DepthReason, depth = retrieval.ReasonCompositionTwoRelations, 1
				continue
			}
			return sg.accept(ctx, x, tent, v, all, facts, end)
		}
		if suf := sg.rec.Sufficiency; suf != nil && suf.Sufficient && (suf.Answer != "" || len(suf.Entities) > 0) {
			// The question is answered at this round: the run stops
			// after this subgoal, so a further round would be wasted.
			answered = true
			break
		}
		if round >= sg.b.MaxRounds {
			break
		}
		var next []kgqa.Term
		var ok bool
		next, depth, end, ok, err = x.next(sg.inRound(ctx, round+1), rd, depth, end)
		if err != nil {
			return kgqa.Result{}, end, err
		}
		if !ok {
			break
		}
		if rd, end, err = x.round(sg.inRound(ctx, round+1), next, depth, end); err != nil {
			sg.rec.Rounds = append(sg.rec.Rounds, rd)
			return kgqa.Result{}, end, err
		}
	}
	if first == nil && !answered {
		res, e, ok, err := sg.retry(ctx, x, text, anchors, tent, all, end)
		if err != nil || ok {
			return res, e, err
		}
		end = e
	}
	if first != nil {
		// The second hop found nothing aligned: the first hop's answer
		// is the subgoal's.
		sg.rec.Verdict = &first.v
		return sg.accept(ctx, x, tent, first.v, first.all, first.facts, end)
	}
	// Asymmetric trust: no aligned evidence, so the tentative answer stands.
	res, err := sg.fromTentative(ctx, tent)
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
func (sg *subgoalRun) bundlesHops() bool {
	return sg.pack().Reasons[retrieval.ParamDepth] == retrieval.ReasonCompositionTwoRelations && sg.b.Depth >= 2
}

// accept makes the subgoal's result of an aligned verdict v.
func (sg *subgoalRun) accept(ctx context.Context, x *explorer, tent *kgqa.Tentative, v kgqa.Verdict, all, facts []kgqa.Fact, end int) (kgqa.Result, int, error) {
	res := kgqa.Result{Text: v.Answer, Entities: nonNil(v.Entities), Source: "evidence"}
	if res.Text == "" {
		res.Text = names(res.Entities)
	}
	sg.rec.Corrected = corrected(tent, res)
	if !sg.truncates() {
		res, sg.rec.Expansion = expand(res, all, facts)
	}
	res.Capped = cappedFrom(sg.rec.Rounds, res.Entities)
	return sg.truncate(ctx, x, res, facts, end)
}

// truncate applies WithResultTruncation: the result keeps at most Width
// entities, pruned like a frontier and recorded in Truncation.
func (sg *subgoalRun) truncate(ctx context.Context, x *explorer, res kgqa.Result, facts []kgqa.Fact, end int) (kgqa.Result, int, error) {
	if !sg.truncates() || len(res.Entities) <= sg.b.Width {
		return res, end, nil
	}
	var cands []candidate
	for _, t := range res.Entities {
		c := candidate{term: t, fact: kgqa.Fact{Head: t, Tail: t}}
		for _, f := range facts {
			if f.Tail.Key() == t.Key() || f.Head.Key() == t.Key() {
				c.fact = f
				break
			}
		}
		cands = append(cands, c)
	}
	rd := &kgqa.Round{}
	kept, end, err := x.prune(ctx, rd, cands, end)
	if err != nil {
		return kgqa.Result{}, end, err
	}
	sg.rec.Truncation = rd.Pruning
	res.Entities = kept
	res.Text = names(kept)
	return res, end, nil
}

// inRound marks ctx as serving exploration round n of the subgoal, for the
// transcript (engine.trace_prompts).
func (sg *subgoalRun) inRound(ctx context.Context, n int) context.Context {
	return kgqa.WithStep(ctx, kgqa.Step{Subgoal: sg.s.ID, Round: n})
}
