package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine"
)

// With planner.mode lqt the engine plans every demo question as a logical
// query tree from the oracle's atomic queries and pair relations, and
// answers as many as with the one-call planner (the ceiling of
// TestDemoBench); the trace says which planner ran and how.
func TestDemoWithTheLQTPlanner(t *testing.T) {
	cfg, questions, g, build := demoSetup(t, "planner.mode=lqt")
	run, err := runOnce(context.Background(), BenchOptions{Config: cfg, Graph: g, Engine: build, Concurrency: 4, Dir: t.TempDir()}, "lqt", questions, oracle.Policy{Kind: "gold"}, oracle.Noise{}, nil)
	require.NoError(t, err)
	require.Len(t, run.Results, 22)
	assert.GreaterOrEqual(t, hits(run.Results), 0.80)
	assert.Positive(t, run.Oracle.Calls["lqt_atoms"])
	assert.Zero(t, run.Oracle.Calls["plan"], "the one-call planner is not asked")
	for _, r := range run.Results {
		var ans kgqa.Answer
		require.NoError(t, json.Unmarshal(r.Trace, &ans), r.ID)
		assert.Equal(t, engine.PlanSourceLQT, ans.PlanInfo.Source, r.ID)
		require.NotNil(t, ans.PlanInfo.Tree, r.ID)
		ti := ans.PlanInfo.Tree
		assert.Equal(t, ti.Atoms*(ti.Atoms-1)/2, ti.Pairs, r.ID)
		assert.Equal(t, ti.Pairs, ti.PairCalls+ti.CachedUnrelated, r.ID)
		assert.Equal(t, 1, ti.Roots, "%s: the gold dependencies connect one tree", r.ID)
		assert.Equal(t, "dp", ti.Method, r.ID)
	}
}

// With planner.lqt.context_merge every edge of every demo tree is shown to
// the oracle with its partial tree; the oracle's labels follow the gold
// plan, so it confirms each one and the answers stay as without it.
func TestDemoWithLQTContextMerge(t *testing.T) {
	cfg, questions, g, build := demoSetup(t, "planner.mode=lqt", "planner.lqt.context_merge=true")
	run, err := runOnce(context.Background(), BenchOptions{Config: cfg, Graph: g, Engine: build, Concurrency: 4, Dir: t.TempDir()}, "lqt-merge", questions, oracle.Policy{Kind: "gold"}, oracle.Noise{}, nil)
	require.NoError(t, err)
	require.Len(t, run.Results, 22)
	assert.GreaterOrEqual(t, hits(run.Results), 0.80)
	edges := 0
	for _, r := range run.Results {
		var ans kgqa.Answer
		require.NoError(t, json.Unmarshal(r.Trace, &ans), r.ID)
		require.NotNil(t, ans.PlanInfo.Tree, r.ID)
		ti := ans.PlanInfo.Tree
		assert.Equal(t, ti.Atoms-1, ti.MergeCalls, "%s: one judgement per edge of the one tree", r.ID)
		assert.Zero(t, ti.MergeRejected, r.ID)
		edges += ti.MergeCalls
	}
	assert.Equal(t, edges, run.Oracle.Calls["lqt_merge"])
}
