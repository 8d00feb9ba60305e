package engine

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// mustNew is New for a configuration the test means to be good.
func mustNew(tb testing.TB, g kg.Graph, chat kgqa.Chatter, cfg config.Engine, opts ...Option) *Engine {
	tb.Helper()
	e, err := New(g, chat, cfg, opts...)
	require.NoError(tb, err)
	return e
}

// Bad retrieval rules are refused when the engine is built, naming the
// setting and the reason, not on every question afterwards.
func TestBadRetrievalRules(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	for _, tc := range []struct{ rule, reason string }{
		{"count.depth=none", "positive integer"},
		{"linear.depth=2", "unknown category"},
		{"count.depth", "CATEGORY.PARAM=VALUE"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			cfg := config.Default().Engine
			cfg.RetrievalRules = []string{tc.rule}
			e, err := New(h.g, h.client, cfg)
			require.Error(t, err)
			assert.Nil(t, e)
			var ce *config.Error
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, "engine.retrieval_rules", ce.Key)
			assert.Contains(t, err.Error(), tc.reason)
		})
	}
}

// The rules parsed at construction are the ones RetrievalPlan and Ask
// follow: an override shows in the plan's packs with its reason.
func TestRetrievalRulesParsedAtNewApply(t *testing.T) {
	cfg := config.Default().Engine
	cfg.RetrievalRules = []string{"count.depth=3"}
	h := newHarness(t, kgqatest.NewDemoModel(), cfg)
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the countries that border France.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Count #1.", Op: kgqa.OpCount, Needs: []string{"s1"}},
	}}
	_, packs := h.engine.RetrievalPlan("How many countries border France?", plan)
	require.Contains(t, packs, "s1")
	assert.Equal(t, 3, packs["s1"].Depth, "%+v", packs["s1"])
	assert.Equal(t, "config_override", packs["s1"].Reasons["depth"])

	_, packs = mustNew(t, h.g, h.client, config.Default().Engine).RetrievalPlan("How many countries border France?", plan)
	assert.NotEqual(t, "config_override", packs["s1"].Reasons["depth"], "the default table has no override")
}
