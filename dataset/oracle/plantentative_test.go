package oracle

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// planReply asks m for the plan of the sample question through stage,
// with or without tentative answers, and reads the plan it gives.
func planReply(t *testing.T, m *Model, stage string, tentatives bool) kgqa.Plan {
	t.Helper()
	d := sampleData()[stage].(prompts.PlanData)
	d.Tentatives = tentatives
	rep := m.Answer(chatRequest(t, stage, d, true), "")
	require.Equal(t, http.StatusOK, rep.Status, rep.Error)
	validate(t, stage, rep.Content)
	var p kgqa.Plan
	require.NoError(t, json.Unmarshal([]byte(rep.Content), &p))
	require.Len(t, p.Subgoals, 2)
	return p
}

// Asked for them, the plan carries each find's tentative answer, the one
// the subgoal's own tentative prompt gets: the gold answer for the answer
// subgoal, none for the step before it. Not asked, it carries none.
func TestPlanTentatives(t *testing.T) {
	for _, stage := range []string{prompts.Plan, prompts.PlanFewShot} {
		t.Run(stage, func(t *testing.T) {
			m := demoModel(t)
			for _, s := range planReply(t, m, stage, false).Subgoals {
				assert.Nil(t, s.Tentative, s.ID)
			}
			p := planReply(t, m, stage, true)
			require.NotNil(t, p.Subgoals[0].Tentative)
			assert.Empty(t, p.Subgoals[0].Tentative.Names)
			require.NotNil(t, p.Subgoals[1].Tentative)
			assert.Equal(t, []string{"Berlin"}, p.Subgoals[1].Tentative.Names)
			own := validate(t, prompts.Tentative, m.Answer(chatRequest(t, prompts.Tentative, sampleData()[prompts.Tentative], true), "").Content)
			assert.Equal(t, []any{"Berlin"}, own["entities"], "the same answer as its own prompt gets")
		})
	}
}

// Noise reaches each tentative answer in a plan as it reaches a tentative
// reply of its own: drawn for each subgoal apart, counted by kind.
func TestPlanTentativesTakeTheTentativeNoise(t *testing.T) {
	m := demoModel(t, WithNoise(Noise{Rate: 1, Seed: 1, Kinds: []string{NoiseOverconfidentTentative}}))
	p := planReply(t, m, prompts.Plan, true)
	for _, s := range p.Subgoals {
		require.NotNil(t, s.Tentative, s.ID)
		assert.Equal(t, []string{"Weeze Airport"}, s.Tentative.Names, s.ID)
	}
	assert.Equal(t, 2, m.Stats().Noisy[NoiseOverconfidentTentative])
	assert.Equal(t, 2, m.Question("demo-06").Noisy[NoiseOverconfidentTentative])
}

// A tentative answer the noise put out of shape is left out of the plan,
// so the engine asks for it; the plan itself is drawn apart and may stay
// clean.
func TestPlanTentativeOutOfShapeIsLeftOut(t *testing.T) {
	tent, ok := readTentative("```json\n{\"answer\":\"Berlin\",\"entities\":[\"Berlin\"]}\n```")
	require.True(t, ok, "a fenced reply reads as the engine reads it")
	assert.Equal(t, []string{"Berlin"}, tent.Names)
	for _, bad := range []string{"", "I cannot answer that.", `{"entities":["Berlin"]}`, `{"answer":"Ber`} {
		_, ok := readTentative(bad)
		assert.False(t, ok, bad)
	}
}
