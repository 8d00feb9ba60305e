package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// The planner gives each find subgoal's tentative answer with the plan:
// no subgoal pays a tentative call, each keeps the planner's answer, and
// refinement still corrects a wrong one from the evidence. Off, every
// find asks for its own, as PARoG does, and the plan prompt does not ask.
func TestPlanTentativesSaveTheTentativeCalls(t *testing.T) {
	q := demoQuestion(t, "demo-06") // two finds: the country, then its capital
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[on], func(t *testing.T) {
			m := kgqatest.NewDemoModel(kgqatest.AnswerInPlan(), kgqatest.Believe("capital", "Amsterdam"))
			cfg := config.Default().Engine
			cfg.PlanTentatives = on
			h := newHarness(t, m, cfg)
			ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
			assert.Equal(t, []string{"Berlin"}, termNames(ans.Entities), "the wrong belief is corrected")
			s2 := record(t, ans, "s2")
			require.NotNil(t, s2.Tentative)
			assert.Equal(t, []string{"Amsterdam"}, s2.Tentative.Names)
			assert.True(t, s2.Corrected)
			stages := ans.Usage.LLM.ByStage
			if on {
				assert.Zero(t, m.Calls("tentative"))
				assert.Zero(t, stages["tentative"].Calls)
				// Each find's relation is its ranking's clear top
				// (engine.clear_top_facts): no relation choice.
				assert.Equal(t, 3, ans.Usage.LLM.Calls, "plan, then a refine call per find")
				require.NotNil(t, ans.Plan.Subgoals[1].Tentative, "the plan keeps what the planner gave")
			} else {
				assert.Equal(t, 2, m.Calls("tentative"))
				assert.Equal(t, 5, ans.Usage.LLM.Calls, "plan, then a tentative and a refine call per find")
				assert.Nil(t, ans.Plan.Subgoals[1].Tentative, "the plan prompt asked for none")
			}
		})
	}
}

// A subgoal the plan reply gave no tentative answer asks for it in a call
// of its own; the others do not.
func TestPlanTentativeFallsBackToItsOwnCall(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	m := kgqatest.NewDemoModel(kgqatest.AnswerInPlan("s2"), kgqatest.Believe("capital", "Amsterdam"))
	h := newHarness(t, m, config.Default().Engine)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"Berlin"}, termNames(ans.Entities))
	assert.Equal(t, 1, m.Calls("tentative"), "s2's only")
	require.NotNil(t, record(t, ans, "s2").Tentative)
	assert.Equal(t, []string{"Amsterdam"}, record(t, ans, "s2").Tentative.Names, "from its own call")
	assert.Equal(t, 4, ans.Usage.LLM.Calls, "plan, s2's tentative call, a refine call per find (each a clear top)")
}

// A one-hop question costs three calls at most: the plan (with the
// tentative answer), one relation choice and the refine call; nothing of
// it waits on a tentative call.
func TestOneHopQuestionTakesThreeCalls(t *testing.T) {
	q := demoQuestion(t, "demo-22")
	m := kgqatest.NewDemoModel(kgqatest.AnswerInPlan())
	h := newHarness(t, m, config.Default().Engine)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"Lou Seal"}, termNames(ans.Entities))
	assert.LessOrEqual(t, ans.Usage.LLM.Calls, 3, brief(ans))
	assert.Equal(t, 1, m.Calls("relations"))
	assert.Equal(t, 3, ans.Usage.CriticalPathCalls)
}

// A given plan's tentative answers are used as a planner's are, and only
// with the switch on.
func TestGivenPlanTentatives(t *testing.T) {
	q := demoQuestion(t, "demo-22")
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the mascot of the San Francisco Giants.", Op: kgqa.OpFind,
		Tentative: &kgqa.Tentative{Answer: "Lou Seal", Names: []string{"Lou Seal", " "}}}}}
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[on], func(t *testing.T) {
			m := kgqatest.NewDemoModel()
			cfg := config.Default().Engine
			cfg.PlanTentatives = on
			h := newHarness(t, m, cfg)
			ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q), Plan: plan})
			s1 := record(t, ans, "s1")
			require.NotNil(t, s1.Tentative)
			if on {
				assert.Zero(t, m.Calls("tentative"))
				assert.Equal(t, []string{"Lou Seal"}, s1.Tentative.Names, "blank names left out")
			} else {
				assert.Equal(t, 1, m.Calls("tentative"))
				assert.Empty(t, s1.Tentative.Names, "the model's own answer: it is not sure")
			}
		})
	}
}
