package engine

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/prompts"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clearTopBudgets are the default budgets with engine.clear_top_facts set
// as on says.
func clearTopBudgets(on bool) config.Engine {
	b := config.Default().Engine
	b.ClearTopFacts = on
	return b
}

// weezeContains is the one relation of Weeze Airport sharing a word with
// "Find the country that contains Weeze Airport.".
var weezeContains = kgqa.Relation{ID: "location.location.contains", Dir: kgqa.In}

func TestClearTopSkipsTheRelationChoice(t *testing.T) {
	q := Request{Question: "Which country contains Weeze Airport?", TopicEntities: []string{"m.01785m"}, Plan: weezePlan()}
	off := newHarness(t, kgqatest.NewDemoModel(), clearTopBudgets(false))
	before := ask(t, off, q)
	h := newHarness(t, kgqatest.NewDemoModel(), clearTopBudgets(true))
	ans := ask(t, h, q)
	rds := record(t, ans, "s1").Rounds
	require.Len(t, rds, 1, brief(ans))
	assert.True(t, rds[0].ChoiceSkipped)
	assert.Equal(t, "clear_top", rds[0].ChosenBy)
	assert.Equal(t, []kgqa.Relation{weezeContains}, rds[0].Chosen)
	assert.Empty(t, rds[0].Pages, "no relations prompt")
	assert.Empty(t, relationsPrompts(h, weeze))
	assert.Equal(t, []string{"Germany"}, termNames(ans.Entities))
	assert.Equal(t, termNames(before.Entities), termNames(ans.Entities))
	assert.Equal(t, before.Usage.LLM.Calls-1, ans.Usage.LLM.Calls, "one call fewer")
	// The tentative call beside the first round stays on the critical
	// path here: the plan given brings no tentative answer.
	assert.LessOrEqual(t, ans.Usage.CriticalPathCalls, before.Usage.CriticalPathCalls)
}

func TestMisalignedClearTopBringsTheRelationChoice(t *testing.T) {
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, clearTopBudgets(true))
	var chose atomic.Bool // the refine calls before any relations call judge misaligned
	h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		switch llmtest.StageOf(req) {
		case "relations":
			chose.Store(true)
		case "refine":
			if !chose.Load() {
				return llmtest.JSON(map[string]any{"reason": "wrong", "aligned": false, "answer": "I am not sure.", "entities": []string{},
					"used_facts": []int{}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
			}
		}
		return m.Handle(req)
	})
	ans := ask(t, h, Request{Question: "Which country contains Weeze Airport?", TopicEntities: []string{"m.01785m"}, Plan: weezePlan()})
	rds := record(t, ans, "s1").Rounds
	require.Len(t, rds, 2, brief(ans))
	assert.True(t, rds[0].ChoiceSkipped)
	assert.False(t, rds[1].ChoiceSkipped)
	assert.Equal(t, retryClearTop, rds[1].Retry)
	assert.Equal(t, "llm", rds[1].ChosenBy)
	assert.Equal(t, rds[0].Offered, rds[1].Offered, "the whole offer, the clear top included")
	assert.Contains(t, rds[1].OfferedRelations, weezeContains)
	users := relationsPrompts(h, weeze)
	require.Len(t, users, 1, "the choice skipped, made once")
	assert.Zero(t, prompts.ReadMore(users[0]))
	assert.Equal(t, []string{"Germany"}, termNames(ans.Entities))
}

func TestUnclearRankingMakesTheRelationChoice(t *testing.T) {
	// No relation shares a word with "Find what Weeze Airport is named
	// after.": the ranking has no clear top.
	h := newHarness(t, kgqatest.NewDemoModel(), clearTopBudgets(true))
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find what Weeze Airport is named after.", Op: kgqa.OpFind}}}
	ans := ask(t, h, Request{Question: "What is Weeze Airport named after?", TopicEntities: []string{"m.01785m"}, Plan: plan})
	rd := record(t, ans, "s1").Rounds[0]
	assert.False(t, rd.ChoiceSkipped, brief(ans))
	assert.NotEqual(t, "clear_top", rd.ChosenBy)
	assert.NotEmpty(t, relationsPrompts(h, weeze))
}

func TestClearTopFactsOffMakesTheRelationChoice(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), clearTopBudgets(false))
	ans := ask(t, h, Request{Question: "Which country contains Weeze Airport?", TopicEntities: []string{"m.01785m"}, Plan: weezePlan()})
	rd := record(t, ans, "s1").Rounds[0]
	rels, err := h.g.Relations(context.Background(), "m.01785m")
	require.NoError(t, err)
	assert.False(t, rd.ChoiceSkipped, brief(ans))
	assert.Equal(t, "llm", rd.ChosenBy)
	assert.Equal(t, []kgqa.Relation{weezeContains}, rd.Chosen)
	require.Len(t, relationsPrompts(h, weeze), 1)
	require.Len(t, rd.Pages, 1)
	assert.Equal(t, len(rels), rd.Pages[0].Relations)
	assert.Equal(t, []string{"Germany"}, termNames(ans.Entities))
}
