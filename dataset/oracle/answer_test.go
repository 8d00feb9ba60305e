package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa/prompts"
)

const demoQuestions = "../../kgqa/kg/demokg/questions.json"

func demoModel(t *testing.T, opts ...Option) *Model {
	t.Helper()
	l, err := dataset.LoadFile(context.Background(), demoQuestions, dataset.Demo)
	require.NoError(t, err)
	m, skipped := New(l.Questions, opts...)
	require.Empty(t, skipped, "every demo question's gold query converts")
	return m
}

func validate(t *testing.T, stage, content string) map[string]any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(prompts.Schema(stage)))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(stage+".json", doc))
	sch, err := c.Compile(stage + ".json")
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(content)))
	require.NoError(t, err, "the reply is JSON: %s", content)
	require.NoError(t, sch.Validate(inst), "the reply follows the engine's schema: %s", content)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(content), &out))
	return out
}

// TestPerfectReplies checks every prompt kind's reply against the
// engine's own schema and against what a perfect model says: the sample
// is the second subgoal of "What is the capital of the country that
// contains Weeze Airport?", whose gold answer is Berlin.
func TestPerfectReplies(t *testing.T) {
	m := demoModel(t)
	data := sampleData()
	want := map[string]func(t *testing.T, rep map[string]any){
		prompts.Plan: func(t *testing.T, rep map[string]any) { assert.Len(t, rep["subgoals"], 2) },
		prompts.Mentions: func(t *testing.T, rep map[string]any) {
			assert.Equal(t, []any{"Weeze Airport"}, rep["mentions"])
		},
		prompts.Tentative: func(t *testing.T, rep map[string]any) { assert.Equal(t, []any{"Berlin"}, rep["entities"]) },
		prompts.Relations: func(t *testing.T, rep map[string]any) {
			assert.Equal(t, []any{map[string]any{"id": "location.country.capital", "dir": "out"}}, rep["relations"])
		},
		prompts.Prune: func(t *testing.T, rep map[string]any) { assert.Equal(t, []any{1.0}, rep["keep"]) },
		prompts.Refine: func(t *testing.T, rep map[string]any) {
			assert.Equal(t, true, rep["aligned"])
			assert.Equal(t, []any{"m.0156q"}, rep["entities"])
			assert.Equal(t, []any{1.0}, rep["used_facts"])
		},
		prompts.Sufficiency: func(t *testing.T, rep map[string]any) {
			assert.Equal(t, true, rep["sufficient"])
			assert.Equal(t, []any{"m.0156q"}, rep["entities"])
		},
		prompts.Final:  func(t *testing.T, rep map[string]any) { assert.Equal(t, "Berlin", rep["answer"]) },
		prompts.Select: func(t *testing.T, rep map[string]any) { assert.Equal(t, []any{"m.0156q"}, rep["entities"]) },
		prompts.LQTAtoms: func(t *testing.T, rep map[string]any) {
			assert.Equal(t, []any{
				map[string]any{"text": "Find the countries that contains Weeze Airport.", "op": "find"},
				map[string]any{"text": "Find the capital of #1.", "op": "find"},
			}, rep["queries"])
		},
		// Query A (the capital of #1) uses query B's result.
		prompts.LQTRelation: func(t *testing.T, rep map[string]any) {
			assert.Equal(t, "parent_child", rep["relation"])
			assert.Equal(t, "A", rep["parent"])
		},
		// The capital of #1 uses the countries' result: the merge holds.
		prompts.LQTMerge: func(t *testing.T, rep map[string]any) { assert.Equal(t, true, rep["merge"]) },
	}
	want[prompts.FollowUp] = func(t *testing.T, rep map[string]any) {
		assert.Equal(t, "new", rep["verdict"])
		assert.Equal(t, "What is the capital of the country that contains Weeze Airport?", rep["question"])
	}
	want[prompts.PlanFewShot] = want[prompts.Plan]
	for _, stage := range prompts.Names {
		t.Run(stage, func(t *testing.T) {
			check, ok := want[stage]
			require.True(t, ok, "no expectation for prompt kind %q", stage)
			rep := m.Answer(chatRequest(t, stage, data[stage], true), "")
			require.Equal(t, http.StatusOK, rep.Status, rep.Error)
			assert.Equal(t, stage, rep.Stage)
			check(t, validate(t, stage, rep.Content))
		})
	}
	assert.Zero(t, m.Stats().Unrecognised)
}

func TestRefineWithoutTheGoldAnswerKeepsTheTentative(t *testing.T) {
	m := demoModel(t)
	d := sampleData()[prompts.Refine].(prompts.RefineData)
	d.Facts = []string{"Germany [m.0345h] -[location: contains]-> Bonn [m.0dlv0]"}
	rep := validate(t, prompts.Refine, m.Answer(chatRequest(t, prompts.Refine, d, true), "").Content)
	assert.Equal(t, false, rep["aligned"])
	assert.Equal(t, "Berlin", rep["answer"], "the tentative answer stands")
	assert.Equal(t, []string{"s2: gold answer not among 1 facts"}, m.Question("demo-06").Notes)
}

// A round that skips the relation choice (engine.clear_top_facts) shows
// refinement the facts of a relation or two of the ranking's top: the
// oracle aligns on the gold relation's facts among them and keeps only
// the gold entities.
func TestRefineOfSeveralRelationsKeepsOnlyTheGold(t *testing.T) {
	m := demoModel(t)
	d := sampleData()[prompts.Refine].(prompts.RefineData)
	d.Facts = []string{"Germany [m.0345h] -[location: contains]-> Bonn [m.0dlv0]",
		"Germany [m.0345h] -[country: capital]-> Berlin [m.0156q]",
		"Germany [m.0345h] -[location: contains]-> Weeze Airport [m.01785m]"}
	rep := validate(t, prompts.Refine, m.Answer(chatRequest(t, prompts.Refine, d, true), "").Content)
	assert.Equal(t, true, rep["aligned"])
	assert.Equal(t, []any{"m.0156q"}, rep["entities"])
	assert.Equal(t, []any{2.0}, rep["used_facts"])
}

func TestIntermediateSubgoalFollowsTheGoldPath(t *testing.T) {
	m := demoModel(t)
	d := sampleData()[prompts.Refine].(prompts.RefineData)
	d.Plan.Current, d.Plan.Known = "s1", nil
	d.Subgoal = "Find the countries that contains Weeze Airport."
	// contains, read against its direction: the container is the subject.
	d.Facts = []string{"Germany [m.0345h] -[location: contains]-> Weeze Airport [m.01785m]",
		"Weeze Airport [m.01785m] -[airport: serves]-> Weeze [m.0weez]"}
	rep := validate(t, prompts.Refine, m.Answer(chatRequest(t, prompts.Refine, d, true), "").Content)
	assert.Equal(t, true, rep["aligned"])
	assert.Equal(t, []any{"m.0345h"}, rep["entities"])
	assert.Equal(t, []any{1.0}, rep["used_facts"])
}

func TestTentativePolicies(t *testing.T) {
	d := sampleData()[prompts.Tentative]
	for policy, want := range map[string][]any{"gold": {"Berlin"}, "wrong": {"Weeze Airport"}, "none": {}, "mixed:1": {"Weeze Airport"}, "mixed:0": {"Berlin"}} {
		t.Run(policy, func(t *testing.T) {
			p, err := ParsePolicy(policy)
			require.NoError(t, err)
			m := demoModel(t, WithTentative(p))
			rep := validate(t, prompts.Tentative, m.Answer(chatRequest(t, prompts.Tentative, d, true), "").Content)
			assert.Equal(t, want, rep["entities"])
		})
	}
	_, err := ParsePolicy("mixed:x")
	assert.Error(t, err)
}

// Pairs of the airport question's gold plan (demo-09: s1 countries
// bordering France, s2 airports serving Nijmegen, s3 countries containing
// #2, s4 those of #1 also in #3) relate as its dependencies say.
func TestLQTRelationsFollowTheGoldDependencies(t *testing.T) {
	m := demoModel(t)
	q := m.lookup("What country bordering France contains an airport that serves Nijmegen?")
	require.NotNil(t, q)
	tu := &turn{m: m, q: q}
	atoms, texts, _ := tu.goldAtoms()
	require.Len(t, atoms, 4, "the gold plan: %s", q.plan)
	shown := func(i int) string { return prompts.ExpandRefs(texts, i) }
	ask := func(a, b int) map[string]any {
		d := prompts.LQTRelationData{Question: q.q.Text, A: shown(a), B: shown(b)}
		return validate(t, prompts.LQTRelation, m.Answer(chatRequest(t, prompts.LQTRelation, d, true), "").Content)
	}
	cases := []struct {
		a, b             int
		relation, parent string
	}{
		{0, 1, "unrelated", ""},
		{0, 2, "sibling", ""},
		{2, 1, "parent_child", "A"},
		{1, 2, "parent_child", "B"},
		{3, 0, "parent_child", "A"},
		{1, 3, "unrelated", ""},
	}
	for _, c := range cases {
		rep := ask(c.a, c.b)
		assert.Equal(t, c.relation, rep["relation"], "%d-%d", c.a+1, c.b+1)
		assert.Equal(t, c.parent, rep["parent"], "%d-%d", c.a+1, c.b+1)
	}
	d := prompts.LQTRelationData{Question: q.q.Text, A: "Find the moons of Mars.", B: shown(0)}
	rep := validate(t, prompts.LQTRelation, m.Answer(chatRequest(t, prompts.LQTRelation, d, true), "").Content)
	assert.Equal(t, "unrelated", rep["relation"])
	// A merge holds when the gold parent needs the child, not the other
	// way round, nor between siblings.
	for _, c := range []struct {
		parent, child int
		merge         bool
	}{{3, 0, true}, {2, 1, true}, {1, 2, false}, {0, 2, false}} {
		d := prompts.LQTMergeData{Question: q.q.Text, Tree: shown(c.parent), Parent: shown(c.parent), Child: shown(c.child), Subtree: shown(c.child)}
		rep := validate(t, prompts.LQTMerge, m.Answer(chatRequest(t, prompts.LQTMerge, d, true), "").Content)
		assert.Equal(t, c.merge, rep["merge"], "%d under %d", c.child+1, c.parent+1)
	}
	assert.Contains(t, m.Question(q.q.ID).Notes, "lqt: a query not in the gold plan: Find the moons of Mars.")
}

// A short first page (an adaptive offer) without the gold relation is
// answered "none fits", which brings the other relations, and noted apart
// from a gold relation never offered; with it, the gold relation is kept.
func TestShortPageWithoutTheGoldRelationIsNoneFits(t *testing.T) {
	m := demoModel(t)
	d := sampleData()[prompts.Relations].(prompts.RelationsData)
	d.More = 40
	d.Out = []prompts.RelationGroup{{Type: "location.location", Names: []string{"contains", "containedby"}}}
	rep := validate(t, prompts.Relations, m.Answer(chatRequest(t, prompts.Relations, d, true), "").Content)
	assert.Empty(t, rep["relations"], "none fits")
	require.Len(t, m.Question("demo-06").Notes, 1)
	assert.Contains(t, m.Question("demo-06").Notes[0], "not on the short page (2 shown, 40 more)")
	assert.NotContains(t, m.Question("demo-06").Notes[0], "not offered")

	d.Out = append(d.Out, prompts.RelationGroup{Type: "location.country", Names: []string{"capital"}})
	rep = validate(t, prompts.Relations, m.Answer(chatRequest(t, prompts.Relations, d, true), "").Content)
	assert.Equal(t, []any{map[string]any{"id": "location.country.capital", "dir": "out"}}, rep["relations"])
}
