package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// conditionsGraph opens testdata/conditions: the facts of three WebQSP
// train questions (WebQTrn-6, -3, -1466) with the real MIDs, each with a
// distractor only its condition rules out: Joakim Noah's college roster
// spot ended in 2007, the Caribbean is a region, Canada's alias is CA.
func conditionsGraph(tb testing.TB) kg.Graph {
	tb.Helper()
	cfg := config.Default().KG
	cfg.Files = []string{"testdata/conditions/conditions.nt"}
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// The time condition of WebQTrn-6 ("who does joakim noah play for", valid
// on WebQSP's 2015-08-10) keeps the roster spot still open and drops the
// one that ended in 2007: without it both teams are the answer. The
// certificate states the condition and gives the same answer.
func TestTimeConditionOnAMediator(t *testing.T) {
	valid := []kgqa.TimeCond{{Attribute: "from", Cmp: "<=", Value: "2015-08-10", Open: true}, {Attribute: "to", Cmp: ">=", Value: "2015-08-10", Open: true}}
	for name, tc := range map[string]struct {
		args *kgqa.Args
		want []string
	}{
		"with the condition":    {&kgqa.Args{Valid: valid}, []string{"m.0jm74"}},
		"without the condition": {nil, []string{"m.0jm74", "m.0ftf1"}},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarnessOn(t, conditionsGraph(t), kgqatest.NewDemoModel(), config.Default().Engine)
			plan := &kgqa.Plan{Version: 2, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the teams Joakim Noah plays for, currently.", Op: kgqa.OpFind, Args: tc.args}}}
			ans := ask(t, h, Request{Question: "who does joakim noah play for", Plan: plan, TopicEntities: []string{"m.0c2yrf"}})
			// The demo model keeps every tail of the facts it is shown,
			// the mediator's dates too: the teams are the entities.
			assert.ElementsMatch(t, tc.want, entitiesOnly(ans.Entities), brief(ans))
			s1 := record(t, ans, "s1")
			if tc.args == nil {
				assert.Empty(t, s1.Valid)
				return
			}
			require.Len(t, s1.Valid, 2, brief(ans))
			assert.Equal(t, "sports.sports_team_roster.from", s1.Valid[0].Relation)
			assert.Equal(t, "sports.sports_team_roster.to", s1.Valid[1].Relation)
			assert.Equal(t, 2, s1.Valid[1].Checked)
			assert.Equal(t, 1, s1.Valid[1].Kept, "the roster spot that ended in 2007 is dropped")
			q, _, err := compile.FromAnswer(ans)
			require.NoError(t, err)
			text, err := compile.Compile(q, h.g.Dialect())
			require.NoError(t, err)
			assert.Contains(t, text, "NOT EXISTS")
			res, err := h.g.Select(context.Background(), text)
			require.NoError(t, err, text)
			var got []string
			for _, row := range res.Rows {
				if a := row[compile.AnswerVar]; a.IsEntity() {
					got = append(got, a.ID)
				}
			}
			assert.ElementsMatch(t, tc.want, got, text)
		})
	}
}

// entitiesOnly lists the ids of the entities among ts.
func entitiesOnly(ts []kgqa.Term) []string {
	var out []string
	for _, t := range ts {
		if t.IsEntity() {
			out = append(out, t.ID)
		}
	}
	return out
}

// The text value of WebQTrn-3 ("what country is the grand bahama island
// in": loc type "Country", compared as str() compares) keeps the Bahamas
// and drops the Caribbean, exactly, with no model choice; the certificate
// compares the text.
func TestTextValueFilter(t *testing.T) {
	h := newHarnessOn(t, conditionsGraph(t), kgqatest.NewDemoModel(), config.Default().Engine)
	plan := &kgqa.Plan{Version: 2, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the locations Grand Bahama is contained by.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Keep those of #1 whose loc type is Country.", Op: kgqa.OpFilter, Needs: []string{"s1"},
			Args: &kgqa.Args{Attribute: "loc type", Cmp: "=", Value: "Country", Type: kgqa.TypeText}},
	}}
	ans := ask(t, h, Request{Question: "what country is the grand bahama island in", Plan: plan, TopicEntities: []string{"m.03st9j"}})
	s1, s2 := record(t, ans, "s1"), record(t, ans, "s2")
	require.ElementsMatch(t, []string{"m.0160w", "m.0261m"}, entitiesOnly(s1.Result.Entities), "the filter has two to choose from: %s", brief(ans))
	assert.Equal(t, []string{"m.0160w"}, entitiesOnly(ans.Entities), brief(ans))
	require.NotNil(t, s2.SetOp)
	assert.Equal(t, "exact", s2.SetOp.Method, brief(ans))
	q, _, err := compile.FromAnswer(ans)
	require.NoError(t, err)
	text, err := compile.Compile(q, h.g.Dialect())
	require.NoError(t, err)
	assert.Contains(t, text, `STR(`)
	res, err := h.g.Select(context.Background(), text)
	require.NoError(t, err, text)
	require.Len(t, res.Rows, 1, text)
	assert.Equal(t, "m.0160w", res.Rows[0][compile.AnswerVar].ID)
}

// A find from the literal of WebQTrn-1466 ("what does the letters eu
// stand for": whatever has the alias "EU") starts from the members that
// hold it, not from an entity; the certificate starts there too.
func TestFindFromALiteral(t *testing.T) {
	h := newHarnessOn(t, conditionsGraph(t), kgqatest.NewDemoModel(), config.Default().Engine)
	plan := &kgqa.Plan{Version: 2, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find what has the alias EU.", Op: kgqa.OpFind,
		Args: &kgqa.Args{Attribute: "common.topic.alias", Literal: "EU", Type: kgqa.TypeText}}}}
	ans := ask(t, h, Request{Question: "what does the letters eu stand for", Plan: plan})
	assert.Equal(t, []string{"m.02jxk"}, entitiesOnly(ans.Entities), brief(ans))
	q, _, err := compile.FromAnswer(ans)
	require.NoError(t, err)
	text, err := compile.Compile(q, h.g.Dialect())
	require.NoError(t, err)
	res, err := h.g.Select(context.Background(), text)
	require.NoError(t, err, text)
	require.Len(t, res.Rows, 1, text)
	assert.Equal(t, "m.02jxk", res.Rows[0][compile.AnswerVar].ID)
}
