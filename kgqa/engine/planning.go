package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// Plan sources recorded in PlanInfo.Source.
const (
	PlanSourcePlanner  = "planner"
	PlanSourceFewShot  = "reasoner_few_shot"
	PlanSourceGiven    = "given"
	PlanSourceLQT      = "lqt"
	fewShotExplanation = "no planner endpoint is configured: the reasoner planned from a few-shot prompt"
)

// Plan asks the planner role for a plan of question, or the reasoner with a
// few-shot prompt when no planner is configured (PlanInfo says which). The
// reply is decoded strictly and validated (ids, dependencies, ops); one
// repair turn is allowed, then it fails with a *StepError wrapping
// *llm.SchemaError. An engine built WithPlanner asks that planner instead,
// and validates its plan the same way.
func (e *Engine) Plan(ctx context.Context, question string) (*kgqa.Plan, kgqa.PlanInfo, error) {
	if e.planner != nil {
		p, info, err := e.planner.Plan(ctx, question)
		if err == nil {
			err = p.Validate()
		}
		if err != nil {
			return nil, info, stepErr("plan", "", err)
		}
		return p, info, nil
	}
	req, info, err := e.planRequest(question)
	if err != nil {
		return nil, info, stepErr("plan", "", err)
	}
	var p kgqa.Plan
	var valid *kgqa.Plan // the first reply that was a valid plan
	var questioned error // why the plan check sent that plan back
	check := func() error {
		if err := p.CheckVersion(); err != nil {
			return err
		}
		if err := p.Validate(); err != nil {
			return err
		}
		lint := lintPlan(question, &p)
		if valid == nil {
			c := p
			valid, questioned = &c, lint
		}
		return lint
	}
	_, err = e.chat.JSON(ctx, req, &p, check)
	switch {
	case err != nil && valid != nil && errors.Is(err, kgqa.ErrSchema):
		// The repair did not give a plan that fits the question's words
		// better: the check reads words, the planner the meaning, so
		// the first valid plan runs as the planner wrote it.
		p = *valid
		info.Note = joinNotes(info.Note, "kept the plan the plan check questioned: "+questioned.Error())
	case err != nil:
		return nil, info, stepErr("plan", "", err)
	case questioned != nil:
		info.Note = joinNotes(info.Note, "the plan check sent the first plan back: "+questioned.Error())
	}
	info.Kinds = p.Kinds()
	return &p, info, nil
}

// planRequest is the planning call's request for question, and the plan
// info of the role that answers it.
func (e *Engine) planRequest(question string) (kgqa.ChatRequest, kgqa.PlanInfo, error) {
	role, stage := kgqa.Planner, prompts.Plan
	info := kgqa.PlanInfo{Source: PlanSourcePlanner}
	if !e.chat.Has(kgqa.Planner) {
		role, stage = kgqa.Reasoner, prompts.PlanFewShot
		info = kgqa.PlanInfo{Source: PlanSourceFewShot, Note: fewShotExplanation}
	}
	ops := make([]string, len(kgqa.Ops))
	for i, o := range kgqa.Ops {
		ops[i] = string(o)
	}
	req, err := e.tmpl.Request(role, stage, prompts.PlanData{Question: question, Ops: ops})
	return req, info, err
}

// replanForTopics sends plan p back to the planner once when a topic
// entity the question names is named by none of its subgoals: the plan
// has dropped a condition of the question (a conjunction's branch, a
// constraint's entity). Linking runs beside planning, so this check comes
// after both, and costs a call only on such plans. The repaired plan
// replaces p when it is valid and names every such topic; otherwise p
// stays, with a note. It reports whether it made a call.
func (e *Engine) replanForTopics(ctx context.Context, question string, p *kgqa.Plan, info kgqa.PlanInfo, topics []kgqa.Topic) (*kgqa.Plan, kgqa.PlanInfo, bool) {
	missing := unplannedTopics(question, p, topics)
	if len(missing) == 0 {
		return p, info, false
	}
	req, _, err := e.planRequest(question)
	prev, jerr := json.Marshal(p)
	if err != nil || jerr != nil {
		return p, info, false
	}
	why := fmt.Sprintf("the plan does not fit the question: the question names %s, which no subgoal names; plan every condition of the question", strings.Join(missing, ", "))
	req.Messages = append(req.Messages, kgqa.Message{Role: "assistant", Content: string(prev)}, kgqa.Message{Role: "user", Content: why + ". Reply with the whole corrected plan as JSON only."})
	var q kgqa.Plan
	check := func() error {
		if err := q.CheckVersion(); err != nil {
			return err
		}
		if err := q.Validate(); err != nil {
			return err
		}
		if m := unplannedTopics(question, &q, topics); len(m) > 0 {
			return fmt.Errorf("no subgoal names %s", strings.Join(m, ", "))
		}
		return lintPlan(question, &q)
	}
	if _, err := e.chat.JSON(ctx, req, &q, check); err != nil {
		info.Note = joinNotes(info.Note, "kept the plan the topic check questioned ("+why+"): "+err.Error())
		return p, info, true
	}
	info.Note = joinNotes(info.Note, "the topic check sent the plan back: "+why)
	info.Kinds = q.Kinds()
	return &q, info, true
}

// Planner makes a question's plan in place of the engine's own planning
// call (Engine.Plan): planner.mode lqt plugs in the logical-query-tree
// planner of kgqa/lqt this way. Its model calls go through the chat client
// it was built with; the question's ledger is in ctx, so they are
// accounted with the question's other calls.
type Planner interface {
	// Plan returns a validated plan of question and how it was made.
	Plan(ctx context.Context, question string) (*kgqa.Plan, kgqa.PlanInfo, error)
}

// WithPlanner makes the engine plan with p instead of its planning call.
// A nil p keeps the engine's own.
func WithPlanner(p Planner) Option { return func(e *Engine) { e.planner = p } }
