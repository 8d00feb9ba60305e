package engine

import (
	"context"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/refine"
)

type sufficiencyReply struct {
	Sufficient bool     `json:"sufficient"`
	Answer     string   `json:"answer"`
	Entities   []string `json:"entities"`
	Reason     string   `json:"reason"`
}

type finalReply struct {
	Answer   string   `json:"answer"`
	Entities []string `json:"entities"`
	Reason   string   `json:"reason"`
}

// evidence returns the facts the subgoals in known gathered (all facts when
// known is nil), most relevant to the question first, and their prompt
// lines.
func evidence(r *run, known map[string]bool) ([]kgqa.Fact, []string) {
	d := r.e.g.Dialect()
	facts := promptFacts(d, r.ans.Question, factsOf(r, known), r.b.MaxEntitiesPerRelation, r.e.maxFacts)
	lines := make([]string, len(facts))
	for i, f := range facts {
		lines[i] = prompts.Fact(d, f)
	}
	return facts, lines
}

// resolveAll maps a model's entity references to terms of every fact the
// subgoals in known gathered, not only those of one prompt: an answer that
// stops the run early may name the entities of any subgoal it rests on.
func resolveAll(r *run, known map[string]bool, refs []string) []kgqa.Term {
	if len(refs) == 0 {
		return nil
	}
	ents, _ := refine.Resolve(factsOf(r, known), refs)
	return ents
}

// sufficiency judges, after a find subgoal that is not the answer, whether
// the question can be answered already; the judgement comes from the fused
// refine call or from a call of its own. When it can, the run stops early
// with that answer.
func sufficiency(ctx context.Context, sg *subgoalRun) (bool, error) {
	if sg.s.Op != kgqa.OpFind || sg.rec.Verdict == nil || sg.rec.Verdict.FactsShown == 0 {
		return false, nil
	}
	suf := sg.rec.Sufficiency
	if suf == nil {
		if sg.b.FuseSufficiency {
			return false, nil
		}
		known := judgedAfter(sg.run, sg.plan, sg.s.ID)
		_, lines := evidence(sg.run, known)
		req, err := sg.e.tmpl.Request(kgqa.Reasoner, prompts.Sufficiency, prompts.SufficiencyData{Plan: sg.run.view(sg.plan, "", known), Facts: lines})
		if err != nil {
			return false, stepErr("sufficiency", sg.s.ID, err)
		}
		var rep sufficiencyReply
		if _, err := sg.e.chat.JSON(ctx, req, &rep, nil); err != nil {
			return false, stepErr("sufficiency", sg.s.ID, err)
		}
		ents := resolveAll(sg.run, known, rep.Entities)
		suf = &kgqa.Sufficiency{Sufficient: rep.Sufficient, Answer: rep.Answer, Entities: ents, Reason: rep.Reason}
		sg.rec.Sufficiency = suf
		sg.mu.Lock()
		sg.depth[sg.s.ID]++
		d := sg.depth[sg.s.ID]
		sg.mu.Unlock()
		sg.reach(d)
	}
	if suf.Sufficient && suf.Overruled == "" {
		suf.Overruled = earlyInput(sg, suf)
	}
	sc := *suf
	sg.emit.send(kgqa.Event{Type: kgqa.EventSufficiency, Subgoal: sg.s.ID, Sufficiency: &sc})
	if !suf.Sufficient || (suf.Answer == "" && len(suf.Entities) == 0) || suf.Overruled != "" {
		return false, nil
	}
	sg.mu.Lock()
	defer sg.mu.Unlock()
	// Subgoals of one wave judge in any order: the first in plan order
	// answers.
	pos := sg.pos[sg.s.ID]
	if sg.stopped && sg.stopPos <= pos {
		return false, nil
	}
	sg.stopped, sg.stopPos = true, pos
	sg.ans.Stop = kgqa.StopSufficient
	sg.ans.Text, sg.ans.Entities = suf.Answer, nonNil(suf.Entities)
	if sg.ans.Text == "" {
		sg.ans.Text = names(suf.Entities)
	}
	sg.ans.Final = &kgqa.FinalRecord{Source: "sufficiency", After: sg.s.ID, Reason: suf.Reason}
	return true, nil
}

// finalAnswer asks the model to answer from everything gathered when the
// answer subgoal produced nothing.
func finalAnswer(ctx context.Context, r *run, plan *kgqa.Plan) error {
	facts, lines := evidence(r, nil)
	req, err := r.e.tmpl.Request(kgqa.Reasoner, prompts.Final, prompts.SufficiencyData{Plan: r.view(plan, "", nil), Facts: lines})
	if err != nil {
		return stepErr("final", "", err)
	}
	var rep finalReply
	if _, err := r.e.chat.JSON(ctx, req, &rep, nil); err != nil {
		return stepErr("final", "", err)
	}
	r.reach(r.criticalPath() + 1)
	ents, _ := refine.Resolve(facts, rep.Entities)
	r.ans.Text, r.ans.Entities = rep.Answer, nonNil(ents)
	r.ans.Final = &kgqa.FinalRecord{Source: "final", Reason: rep.Reason}
	if len(facts) == 0 {
		r.ans.AnsweredWithoutKG = true
		r.ans.Final = &kgqa.FinalRecord{Source: "model_knowledge", Reason: noFactsReason + "; " + rep.Reason}
	}
	r.ans.Stop = kgqa.StopPlanComplete
	return nil
}

// answerWithoutKG answers a question with no topic entity from the model's
// own knowledge, as PoG does, rather than failing it: the final-answer
// prompt with the plan and no facts. The answer is flagged
// AnsweredWithoutKG and its subgoals are skipped.
func answerWithoutKG(ctx context.Context, r *run, plan *kgqa.Plan) error {
	for _, s := range r.ans.Subgoals {
		s.Status = statusSkipped
	}
	req, err := r.e.tmpl.Request(kgqa.Reasoner, prompts.Final, prompts.SufficiencyData{Plan: r.view(plan, "", nil)})
	if err != nil {
		return stepErr("final", "", err)
	}
	var rep finalReply
	if _, err := r.e.chat.JSON(ctx, req, &rep, nil); err != nil {
		return stepErr("final", "", err)
	}
	r.reach(r.base + 1)
	r.ans.Text = rep.Answer
	r.ans.Final = &kgqa.FinalRecord{Source: "model_knowledge", Reason: "no topic entity was found in the KG; " + rep.Reason}
	r.ans.AnsweredWithoutKG = true
	r.ans.Stop = kgqa.StopPlanComplete
	return nil
}

// earlyInput is why a "sufficient" judgement after this subgoal must not
// stop the run, or "": its answer is this subgoal's whole result while
// the answer subgoal, still to run, takes that result as input (the next
// hop of a composition). Answering with it would answer the question one
// hop short. An answer that picks some of the result (the latest of the
// championships found) may be what the later step would pick, and stops.
func earlyInput(sg *subgoalRun, suf *kgqa.Sufficiency) string {
	ans := sg.plan.AnswerID()
	if ans == sg.s.ID || len(suf.Entities) == 0 || !sg.plan.Ancestors(ans)[sg.s.ID] {
		return ""
	}
	sg.mu.Lock()
	res := sg.results[sg.s.ID]
	sg.mu.Unlock()
	if res == nil {
		return ""
	}
	own := map[string]bool{}
	for _, t := range res.Entities {
		own[t.Key()] = true
	}
	same := map[string]bool{}
	for _, t := range suf.Entities {
		if !own[t.Key()] {
			return ""
		}
		same[t.Key()] = true
	}
	if len(same) != len(own) {
		return "" // a choice among the result: the later step may be that choice
	}
	return "the answer is this subgoal's whole result, which " + ans + " still takes as input"
}

// recordFused records the sufficiency judgement a fused refine call
// made, if it made one. The final answer may name entities of earlier
// subgoals: it is resolved against all evidence, as the separate check
// does.
func recordFused(sg *subgoalRun, v kgqa.Verdict) {
	if v.Sufficient == nil {
		return
	}
	ents := v.FinalEntities
	if *v.Sufficient {
		ents = resolveAll(sg.run, judgedAfter(sg.run, sg.plan, sg.s.ID), v.FinalRefs)
	}
	sg.rec.Sufficiency = &kgqa.Sufficiency{Sufficient: *v.Sufficient, Answer: v.FinalAnswer, Entities: ents, Fused: true, Reason: v.Reason}
}

// answeredEarly reports whether a fused judgement found the question
// answered: the run stops after this subgoal, so a further round would be
// wasted.
func answeredEarly(sg *subgoalRun) bool {
	suf := sg.rec.Sufficiency
	return suf != nil && suf.Sufficient && (suf.Answer != "" || len(suf.Entities) > 0)
}
