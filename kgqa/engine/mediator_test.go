package engine

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ventureGraph opens testdata/mediator: a Freebase venture-capital record
// as the schema lays it out (fb_roles: a venture_funded_company's
// venture_investors are venture_investment mediators, whose
// investment_amount is a measurement_unit.money_value mediator, whose
// currency is a finance.currency), with the real MIDs of the US dollar
// and the United States. The KG folds the first mediator into two-relation
// facts, which end on the second, nameless one. Neither FB15k-237 nor the
// dense world holds a mediator inside a mediator, so the records are
// written out here. extra files join the graph.
func ventureGraph(tb testing.TB, extra ...string) kg.Graph {
	tb.Helper()
	cfg := config.Default().KG
	cfg.Files = append([]string{"testdata/mediator/venture.nt"}, extra...)
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// venturePlan asks which nations use the currency Zipcar was funded
// in: s1 is a composition hop (it feeds s2), held to one hop per subgoal.
var venturePlan = &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
	{ID: "s1", Text: "Find the currency of the money raised by Zipcar.", Op: kgqa.OpFind},
	{ID: "s2", Text: "Find the nations that use #1.", Op: kgqa.OpFind, Needs: []string{"s1"}},
}}

const ventureQ = "Which nations use the currency of the money raised by Zipcar?"

// A composition subgoal whose first hop lands only on a nameless mediator
// (the money_value inside Zipcar's investment) takes a second hop from it
// and reaches the currency; the round records why.
func TestMediatorHopReachesPastANamelessMediator(t *testing.T) {
	h := newHarnessOn(t, ventureGraph(t), kgqatest.NewDemoModel(), config.Default().Engine)
	ans := ask(t, h, Request{Question: ventureQ, Plan: venturePlan, TopicEntities: []string{"m.0zipcar"}})
	s1 := record(t, ans, "s1")
	require.NotNil(t, s1.Retrieval)
	assert.Equal(t, 1, s1.Retrieval.Depth, "one hop per composition subgoal")
	assert.Equal(t, retrieval.ReasonCompositionHop, s1.Retrieval.Reasons["depth"])
	require.Len(t, s1.Rounds, 2, brief(ans))
	for _, f := range s1.Rounds[0].Facts {
		if f.Tail.IsEntity() {
			assert.Equal(t, "m.0money1", f.Tail.ID, "the first hop ends on the nameless money value")
		}
	}
	assert.Equal(t, []string{"m.0money1"}, entityIDs(s1.Rounds[1].Anchors))
	assert.Equal(t, retrieval.ReasonCompositionMediatorHop, s1.Rounds[1].DepthReason)
	assert.Equal(t, []string{"m.09nqf"}, entityIDs(s1.Result.Entities), brief(ans))
	assert.Equal(t, "evidence", s1.Result.Source)
	assert.Equal(t, []string{"m.09c7w0"}, entityIDs(ans.Entities), brief(ans))
}

// The mediator hop is not taken when the first hop also reaches a named
// entity (the investor: the first hop did not land only on mediators), nor
// when the engine's depth is 1: the subgoal stays at one hop and reaches
// no currency.
func TestMediatorHopNotAllowed(t *testing.T) {
	shallow := config.Default().Engine
	shallow.Depth = 1
	for name, c := range map[string]struct {
		g   kg.Graph
		cfg config.Engine
	}{
		"a named tail":   {ventureGraph(t, "testdata/mediator/investor.nt"), config.Default().Engine},
		"engine depth 1": {ventureGraph(t), shallow},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarnessOn(t, c.g, kgqatest.NewDemoModel(), c.cfg)
			ans := ask(t, h, Request{Question: ventureQ, Plan: venturePlan, TopicEntities: []string{"m.0zipcar"}})
			s1 := record(t, ans, "s1")
			require.NotEmpty(t, s1.Rounds)
			for _, rd := range s1.Rounds {
				assert.Empty(t, rd.DepthReason, brief(ans))
				assert.Equal(t, []string{"m.0zipcar"}, entityIDs(rd.Anchors), "every round starts from Zipcar")
			}
			assert.NotContains(t, entityIDs(s1.Result.Entities), "m.09nqf", brief(ans))
		})
	}
}
