package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A question that needs no KG is answered without a plan, a model call or
// a query, and flagged; with engine.direct off it takes the normal path.
func TestDirectRouteNeedsNoModel(t *testing.T) {
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	ans := ask(t, h, Request{Question: "What is 12 * 7?"})
	assert.Equal(t, "84", ans.Text)
	require.NotNil(t, ans.RetrievalPlan)
	assert.Equal(t, retrieval.RouteDirect, ans.RetrievalPlan.Route)
	assert.Equal(t, "arithmetic", ans.RetrievalPlan.Reasons["route"])
	assert.True(t, ans.AnsweredWithoutKG)
	require.NotNil(t, ans.Final)
	assert.Equal(t, FinalDirect, ans.Final.Source)
	assert.Nil(t, ans.Plan)
	assert.Zero(t, m.Total(), "no model call")
	assert.Zero(t, ans.Usage.SPARQLQueries)

	off := config.Default().Engine
	off.Direct = false
	h = newHarness(t, m, off)
	ans, _ = h.engine.Ask(context.Background(), Request{Question: "What is 12 * 7?"})
	assert.Positive(t, m.Total(), "planned and linked like any question")
	require.NotNil(t, ans.RetrievalPlan)
	assert.NotEqual(t, retrieval.RouteDirect, ans.RetrievalPlan.Route)
}

// A question none of whose entities links is routed boundary: by default
// the model answers from its own knowledge (flagged), with outside_kg
// notice the answer says the KG does not cover it, without a model call.
func TestBoundaryRoute(t *testing.T) {
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the author of Hamlet.", Op: kgqa.OpFind}}}
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	ans := ask(t, h, Request{Question: "Who wrote Hamlet?", Plan: plan})
	require.NotNil(t, ans.RetrievalPlan)
	assert.Equal(t, retrieval.RouteBoundary, ans.RetrievalPlan.Route)
	assert.Equal(t, "no_topic_entity", ans.RetrievalPlan.Reasons["route"])
	assert.Equal(t, "model_knowledge", ans.Final.Source)

	cfg := config.Default().Engine
	cfg.OutsideKG = "notice"
	m = kgqatest.NewDemoModel()
	h = newHarness(t, m, cfg)
	ans = ask(t, h, Request{Question: "Who wrote Hamlet?", Plan: plan})
	assert.Equal(t, retrieval.RouteBoundary, ans.RetrievalPlan.Route)
	require.NotNil(t, ans.Final)
	assert.Equal(t, FinalOutsideKG, ans.Final.Source)
	assert.Equal(t, "The knowledge graph does not cover this question: no entity of it is in the graph.", ans.Text)
	assert.False(t, ans.AnsweredWithoutKG, "no guess was made")
	assert.Zero(t, m.Calls("final"))
	assert.Equal(t, kgqa.StopPlanComplete, ans.Stop)
}

// Every subgoal's pack is in the trace, with its categories and reasons,
// and a KG question is routed kg.
func TestPackInTrace(t *testing.T) {
	q := demoQuestion(t, "demo-21") // find, compare, count
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"4"}, entityIDs(ans.Entities))
	require.NotNil(t, ans.RetrievalPlan)
	assert.Equal(t, retrieval.RouteKG, ans.RetrievalPlan.Route)
	assert.Equal(t, "topic_entities_linked", ans.RetrievalPlan.Reasons["route"])
	assert.Equal(t, []retrieval.Category{retrieval.Count, retrieval.Comparative, retrieval.Temporal}, ans.RetrievalPlan.Categories)

	s1 := record(t, ans, "s1").Retrieval
	require.NotNil(t, s1)
	assert.Equal(t, []retrieval.Category{retrieval.Comparative}, s1.Categories, "s1's films are compared")
	assert.False(t, s1.TruncateNeighbors)
	assert.Equal(t, "comparative_needs_full_set", s1.Reasons["truncate_neighbors"])
	assert.Equal(t, "engine_budget", s1.Reasons["depth"])
	s2 := record(t, ans, "s2").Retrieval
	require.NotNil(t, s2)
	assert.Equal(t, []retrieval.Category{retrieval.Count, retrieval.Comparative, retrieval.Temporal}, s2.Categories)

	data, err := json.Marshal(ans)
	require.NoError(t, err)
	var trace struct {
		RetrievalPlan map[string]any `json:"retrieval_plan"`
		Subgoals      []struct {
			Retrieval map[string]any `json:"retrieval"`
		} `json:"subgoals"`
	}
	require.NoError(t, json.Unmarshal(data, &trace))
	assert.Equal(t, "kg", trace.RetrievalPlan["route"])
	for _, s := range trace.Subgoals {
		for _, k := range []string{"width", "depth", "relations", "facts_per_pair", "facts_per_prompt", "truncate_neighbors", "tentative", "prune", "reasons"} {
			assert.Contains(t, s.Retrieval, k)
		}
	}
}

// Under result truncation a counted set is still counted whole: the
// count's pack forbids cutting the set it counts.
func TestCountedSetIsNotTruncated(t *testing.T) {
	q := demoQuestion(t, "demo-17") // How many countries border France? 10
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	h.engine = mustNew(t, h.g, h.client, config.Default().Engine, WithResultTruncation())
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"10"}, entityIDs(ans.Entities), brief(ans))
	s1 := record(t, ans, "s1")
	assert.False(t, s1.Retrieval.TruncateNeighbors)
	assert.Equal(t, "count_needs_full_set", s1.Retrieval.Reasons["truncate_neighbors"])
	assert.Nil(t, s1.Truncation)
}

// A pack that asks for no tentative answer makes no tentative call, and
// the evidence still answers.
func TestPackWithoutTentative(t *testing.T) {
	q := demoQuestion(t, "demo-17")
	cfg := config.Default().Engine
	cfg.RetrievalRules = []string{"count.tentative=false"}
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, cfg)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"10"}, entityIDs(ans.Entities))
	assert.Zero(t, m.Calls("tentative"))
	assert.Equal(t, "config_override", record(t, ans, "s1").Retrieval.Reasons["tentative"])

	m = kgqatest.NewDemoModel()
	h = newHarness(t, m, config.Default().Engine)
	ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, 1, m.Calls("tentative"), "the default pack asks")
}

// A superlative over an attribute no relation of its members carries
// lies outside the KG: the subgoal and the question are marked boundary
// (property_not_in_kg); by default the tentative answer stands, with
// outside_kg notice the answer says the KG does not cover it.
func TestPropertyNotInKG(t *testing.T) {
	plan := func(attr string) *kgqa.Plan {
		return &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
			{ID: "s1", Text: "Find the countries that border France.", Op: kgqa.OpFind},
			{ID: "s2", Text: "Find the country in #1 with the most " + attr + ".", Op: kgqa.OpSuperlative, Needs: []string{"s1"},
				Args: &kgqa.Args{Attribute: attr, Order: "max"}},
		}}
	}
	q := "Which country bordering France has the most volcanoes?"
	topics := []string{"m.0f8l9c"}
	m := kgqatest.NewDemoModel(kgqatest.Believe("volcanoes", "Italy"))
	h := newHarness(t, m, config.Default().Engine)
	ans := ask(t, h, Request{Question: q, Plan: plan("volcanoes"), TopicEntities: topics})
	s2 := record(t, ans, "s2")
	assert.Equal(t, "property_not_in_kg", s2.Boundary, brief(ans))
	assert.Empty(t, record(t, ans, "s1").Boundary, "s1's relation is in the KG")
	assert.Equal(t, retrieval.RouteBoundary, ans.RetrievalPlan.Route)
	assert.Equal(t, "property_not_in_kg", ans.RetrievalPlan.Reasons["route"])
	require.NotNil(t, s2.SetOp)
	assert.Equal(t, "tentative", s2.SetOp.Method)
	assert.Contains(t, s2.SetOp.Note, "property_not_in_kg")
	require.Len(t, ans.Entities, 1, "the tentative answer stands")
	assert.Equal(t, "Italy", ans.Entities[0].Name)
	assert.False(t, ans.Final != nil && ans.Final.Source == FinalOutsideKG)

	cfg := config.Default().Engine
	cfg.OutsideKG = "notice"
	h = newHarness(t, kgqatest.NewDemoModel(kgqatest.Believe("volcanoes", "Italy")), cfg)
	ans = ask(t, h, Request{Question: q, Plan: plan("volcanoes"), TopicEntities: topics})
	require.NotNil(t, ans.Final)
	assert.Equal(t, FinalOutsideKG, ans.Final.Source)
	assert.Equal(t, "property_not_in_kg", ans.Final.Reason)
	assert.Empty(t, ans.Entities)
	assert.Contains(t, ans.Text, "The knowledge graph does not cover this question")
	assert.Contains(t, ans.Text, `"volcanoes"`)
	assert.Contains(t, ans.Text, "and 5 more", "ten members, five named")

	// An attribute the members' relations carry is no boundary.
	h = newHarness(t, kgqatest.NewDemoModel(), cfg)
	ans = ask(t, h, Request{Question: "Which country bordering France has the largest population?", Plan: plan("population"), TopicEntities: topics})
	assert.Empty(t, record(t, ans, "s2").Boundary, brief(ans))
	assert.Equal(t, retrieval.RouteKG, ans.RetrievalPlan.Route)
	assert.False(t, ans.Final != nil && ans.Final.Source == FinalOutsideKG)
}

// A hub's neighbour list is cut to the facts per pair (hub_entity_cap)
// for a plain find, and kept whole for a set that is counted
// (count_needs_full_set wins); both are in the trace.
func TestHubEntityCap(t *testing.T) {
	q := demoQuestion(t, "demo-17") // How many countries border France? 10 (10 adjoin_s mediators)
	cfg := config.Default().Engine
	cfg.RetrievalRules = []string{"all.hub_threshold=5"}
	cfg.MaxEntitiesPerRelation = 3
	h := newHarness(t, kgqatest.NewDemoModel(), cfg)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"10"}, entityIDs(ans.Entities), brief(ans))
	s1 := record(t, ans, "s1")
	assert.Equal(t, 5, s1.Retrieval.HubThreshold)
	// The first round fetches the clear top of the ranking, a river's
	// basin countries (engine.clear_top_facts), which refinement finds
	// misaligned; the second is the model's choice, the ten mediators.
	require.Len(t, s1.Rounds, 2, brief(ans))
	last := s1.Rounds[1]
	require.NotEmpty(t, last.Hubs, brief(ans))
	assert.Equal(t, []kgqa.HubPair{{Entity: "m.0f8l9c", Relation: last.Hubs[0].Relation, Count: 10, Cut: false, Reason: "count_needs_full_set"}}, last.Hubs)

	find := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the countries that border France.", Op: kgqa.OpFind}}}
	ans = ask(t, h, Request{Question: "Which countries border France?", Plan: find, TopicEntities: topicIDs(q)})
	s1 = record(t, ans, "s1")
	require.Len(t, s1.Rounds, 2, brief(ans))
	last = s1.Rounds[1]
	hubs := last.Hubs
	require.Len(t, hubs, 1, brief(ans))
	assert.Equal(t, kgqa.HubPair{Entity: "m.0f8l9c", Relation: hubs[0].Relation, Count: 10, Cut: true, Reason: "hub_entity_cap"}, hubs[0])
	assert.Contains(t, last.Capped, kgqa.CappedPair{Entity: "m.0f8l9c", Relation: hubs[0].Relation, Limit: 3})
	assert.Len(t, ans.Entities, 3, "three of the ten mediators were followed")

	// Under the default threshold France is no hub.
	cfg.RetrievalRules = nil
	h = newHarness(t, kgqatest.NewDemoModel(), cfg)
	ans = ask(t, h, Request{Question: "Which countries border France?", Plan: find, TopicEntities: topicIDs(q)})
	s1 = record(t, ans, "s1")
	for _, rd := range s1.Rounds {
		assert.Empty(t, rd.Hubs)
	}
	assert.Len(t, ans.Entities, 10, brief(ans))
}

// A composition subgoal that names two relations (demo-06 extended one
// hop: the airports of the capital of the country that contains Weeze
// Airport) gets depth 2 and reaches the airport; at one hop per subgoal it
// stops at the capital.
func TestCompositionNamingTwoRelationsGetsDepthTwo(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the country that contains Weeze Airport.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Find the nearby airports of the capital of #1.", Op: kgqa.OpFind, Needs: []string{"s1"}},
	}}
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	ans := ask(t, h, Request{Question: "Which airports are near the capital of the country that contains Weeze Airport?", Plan: plan, TopicEntities: topicIDs(q)})
	require.Len(t, ans.Subgoals, 2)
	rec := ans.Subgoals[1]
	require.NotNil(t, rec.Retrieval)
	assert.Equal(t, 2, rec.Retrieval.Depth)
	assert.Equal(t, retrieval.ReasonCompositionTwoRelations, rec.Retrieval.Reasons["depth"])
	require.Len(t, rec.Rounds, 2)
	assert.Equal(t, []string{"m.0156q"}, entityIDs(rec.Rounds[1].Anchors), "the second hop starts from the capital")
	assert.Equal(t, retrieval.ReasonCompositionTwoRelations, rec.Rounds[1].DepthReason)
	assert.Equal(t, []string{"m.0f6zfk"}, entityIDs(ans.Entities), brief(ans))
}
