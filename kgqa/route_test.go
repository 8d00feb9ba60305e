package kgqa

import (
	"context"
	"encoding/json"
	"testing"

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
	plan := &Plan{Version: 1, Subgoals: []Subgoal{{ID: "s1", Text: "Find the author of Hamlet.", Op: OpFind}}}
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
	assert.Equal(t, StopPlanComplete, ans.Stop)
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
	h.engine = New(h.g, h.client, config.Default().Engine, WithResultTruncation())
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

func TestBadRetrievalRules(t *testing.T) {
	q := demoQuestion(t, "demo-17")
	cfg := config.Default().Engine
	cfg.RetrievalRules = []string{"count.depth=none"}
	h := newHarness(t, kgqatest.NewDemoModel(), cfg)
	_, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "engine.retrieval_rules")
	assert.Contains(t, err.Error(), "positive integer")
}
