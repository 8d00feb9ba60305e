package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/prompts"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shortBudgets are the default budgets with an adaptive offer whose short
// page holds two relations, fewer than a demo anchor has. These tests are
// of the pages the relation choice is shown, so engine.clear_top_facts is
// off: on, the clear top of Weeze Airport's ranking ("contains") would be
// fetched without a choice, and no page shown (TestClearTopSkipsTheRelationChoice).
func shortBudgets(offer string) config.Engine {
	b := clearTopBudgets(false)
	b.RelationOffer, b.ShortOffer = offer, 2
	return b
}

// relationsPrompts are the user messages of the relations calls made
// from anchors (as the prompt lists them).
func relationsPrompts(h *harness, anchors string) []string {
	var out []string
	for _, r := range h.server.Requests() {
		if r.Stage == "relations" && strings.Contains(r.Chat.Messages[len(r.Chat.Messages)-1].Content, "Anchor entities: "+anchors+"\n") {
			out = append(out, r.Chat.Messages[len(r.Chat.Messages)-1].Content)
		}
	}
	return out
}

// weeze is Weeze Airport as a relations prompt lists it.
const weeze = "Weeze Airport [m.01785m]"

// One subgoal, "Find the country that contains Weeze Airport.": the
// relation sharing the word "contains" tops a ranking whose other
// relations share no word with the subgoal.
func weezePlan() *kgqa.Plan {
	return &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the country that contains Weeze Airport.", Op: kgqa.OpFind}}}
}

func TestAdaptiveOfferShowsAShortPageWhenTheRankingIsClear(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), shortBudgets("adaptive"))
	ans := ask(t, h, Request{Question: "Which country contains Weeze Airport?", TopicEntities: []string{"m.01785m"}, Plan: weezePlan()})
	rd := record(t, ans, "s1").Rounds[0]
	rels, err := h.g.Relations(context.Background(), "m.01785m")
	require.NoError(t, err)
	require.Greater(t, len(rels), 2)
	require.Len(t, rd.Pages, 1, brief(ans))
	assert.True(t, rd.Pages[0].Short)
	assert.Equal(t, 2, rd.Pages[0].Relations)
	assert.Equal(t, []kgqa.Relation{{ID: "location.location.contains", Dir: kgqa.In}}, rd.Chosen)
	assert.Equal(t, []string{"Germany"}, termNames(ans.Entities))
	users := relationsPrompts(h, weeze)
	require.Len(t, users, 1)
	assert.Equal(t, len(rels)-2, prompts.ReadMore(users[0]), "the page says how many it leaves unshown")
	out, in := prompts.ReadRelationGroups(users[0])
	shown := 0
	for _, g := range append(out, in...) {
		shown += len(g.Names)
	}
	assert.Equal(t, 2, shown)
}

func TestNoneFitsOnTheShortPageBringsTheOthers(t *testing.T) {
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, shortBudgets("adaptive"))
	var short atomic.Int32
	h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if llmtest.StageOf(req) == "relations" && prompts.ReadMore(req.Messages[len(req.Messages)-1].Content) > 0 {
			short.Add(1)
			return llmtest.JSON(map[string]any{"relations": []any{}, "reason": "none of these fits"})
		}
		return m.Handle(req)
	})
	ans := ask(t, h, Request{Question: "Which country contains Weeze Airport?", TopicEntities: []string{"m.01785m"}, Plan: weezePlan()})
	rd := record(t, ans, "s1").Rounds[0]
	require.EqualValues(t, 1, short.Load(), "one short page")
	require.GreaterOrEqual(t, len(rd.Pages), 2, brief(ans))
	assert.True(t, rd.Pages[0].Short)
	assert.Zero(t, rd.Pages[0].Chosen)
	rest := 0
	for _, p := range rd.Pages[1:] {
		assert.True(t, p.AfterNone)
		assert.False(t, p.Short)
		if !p.Final {
			rest += p.Relations
		}
	}
	assert.Equal(t, rd.Offered-2, rest, "the next page holds the relations the short page left out")
	users := relationsPrompts(h, weeze)
	require.Len(t, users, 2)
	assert.Zero(t, prompts.ReadMore(users[1]), "the next page is the rest of the offer")
	assert.NotEmpty(t, rd.Chosen, "the model chose among the others")
	for _, r := range rd.Chosen {
		assert.NotEqual(t, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.In}, r, "the short page's relations are not offered again")
	}
}

func TestAdaptiveOfferIsWholeWhenTheRankingIsUnclear(t *testing.T) {
	// No relation shares a word with "Find what Weeze Airport is named
	// after.": the ranking has no top, and the whole offer is shown.
	h := newHarness(t, kgqatest.NewDemoModel(), shortBudgets("adaptive"))
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find what Weeze Airport is named after.", Op: kgqa.OpFind}}}
	ans := ask(t, h, Request{Question: "What is Weeze Airport named after?", TopicEntities: []string{"m.01785m"}, Plan: plan})
	rd := record(t, ans, "s1").Rounds[0]
	require.Len(t, rd.Pages, 1, brief(ans))
	assert.False(t, rd.Pages[0].Short)
	assert.Equal(t, rd.Offered, rd.Pages[0].Relations)
	for _, u := range relationsPrompts(h, weeze) {
		assert.Zero(t, prompts.ReadMore(u))
	}
}

func TestFullRelationOfferShowsEveryRelationAsBefore(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), shortBudgets("full"))
	ans := ask(t, h, Request{Question: "Which country contains Weeze Airport?", TopicEntities: []string{"m.01785m"}, Plan: weezePlan()})
	rd := record(t, ans, "s1").Rounds[0]
	rels, err := h.g.Relations(context.Background(), "m.01785m")
	require.NoError(t, err)
	require.Len(t, rd.Pages, 1, brief(ans))
	assert.False(t, rd.Pages[0].Short)
	assert.Equal(t, len(rels), rd.Pages[0].Relations)
	assert.Empty(t, rd.PageRanking, "an offer on one page is not ranked")
	users := relationsPrompts(h, weeze)
	require.Len(t, users, 1)
	assert.Zero(t, prompts.ReadMore(users[0]))
	assert.False(t, strings.Contains(users[0], "keep none"))
	assert.Equal(t, []string{"Germany"}, termNames(ans.Entities))
}
