package engine

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// plannerFunc is a Planner test double.
type plannerFunc func(ctx context.Context, question string) (*kgqa.Plan, kgqa.PlanInfo, error)

func (f plannerFunc) Plan(ctx context.Context, q string) (*kgqa.Plan, kgqa.PlanInfo, error) {
	return f(ctx, q)
}

var _ Planner = plannerFunc(nil)

// An engine built WithPlanner plans with it in Ask and in Plan (the
// /v1/plan path), never with its own planning call, and validates what it
// returns.
func TestWithPlannerReplacesThePlanningCall(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	q := demoQuestion(t, "demo-06")
	calls := 0
	tree := &kgqa.TreeInfo{Atoms: 2, Pairs: 1, PairCalls: 1, Method: "dp"}
	var give *kgqa.Plan
	h.engine = mustNew(t, h.g, h.client, config.Default().Engine, WithPlanner(plannerFunc(func(context.Context, string) (*kgqa.Plan, kgqa.PlanInfo, error) {
		calls++
		return give, kgqa.PlanInfo{Source: PlanSourceLQT, Tree: tree}, nil
	})))
	give = &kgqa.Plan{}
	require.NoError(t, json.Unmarshal(q.Plan, give))
	before := h.server.Count()
	_, info, err := h.engine.Plan(context.Background(), q.Question)
	require.NoError(t, err)
	assert.Equal(t, PlanSourceLQT, info.Source)
	assert.Equal(t, before, h.server.Count(), "no model call: the planner double made none")

	ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
	require.NoError(t, err)
	assert.Equal(t, 2, calls)
	assert.Equal(t, PlanSourceLQT, ans.PlanInfo.Source)
	assert.Equal(t, tree, ans.PlanInfo.Tree)
	assert.Equal(t, []string{"m.0156q"}, entityIDs(ans.Entities))

	give = &kgqa.Plan{Version: kgqa.PlanVersion, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Which of #2 are also in #3?", Op: kgqa.OpIntersect}}}
	_, _, err = h.engine.Plan(context.Background(), q.Question)
	require.ErrorIs(t, err, kgqa.ErrInvalidPlan, "the planner's plan is validated")
	var se *StepError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "plan", se.Stage)
}
