package lqt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/prompts"
)

const obamaCountry = "Which country contains Barack Obama's birthplace?"

// obamaModel labels the pairs of three queries with a conflict: the
// country uses the birthplace, the capital uses the country, and
// (wrongly) the birthplace uses the capital. Asked for the country, the
// tree whose text reads most like the question is the chain country ->
// birthplace -> capital (the capital hung under a query that never names
// it), the only one of the three chains whose text holds no "capital".
func obamaModel() *scripted {
	a := []Atom{
		{Text: "Find Barack Obama's birthplace.", Op: kgqa.OpFind},
		{Text: "Find the country containing #1.", Op: kgqa.OpFind},
		{Text: "Find the capital of #2.", Op: kgqa.OpFind},
	}
	texts := []string{a[0].Text, a[1].Text, a[2].Text}
	shown := func(i int) string { return prompts.ExpandRefs(texts, i) }
	return &scripted{
		atoms: map[string][]Atom{obamaCountry: a},
		rel: map[string]relationReply{
			shown(0) + "|" + shown(1): {Reason: "#2 uses #1", Relation: "parent_child", Parent: "B"},
			shown(1) + "|" + shown(2): {Reason: "#3 uses #2", Relation: "parent_child", Parent: "B"},
			shown(0) + "|" + shown(2): {Reason: "wrong", Relation: "parent_child", Parent: "A"},
		},
		reject: map[string]bool{shown(0) + "|" + shown(2): true},
	}
}

// Without context-aware merging the conflicting label stands: the
// capital hangs under the birthplace and no merge is judged.
func TestContextMergeOffKeepsTheCheapestTree(t *testing.T) {
	m := obamaModel()
	c, _ := client(t, m.handle)
	p := New(c, config.LQT{Alpha: 10})
	plan, info, err := p.Plan(context.Background(), obamaCountry)
	require.NoError(t, err)
	assert.Zero(t, info.Tree.MergeCalls)
	assert.Empty(t, m.merges)
	needs := map[string][]string{}
	for _, s := range plan.Subgoals {
		needs[s.ID] = s.Needs
	}
	assert.Equal(t, map[string][]string{"s1": {"s3"}, "s2": {"s1"}, "s3": nil}, needs, "the chain country -> birthplace -> capital")
	assert.Equal(t, "s2", plan.Answer)
}

// With planner.lqt.context_merge the model sees each merge with the
// partial tree its parent heads and turns down the capital under the
// birthplace; the pair becomes unrelated and the tree is chosen again:
// capital -> country -> birthplace, whose one new edge is judged too.
func TestContextMergeRejectsAMergeAndRechooses(t *testing.T) {
	m := obamaModel()
	c, _ := client(t, m.handle)
	p := New(c, config.LQT{Alpha: 10, ContextMerge: true})
	plan, info, err := p.Plan(context.Background(), obamaCountry)
	require.NoError(t, err)
	ti := info.Tree
	assert.Equal(t, 3, ti.MergeCalls, "two edges of the first tree, then the new one")
	assert.Equal(t, 1, ti.MergeRejected)
	assert.Equal(t, "s3", plan.Answer)
	needs := map[string][]string{}
	for _, s := range plan.Subgoals {
		needs[s.ID] = s.Needs
	}
	assert.Equal(t, map[string][]string{"s1": nil, "s2": {"s1"}, "s3": {"s2"}}, needs)
	// The country's merge under it was shown with the partial tree
	// country alone and the birthplace's subtree as the child.
	assert.Contains(t, m.merges, "Find the country containing #1 [Find Barack Obama's birthplace.].|Find Barack Obama's birthplace.|Find the country containing #1.|Find Barack Obama's birthplace.")
}
