package oracle

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// corrupted answers req twice, cleanly and with kind at rate 1, and returns
// both replies checked against the stage's schema.
func corrupted(t *testing.T, kind, stage string, data any, opts ...Option) (clean, bad map[string]any) {
	t.Helper()
	req := chatRequest(t, stage, data, true)
	c := demoModel(t, opts...).Answer(req, "")
	require.Equal(t, http.StatusOK, c.Status, c.Error)
	m := demoModel(t, append(opts, WithNoise(Noise{Rate: 1, Seed: 3, Kinds: []string{kind}}))...)
	rep := m.Answer(req, "")
	require.Equal(t, http.StatusOK, rep.Status, rep.Error)
	require.Equal(t, kind, rep.Noise, "the kind applies to this reply")
	assert.Equal(t, 1, m.Stats().Noisy[kind], "counted like a format kind")
	assert.Equal(t, "stop", rep.FinishReason)
	return validate(t, stage, c.Content), validate(t, stage, rep.Content)
}

func TestWrongRelation(t *testing.T) {
	d := sampleData()[prompts.Relations].(prompts.RelationsData)
	d.Out = []prompts.RelationGroup{{Type: "location.country", Names: []string{"capital", "currency_used", "official_language"}},
		{Type: "location.location", Names: []string{"contains"}}, {Type: "people.person", Names: []string{"place_of_birth"}}}
	clean, bad := corrupted(t, NoiseWrongRelation, prompts.Relations, d)
	assert.Equal(t, []any{map[string]any{"id": "location.country.capital", "dir": "out"}}, clean["relations"])
	// Nearest by words to location.country.capital: another property of
	// location.country (two words shared of five), not people.person's.
	assert.Equal(t, []any{map[string]any{"id": "location.country.currency_used", "dir": "out"}}, bad["relations"])
}

func TestWrongEntity(t *testing.T) {
	d := sampleData()[prompts.Refine].(prompts.RefineData)
	d.Facts = append(d.Facts, "France [m.0f8l9c] -[country: capital]-> Paris [m.05qtj]",
		"Germany [m.0345h] -[location: contains]-> Bonn [m.0dlv0]")
	clean, bad := corrupted(t, NoiseWrongEntity, prompts.Refine, d)
	assert.Equal(t, []any{"m.0156q"}, clean["entities"])
	assert.Equal(t, []any{"m.05qtj"}, bad["entities"], "another capital, not a city the fact of another relation names")
	assert.Equal(t, "Paris", bad["answer"])
	assert.Equal(t, true, bad["aligned"])

	pd := sampleData()[prompts.Prune].(prompts.PruneData)
	pd.Candidates, pd.Keep = append(pd.Candidates, "France [m.0f8l9c] -[country: capital]-> Paris [m.05qtj]",
		"Germany [m.0345h] -[location: contains]-> Bonn [m.0dlv0]"), 1
	clean, bad = corrupted(t, NoiseWrongEntity, prompts.Prune, pd)
	assert.Equal(t, []any{1.0}, clean["keep"], "Berlin's line")
	assert.Equal(t, []any{2.0}, bad["keep"], "Paris's line: a capital, not Berlin")

	sd := sampleData()[prompts.Select].(prompts.SelectData)
	sd.Members = []string{"Berlin [m.0156q]", "Paris [m.05qtj]"}
	clean, bad = corrupted(t, NoiseWrongEntity, prompts.Select, sd)
	assert.Equal(t, []any{"m.0156q"}, clean["entities"])
	assert.Equal(t, []any{"m.05qtj"}, bad["entities"], "the other member of the set")
}

func TestPrematureSufficient(t *testing.T) {
	m := demoModel(t)
	facts := stepFacts(t, m, riverQuestion, "s1", "Switzerland [m.06mzp]", "Aare [m.0aare]", "Rhine [m.0s7pct]", "Rhône [m.0rhone]")
	d := prompts.RefineData{Plan: goldView(t, m, riverQuestion, "s1"), Subgoal: "Find the rivers of Switzerland.", Facts: facts, Fused: true}
	clean, bad := corrupted(t, NoisePrematureSufficient, prompts.Refine, d)
	assert.Equal(t, false, clean["sufficient"])
	assert.Equal(t, true, bad["sufficient"])
	assert.Equal(t, []any{"m.0aare", "m.0s7pct", "m.0rhone"}, bad["final_entities"], "s1's rivers taken for the answer")

	sd := prompts.SufficiencyData{Plan: goldView(t, m, riverQuestion, "", "s1: Aare; Rhine; Rhône"), Facts: facts}
	clean, bad = corrupted(t, NoisePrematureSufficient, prompts.Sufficiency, sd)
	assert.Equal(t, false, clean["sufficient"])
	assert.Equal(t, true, bad["sufficient"])
	assert.Equal(t, []any{"Aare", "Rhine", "Rhône"}, bad["entities"])
}

func TestAlignmentMisjudged(t *testing.T) {
	d := sampleData()[prompts.Refine].(prompts.RefineData)
	d.Tentative = "Munich"
	clean, bad := corrupted(t, NoiseAlignedAsMisaligned, prompts.Refine, d)
	assert.Equal(t, true, clean["aligned"])
	assert.Equal(t, false, bad["aligned"])
	assert.Equal(t, "Munich", bad["answer"], "the wrong tentative answer stands")
	assert.Empty(t, bad["entities"])

	d.Facts = []string{"Germany [m.0345h] -[location: contains]-> Bonn [m.0dlv0]"}
	clean, bad = corrupted(t, NoiseMisalignedAsAligned, prompts.Refine, d)
	assert.Equal(t, false, clean["aligned"], "contains is not the capital")
	assert.Equal(t, true, bad["aligned"])
	assert.Equal(t, []any{"m.0dlv0"}, bad["entities"])
	assert.Equal(t, "Bonn", bad["answer"])
	assert.Equal(t, []any{1.0}, bad["used_facts"])
}

func TestOverconfidentTentative(t *testing.T) {
	d := sampleData()[prompts.Tentative]
	clean, bad := corrupted(t, NoiseOverconfidentTentative, prompts.Tentative, d, WithTentative(Policy{Kind: "none"}))
	assert.Empty(t, clean["entities"])
	assert.Equal(t, []any{"Weeze Airport"}, bad["entities"], "a real entity, stated as the answer")

	_, bad = corrupted(t, NoiseOverconfidentTentative, prompts.Tentative, d)
	assert.Equal(t, []any{"Weeze Airport"}, bad["entities"], "and in place of the right one")
}

// planNoise returns the gold plan of question and its corrupted copy,
// both valid plans.
func planNoise(t *testing.T, kind, question string) (clean, bad kgqa.Plan) {
	t.Helper()
	c, b := corrupted(t, kind, prompts.Plan, prompts.PlanData{Question: question, Ops: []string{"find", "intersect", "superlative", "count"}})
	for _, x := range []struct {
		in  map[string]any
		out *kgqa.Plan
	}{{c, &clean}, {b, &bad}} {
		raw, err := json.Marshal(x.in)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, x.out))
		require.NoError(t, x.out.Validate(), "a valid plan: %s", raw)
	}
	return clean, bad
}

func ids(p kgqa.Plan) []string {
	var out []string
	for _, s := range p.Subgoals {
		out = append(out, s.ID+":"+string(s.Op)+"<-"+joinNeeds(s.Needs))
	}
	return out
}

func TestPlanErrors(t *testing.T) {
	const capital = "What is the capital of the country that contains Weeze Airport?"
	const longest = "What is the longest river that flows through Germany?"
	t.Run(NoisePlanDroppedConstraint, func(t *testing.T) {
		clean, bad := planNoise(t, NoisePlanDroppedConstraint, riverQuestion)
		assert.Equal(t, []string{"s1:find<-", "s2:find<-", "s3:intersect<-s1, s2"}, ids(clean))
		assert.Equal(t, []string{"s1:find<-"}, ids(bad), "the intersect and the Netherlands branch are gone")
		assert.Equal(t, "s1", bad.AnswerID())
	})
	t.Run(NoisePlanMergedSubgoals, func(t *testing.T) {
		clean, bad := planNoise(t, NoisePlanMergedSubgoals, capital)
		assert.Equal(t, []string{"s1:find<-", "s2:find<-s1"}, ids(clean))
		assert.Equal(t, []string{"s1:find<-"}, ids(bad))
		assert.Contains(t, bad.Subgoals[0].Text, "Weeze Airport")
		assert.Contains(t, bad.Subgoals[0].Text, "capital")

		clean, bad = planNoise(t, NoisePlanMergedSubgoals, riverQuestion)
		assert.Len(t, clean.Subgoals, 3)
		assert.Equal(t, []string{"s1:find<-"}, ids(bad), "the two branches in one find")
		assert.Contains(t, bad.Subgoals[0].Text, "Netherlands")
	})
	t.Run(NoisePlanReversedDirection, func(t *testing.T) {
		clean, bad := planNoise(t, NoisePlanReversedDirection, longest)
		i := slices.IndexFunc(clean.Subgoals, func(s kgqa.Subgoal) bool { return s.Op == kgqa.OpSuperlative })
		require.GreaterOrEqual(t, i, 0, "%v", ids(clean))
		assert.Equal(t, "max", clean.Subgoals[i].Args.Order)
		assert.Equal(t, "min", bad.Subgoals[i].Args.Order)

		clean, bad = planNoise(t, NoisePlanReversedDirection, capital)
		assert.Equal(t, []string{"s1:find<-", "s2:find<-s1"}, ids(clean))
		assert.Equal(t, []string{"s2:find<-", "s1:find<-s2"}, ids(bad), "the capital is looked for first")
	})
	t.Run(NoisePlanMissingDependency, func(t *testing.T) {
		clean, bad := planNoise(t, NoisePlanMissingDependency, capital)
		assert.Equal(t, []string{"s1:find<-", "s2:find<-s1"}, ids(clean))
		assert.Equal(t, []string{"s1:find<-", "s2:find<-"}, ids(bad))
	})
	t.Run("a one-step plan has no plan error", func(t *testing.T) {
		m := demoModel(t, WithNoise(Noise{Rate: 1, Seed: 3, Kinds: []string{NoisePlanDroppedConstraint, NoisePlanMergedSubgoals,
			NoisePlanReversedDirection, NoisePlanMissingDependency}}))
		rep := m.Answer(chatRequest(t, prompts.Plan, prompts.PlanData{Question: "Who is the mascot of the San Francisco Giants?", Ops: []string{"find"}}, true), "")
		assert.Empty(t, rep.Noise)
	})
}
