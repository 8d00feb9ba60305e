package engine

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wikidataGraph opens the shipped Wikidata demo graph the way
// configs/demo-wikidata.yaml does.
func wikidataGraph(tb testing.TB) kg.Graph {
	tb.Helper()
	cfg := config.Default().KG
	cfg.Dialect, cfg.Files = "wikidata", []string{embedded.BuiltinDemoWikidata}
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// newWikidataHarness is newHarness on the Wikidata demo graph.
func newWikidataHarness(tb testing.TB, m *kgqatest.Model, cfg config.Engine) *harness {
	tb.Helper()
	return newHarnessOn(tb, wikidataGraph(tb), m, cfg)
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
			assert.Equal(t, kgqa.StopPlanComplete, ans.Stop)
			assert.Equal(t, PlanSourcePlanner, ans.PlanInfo.Source)
		})
	}
}

// Wikidata stores a population twice: as a truthy wdt:P1082 value with no
// date (the preferred statement's, here 2019's) and as one statement per
// date with a point-in-time qualifier. A comparison "in 2010" must read
// the 2010 statements only: Liechtenstein had 35,926 inhabitants in 2010
// and 38,019 in 2019, so it is not among the countries with more than
// 36,000 in 2010, whatever its undated value says.
func TestWikidataDatedComparisonIgnoresTheTruthyValue(t *testing.T) {
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the countries that share a border with Switzerland.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Find which of #1 had more than 36,000 inhabitants in 2010.", Needs: []string{"s1"}, Op: kgqa.OpCompare,
			Args: &kgqa.Args{Attribute: "population in 2010", Cmp: ">", Value: "36000"}},
	}}
	h := newWikidataHarness(t, kgqatest.NewWikidataDemoModel(), config.Default().Engine)
	ans, err := h.engine.Ask(context.Background(), Request{Question: "Which country bordering Switzerland had more than 36,000 inhabitants in 2010?",
		TopicEntities: []string{"Q39"}, Plan: plan})
	require.NoError(t, err, "trace:\n%s", briefOrNil(ans))
	assert.ElementsMatch(t, []string{"Q183", "Q142", "Q38", "Q40"}, entityIDs(ans.Entities), "trace:\n%s", brief(ans))
	s2 := record(t, ans, "s2")
	require.NotNil(t, s2.SetOp)
	assert.Equal(t, "exact", s2.SetOp.Method)
	assert.Equal(t, "35926", s2.SetOp.Values["Q347"], "Liechtenstein's 2010 value")
}

// Wikidata writes times with a sign and, below day precision, zero month
// and day ("+2019-00-00T00:00:00Z" for the year 2019), and quantities with
// a sign ("+38019"); a graph converted from the JSON dump keeps those
// forms. They are values all the same, at the start of the period they
// name.
func TestWikidataLiteralForms(t *testing.T) {
	lit := func(v, dt string) kgqa.Term { return kgqa.Term{Name: v, Datatype: xsd + dt} }
	cases := []struct {
		name string
		t    kgqa.Term
		want string
	}{
		{"truthy dateTime", lit("2014-10-29T00:00:00Z", "dateTime"), "2014-10-29"},
		{"signed dateTime", lit("+2014-10-29T00:00:00Z", "dateTime"), "2014-10-29"},
		{"year precision", lit("+2019-00-00T00:00:00Z", "dateTime"), "2019-01-01"},
		{"month precision", lit("2019-06-00T00:00:00Z", "dateTime"), "2019-06-01"},
		{"signed quantity", lit("+38019", "decimal"), "38019"},
		{"negative quantity", lit("-12.5", "decimal"), "-12.5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := parseValue(c.t)
			require.True(t, ok)
			assert.Equal(t, c.want, v.String())
		})
	}
	a, ok := parseValue(lit("+2019-00-00T00:00:00Z", "dateTime"))
	require.True(t, ok)
	b, ok := parseValue(lit("2018-12-31T00:00:00Z", "dateTime"))
	require.True(t, ok)
	c, ok := a.cmp(b)
	require.True(t, ok)
	assert.Equal(t, 1, c)
	d, p, ok := dateQualifier(lit("+2019-00-00T00:00:00Z", "dateTime"))
	require.True(t, ok, "a year-precision point in time is a date qualifier")
	assert.Equal(t, byYear, p)
	stated := statedTimes(kgqa.Args{Attribute: "population on 2019-06-30"}, "")
	require.Len(t, stated, 1)
	assert.True(t, stated[0].matches(d, p), "the year 2019 holds 2019-06-30")
}
