package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shippedPrior is the relation prior the repository ships, learned from
// WebQSP train (configs/relprior).
func shippedPrior(t *testing.T) *relprior.Prior {
	t.Helper()
	p, err := relprior.Load("../../configs/relprior/webqsp-train.json")
	require.NoError(t, err)
	return p
}

// "border" shares no word with location.location.adjoin_s nor with
// location.adjoining_relationship.adjoins: cut to three of France's
// twelve relations by word overlap, the offer loses both and the
// question its answer. The prior learned from WebQSP train, where
// "what countries border ..." questions use them, ranks them first, so
// the same cut keeps them, and the trace says where the prior put the
// relation chosen.
func TestRelationPriorKeepsTheBorderRelationThroughACut(t *testing.T) {
	q := demoQuestion(t, "demo-03")
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the countries that border France.", Op: kgqa.OpFind}}}
	budgets := config.Default().Engine
	budgets.MaxOfferedRelations = 3
	adjoins := []kgqa.Relation{{ID: "location.location.adjoin_s", Dir: kgqa.Out}, {ID: "location.adjoining_relationship.adjoins", Dir: kgqa.In}}
	run := func(opts ...Option) (*kgqa.Answer, *kgqa.Round) {
		h := newHarness(t, kgqatest.NewDemoModel(), budgets)
		h.engine = mustNew(t, h.g, h.client, budgets, opts...)
		ans := ask(t, h, Request{Question: q.Question, TopicEntities: []string{"m.0f8l9c"}, Plan: plan})
		return ans, record(t, ans, "s1").Rounds[0]
	}

	_, lex := run()
	require.NotNil(t, lex.Cut)
	assert.Equal(t, "lexical", lex.Cut.Method)
	for _, r := range adjoins {
		assert.NotContains(t, lex.OfferedRelations, r, "word overlap cuts %s", r.ID)
	}

	ans, with := run(WithRelationPrior(shippedPrior(t)))
	require.NotNil(t, with.Cut)
	assert.Equal(t, "lexical+prior", with.Cut.Method)
	assert.Equal(t, "lexical+prior", with.Ranking)
	assert.Contains(t, with.OfferedRelations, adjoins[0])
	assert.Contains(t, with.OfferedRelations, adjoins[1])
	assert.Contains(t, termNames(ans.Entities), "Germany", brief(ans))
	require.NotEmpty(t, with.Prior, "the chosen relations' prior ranks are recorded")
	for _, pr := range with.Prior {
		assert.Contains(t, with.Chosen, pr.Relation)
		assert.Less(t, pr.Rank, 3)
	}
	assert.Contains(t, []kgqa.Relation{with.Prior[0].Relation}, with.Chosen[0])
}

// A round whose anchors have different relations offers each its own and
// lets each choose (engine.relation_choice anchor): one relations prompt
// per anchor, naming that anchor alone and offering its relations only,
// each recorded in the round, and neighbours fetched only from the anchor
// that chose the relation. With relation_choice round the anchors share
// one offer and one choice.
func TestRelationsAreChosenPerAnchor(t *testing.T) {
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the locations that contain Weeze Airport and France.", Op: kgqa.OpFind}}}
	anchors := map[string]string{"m.01785m": "Weeze Airport", "m.0f8l9c": "France"}
	run := func(choice string) (*harness, *kgqa.Round) {
		budgets := config.Default().Engine
		budgets.RelationChoice = choice
		h := newHarness(t, kgqatest.NewDemoModel(), budgets)
		ans := ask(t, h, Request{Question: "Which locations contain Weeze Airport and France?", TopicEntities: []string{"m.01785m", "m.0f8l9c"}, Plan: plan})
		return h, record(t, ans, "s1").Rounds[0]
	}
	relationsPrompts := func(h *harness) []string {
		var out []string
		for _, r := range h.server.Requests() {
			if r.Stage == "relations" {
				out = append(out, r.Chat.Messages[1].Content)
			}
		}
		return out
	}

	h, rd := run("anchor")
	require.Len(t, rd.Anchors, 2)
	require.Len(t, rd.AnchorOffers, 2, "one offer per anchor")
	prompts := relationsPrompts(h)
	require.Len(t, prompts, 2, "one relations prompt per anchor")
	chose := map[string]map[kgqa.Relation]bool{}
	for i, ao := range rd.AnchorOffers {
		require.Len(t, ao.Anchors, 1)
		a := ao.Anchors[0]
		other := "France"
		if a.Name == "France" {
			other = "Weeze Airport"
		}
		rels, err := h.g.Relations(context.Background(), a.ID)
		require.NoError(t, err)
		assert.ElementsMatch(t, rels, ao.OfferedRelations, "%s is offered its own relations", a.Name)
		assert.Equal(t, len(rels), ao.Offered)
		assert.Contains(t, prompts[i], anchors[a.ID]+" ["+a.ID+"]")
		assert.NotContains(t, prompts[i], other+" [", "the prompt of %s names no other anchor", a.Name)
		assert.Len(t, ao.Pages, 1)
		chose[a.ID] = map[kgqa.Relation]bool{}
		for _, r := range ao.Chosen {
			chose[a.ID][r] = true
			assert.Contains(t, rd.Chosen, r)
		}
	}
	assert.Len(t, rd.Pages, 2)
	for _, f := range rd.Facts {
		rel := kgqa.Relation{ID: f.Path[0], Dir: f.Dir}
		for _, end := range []string{f.Head.ID, f.Tail.ID} {
			if c, ok := chose[end]; ok {
				assert.True(t, c[rel], "%s (%s) was followed from %s, which chose it", rel.ID, rel.Dir, end)
			}
		}
	}

	h, rd = run("round")
	assert.Empty(t, rd.AnchorOffers)
	shared := relationsPrompts(h)
	require.Len(t, shared, 1, "one shared relations prompt")
	assert.True(t, strings.Contains(shared[0], "France [m.0f8l9c]") && strings.Contains(shared[0], "Weeze Airport [m.01785m]"))
}

// The members of one set, the answer of the subgoal a find needs, share
// one offer and one choice (engine.relation_choice set, the default):
// the countries that border France have different relations, and with
// relation_choice anchor each asks its own relations prompt, while with
// set the round makes one offer of all their relations and at most one
// choice, whose relations are followed from the members that have them.
func TestMembersOfOneSetShareTheRelationChoice(t *testing.T) {
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the countries that border France.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Find the currency used in #1.", Op: kgqa.OpFind, Needs: []string{"s1"}},
	}}
	run := func(choice string) (*kgqa.Round, int) {
		budgets := config.Default().Engine
		if choice != "" {
			budgets.RelationChoice = choice
		}
		h := newHarness(t, kgqatest.NewDemoModel(), budgets)
		ans := ask(t, h, Request{Question: "What currencies are used in the countries that border France?", TopicEntities: []string{"m.0f8l9c"}, Plan: plan})
		n := 0
		for _, r := range h.server.Requests() {
			if r.Stage == "relations" && strings.Contains(r.Chat.Messages[1].Content, "<== current subgoal") &&
				strings.Contains(r.Chat.Messages[1].Content, "Current subgoal: Find the currency used in #1") {
				n++
			}
		}
		rec := record(t, ans, "s2")
		require.NotEmpty(t, rec.Rounds)
		return rec.Rounds[0], n
	}

	rd, prompts := run("anchor")
	require.Greater(t, len(rd.Anchors), 1, "s1 answers several countries")
	require.Greater(t, len(rd.AnchorOffers), 1, "the members have different relations")
	assert.Equal(t, len(rd.AnchorOffers), prompts, "one relations prompt per member")

	rd, prompts = run("") // the default
	require.Greater(t, len(rd.Anchors), 1)
	assert.Empty(t, rd.AnchorOffers, "one offer for the set")
	assert.LessOrEqual(t, prompts, 1, "one relations prompt for the set")
	assert.NotEmpty(t, rd.Facts, "the shared choice is followed from the members")
}
