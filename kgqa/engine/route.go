package engine

import (
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// Final sources of the routes that do not retrieve.
const (
	// FinalDirect: the question needed no KG (route direct).
	FinalDirect = "direct"
	// FinalOutsideKG: the question lies outside the KG and the answer says
	// so (route boundary, engine.outside_kg notice).
	FinalOutsideKG = "outside_kg"
)

// answerDirect answers a question of the direct route (a greeting,
// arithmetic, a question about the service) without planning, linking or
// any model call. It reports false when the question is not one.
func answerDirect(r *run, question string) bool {
	if !r.b.Direct {
		return false
	}
	d, ok := retrieval.DirectAnswer(question)
	if !ok {
		return false
	}
	r.ans.RetrievalPlan = &retrieval.Plan{Route: retrieval.RouteDirect, Reasons: map[string]string{"route": d.Reason}}
	r.ans.Text = d.Answer
	r.ans.Final = &kgqa.FinalRecord{Source: FinalDirect, Reason: d.Reason}
	r.ans.AnsweredWithoutKG = true
	r.ans.Stop = kgqa.StopPlanComplete
	return true
}

// planRetrieval records the question's retrieval plan and each subgoal's
// pack. It runs once the plan and the topic entities are known: a question
// with no topic entity is outside the KG.
func planRetrieval(r *run, plan *kgqa.Plan, topics []kgqa.Topic) {
	rp := &retrieval.Plan{Route: retrieval.RouteKG, Reasons: map[string]string{"route": retrieval.ReasonTopicsLinked}}
	if len(topics) == 0 && !literalAnchored(plan) {
		rp.Route, rp.Reasons["route"] = retrieval.RouteBoundary, retrieval.ReasonNoTopicEntity
	}
	r.ans.RetrievalPlan = rp
	if plan == nil {
		return
	}
	rp.Categories = retrieval.QuestionCategories(r.ans.Question, kindNames(plan.Kinds()))
	names := make([]string, 0, 2*len(topics))
	for _, t := range topics {
		names = append(names, t.Name, t.Mention)
	}
	packs := r.e.packs(r.e.rules, r.b, plan, names)
	for _, rec := range r.ans.Subgoals {
		p := packs[rec.ID]
		rec.Retrieval = &p
	}
}

// RetrievalPlan returns the retrieval plan the engine would follow for
// question with plan, before linking (so its route is kg or direct), and
// each subgoal's pack by id.
func (e *Engine) RetrievalPlan(question string, plan *kgqa.Plan) (*retrieval.Plan, map[string]retrieval.Pack) {
	if d, ok := retrieval.DirectAnswer(question); ok && e.cfg.Direct {
		return &retrieval.Plan{Route: retrieval.RouteDirect, Reasons: map[string]string{"route": d.Reason}}, nil
	}
	rp := &retrieval.Plan{Route: retrieval.RouteKG, Reasons: map[string]string{"route": "plan_only"}}
	if plan == nil {
		return rp, nil
	}
	rp.Categories = retrieval.QuestionCategories(question, kindNames(plan.Kinds()))
	return rp, e.packs(e.rules, e.cfg, plan, nil)
}

// packs chooses every subgoal's pack from the table and the budgets b;
// names are the topic entities' names, which subgoal texts may mention.
func (e *Engine) packs(table *retrieval.Table, b config.Engine, plan *kgqa.Plan, names []string) map[string]retrieval.Pack {
	feeds := map[string][]string{}
	for _, s := range plan.Subgoals {
		for _, n := range s.Needs {
			feeds[n] = append(feeds[n], string(s.Op))
		}
	}
	base := retrieval.Budgets{
		Width: b.Width, Depth: b.Depth, Relations: b.MaxRelationsPerEntity,
		FactsPerPair: b.MaxEntitiesPerRelation, FactsPerPrompt: e.maxFacts, TruncateNeighbors: e.truncate,
	}
	out := make(map[string]retrieval.Pack, len(plan.Subgoals))
	for _, s := range plan.Subgoals {
		p := table.Pack(base, retrieval.Subgoal{Text: s.Text, Op: string(s.Op), Needs: len(s.Needs), Feeds: feeds[s.ID], Names: names})
		if p.FactsPerPrompt > e.maxFacts {
			// The refiner shows no more than the engine's cap.
			p.FactsPerPrompt, p.Reasons[retrieval.ParamFactsPerPrompt] = e.maxFacts, retrieval.ReasonEngineBudget
		}
		out[s.ID] = p
	}
	return out
}

func kindNames(ks []kgqa.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// answerOutsideKG answers a question of the boundary route with a notice
// that the KG does not cover it, naming the mentions that did not link.
func answerOutsideKG(r *run) {
	for _, s := range r.ans.Subgoals {
		s.Status = statusSkipped
	}
	var names []string
	for _, m := range r.ans.Mentions {
		names = append(names, "\""+m.Text+"\"")
	}
	text := "The knowledge graph does not cover this question: no entity of it is in the graph."
	if len(names) > 0 {
		text = "The knowledge graph does not cover this question: none of " + strings.Join(names, ", ") + " is an entity of the graph."
	}
	r.ans.Text = text
	r.ans.Final = &kgqa.FinalRecord{Source: FinalOutsideKG, Reason: retrieval.ReasonNoTopicEntity}
	r.ans.Stop = kgqa.StopPlanComplete
}

// propertyBoundary marks the question boundary when its answer subgoal
// asks for a property the KG does not have (the subgoal's Boundary), and,
// with engine.outside_kg notice, answers that the KG does not cover it in
// place of the tentative answer, which otherwise stands (the subgoal's
// set operation says why).
func propertyBoundary(r *run, plan *kgqa.Plan) {
	rec := r.records[plan.AnswerID()]
	if rec == nil || rec.Boundary == "" || r.ans.RetrievalPlan == nil {
		return
	}
	r.ans.RetrievalPlan.Route, r.ans.RetrievalPlan.Reasons["route"] = retrieval.RouteBoundary, rec.Boundary
	if r.b.OutsideKG != "notice" {
		return
	}
	attr := "the property it asks for"
	for _, s := range plan.Subgoals {
		if s.ID == rec.ID && s.Args != nil && s.Args.Attribute != "" {
			attr = "\"" + s.Args.Attribute + "\""
		}
	}
	of := names(rec.Anchors[:min(len(rec.Anchors), 5)])
	if n := len(rec.Anchors) - 5; n > 0 {
		of += fmt.Sprintf(" and %d more", n)
	}
	r.ans.Text = "The knowledge graph does not cover this question: no relation of " + of + " in the graph holds " + attr + "."
	r.ans.Entities = []kgqa.Term{}
	r.ans.Final = &kgqa.FinalRecord{Source: FinalOutsideKG, After: rec.ID, Reason: rec.Boundary}
}
