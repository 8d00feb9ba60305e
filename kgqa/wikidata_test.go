package kgqa

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wikidataGraph opens the shipped Wikidata demo graph the way
// configs/demo-wikidata.yaml does.
func wikidataGraph(tb testing.TB) kg.Graph {
	tb.Helper()
	cfg := config.Default().KG
	cfg.Dialect, cfg.Files = "wikidata", []string{kg.BuiltinDemoWikidata}
	g, err := kg.Open(context.Background(), cfg, "")
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// newWikidataHarness is newHarness on the Wikidata demo graph.
func newWikidataHarness(tb testing.TB, m *kgqatest.Model, cfg config.Engine) *harness {
	tb.Helper()
	h := &harness{g: wikidataGraph(tb), model: m}
	h.server = llmtest.New(tb, llmtest.WithHandler(m.Handle))
	c, err := llm.New(llmConfig(h.server.URL(), true))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	h.client = c
	h.engine = New(h.g, c, cfg)
	return h
}

// assertGold checks that ans holds exactly the gold answers of q.
func assertGold(t *testing.T, q demokg.Question, ans *Answer) {
	t.Helper()
	require.NotEmpty(t, ans.Entities, "trace:\n%s", brief(ans))
	for _, a := range q.Answers {
		found := false
		for _, p := range ans.Entities {
			found = found || goldMatch(p, a)
		}
		assert.True(t, found, "gold %s %q missing; trace:\n%s", a.ID, a.Name, brief(ans))
	}
	for _, p := range ans.Entities {
		found := false
		for _, a := range q.Answers {
			found = found || goldMatch(p, a)
		}
		assert.True(t, found, "%s %q is not a gold answer; trace:\n%s", p.ID, p.Name, brief(ans))
	}
}

// Every Wikidata demo question, planned by the model and asked with its
// topic entities, is answered with exactly its gold answer set.
func TestEveryWikidataDemoQuestionGetsItsGoldAnswer(t *testing.T) {
	qs := demokg.WikidataQuestions()
	require.Len(t, qs, 5)
	for _, q := range qs {
		t.Run(q.ID, func(t *testing.T) {
			h := newWikidataHarness(t, kgqatest.NewWikidataDemoModel(), config.Default().Engine)
			ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
			require.NoError(t, err, "trace:\n%s", briefOrNil(ans))
			assertGold(t, q, ans)
			assert.Equal(t, StopPlanComplete, ans.Stop)
			assert.Equal(t, PlanSourcePlanner, ans.PlanInfo.Source)
		})
	}
}
