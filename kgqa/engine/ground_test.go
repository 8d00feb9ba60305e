package engine

import (
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A kept tentative answer that names its entity with a qualifier
// ("Berlin, Germany", as models answer demo-06) is grounded to the KG's
// entity, not left a term without id.
func TestTentativeGroundedThroughForms(t *testing.T) {
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the seat of government of Germany.", Op: kgqa.OpFind}}}
	m := kgqatest.NewDemoModel(kgqatest.Believe("seat of government", "Berlin, Germany"))
	h := newHarness(t, m, config.Default().Engine)
	ans := ask(t, h, Request{Question: "Where does Germany's government sit?", Plan: plan, TopicEntities: []string{"m.0345h"}})
	require.Len(t, ans.Subgoals, 1)
	rec := ans.Subgoals[0]
	require.NotNil(t, rec.Result)
	assert.Equal(t, "tentative", rec.Result.Source, brief(ans))
	assert.Equal(t, []string{"m.0156q"}, entityIDs(ans.Entities), brief(ans))
	require.Len(t, rec.Grounding, 1)
	assert.Equal(t, "Berlin, Germany", rec.Grounding[0].Text)
}

// Homonyms are ranked by popularity: "Paris" names the French capital
// (25 facts in the demo graph) before Paris, Texas (12), whatever order the
// store returns them in; a subgoal that later steps explore from keeps
// both, an answer subgoal the most popular.
func TestTentativeHomonymsRankedByPopularity(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	got, _, err := h.engine.ground(t.Context(), "Paris", answerType{})
	require.NoError(t, err)
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, []string{"m.05qtj", "m.0w6b1c"}, ids)

	// The store's order does not decide: given Texas first, France leads.
	got, err = h.engine.rankByPopularity(t.Context(), "Paris", []kgqa.Entity{{ID: "m.0w6b1c", Name: "Paris"}, {ID: "m.05qtj", Name: "Paris"}}, 1)
	require.NoError(t, err)
	assert.Equal(t, []kgqa.Entity{{ID: "m.05qtj", Name: "Paris"}}, got)
}

func TestNameForms(t *testing.T) {
	assert.Equal(t, []string{"Berlin, Germany", "Berlin"}, nameForms("Berlin, Germany"))
	assert.Equal(t, []string{"the Swiss franc (CHF)", "the Swiss franc", "Swiss franc"}, nameForms("the Swiss franc (CHF)"))
	assert.Equal(t, []string{"Lou Seal"}, nameForms("Lou Seal"))
}
