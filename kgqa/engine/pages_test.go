package engine

import (
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An offer whose relations prompt would pass the token budget is split
// into pages, most relevant first, each prompt within the budget; the
// model keeps relations of each page and chooses among them at the end,
// so no relation is lost to a cut and the first page's best does not win
// for coming first. Germany's relations against a budget a few relations
// short of them all: the border relation is chosen as from the whole
// offer.
func TestRelationOfferPagesUnderBudget(t *testing.T) {
	q := demoQuestion(t, "demo-03")
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the countries that border Germany.", Op: kgqa.OpFind}}}
	// The pages are those of the relation choice: clear_top_facts off,
	// since "border" would otherwise fetch the clear top of the ranking
	// (a river's basin countries) without showing a page.
	cfg := clearTopBudgets(false)
	run := func(budget int) *kgqa.Round {
		h := newHarness(t, kgqatest.NewDemoModel(), cfg)
		if budget > 0 {
			h.engine = mustNew(t, h.g, h.client, cfg, WithRelationsPromptBudget(budget))
		}
		ans := ask(t, h, Request{Question: q.Question, TopicEntities: []string{"m.0345h"}, Plan: plan})
		rd := record(t, ans, "s1").Rounds[0]
		assert.Contains(t, termNames(ans.Entities), "France", brief(ans))
		return rd
	}
	whole := run(0)
	require.Len(t, whole.Pages, 1, "the default budget holds the demo graph's offers whole")
	assert.Equal(t, whole.Offered, whole.Pages[0].Relations)
	budget := whole.Pages[0].PromptTokens - 15
	paged := run(budget)
	require.Greater(t, len(paged.Pages), 1, "%+v", paged.Pages)
	assert.NotEmpty(t, paged.PageRanking)
	shown := 0
	for i, p := range paged.Pages {
		assert.LessOrEqual(t, p.PromptTokens, budget, "page %d", i)
		if !p.Final {
			shown += p.Relations
		}
	}
	assert.Equal(t, paged.Offered, shown, "every offered relation is on a page")
	assert.Contains(t, paged.Chosen, kgqa.Relation{ID: "location.adjoining_relationship.adjoins", Dir: kgqa.In})
}
