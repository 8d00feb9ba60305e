package engine

import (
	"context"
	"errors"
	"fmt"

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
	if err != nil {
		return nil, info, stepErr("plan", "", err)
	}
	var p kgqa.Plan
	var valid *kgqa.Plan // the first reply that was a valid plan
	var questioned error // why the plan check sent that plan back
	check := func() error {
		if p.Version == 0 {
			p.Version = kgqa.PlanVersion
		}
		if p.Version != kgqa.PlanVersion {
			return fmt.Errorf("version %d, want %d", p.Version, kgqa.PlanVersion)
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
