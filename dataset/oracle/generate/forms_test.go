package generate

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/sparql2plan"
)

// formsPerForm is the number of questions the tests ask of each form.
const formsPerForm = 5

var formRun struct {
	qs  []Question
	rep *Report
}

// generateForms makes the forms' questions on the test world, once,
// with twice the default attempts: on the small world two middles that
// share a relation and a condition only some of them meet are rare, and
// middle-filter needs the tries.
func generateForms(t *testing.T) ([]Question, *Report) {
	t.Helper()
	if formRun.rep == nil {
		g, ranges := openWorld(t)
		qs, rep, err := Generate(context.Background(), g, Options{Shapes: Forms, PerShape: formsPerForm, Seed: 1, Attempts: 120, Ranges: ranges})
		require.NoError(t, err)
		formRun.qs, formRun.rep = qs, rep
	}
	return formRun.qs, formRun.rep
}

// TestEveryFormIsMade: the small world yields questions of every form,
// each labelled with its form.
func TestEveryFormIsMade(t *testing.T) {
	qs, rep := generateForms(t)
	n := map[Shape]int{}
	for _, q := range qs {
		n[q.Shape]++
		assert.True(t, strings.HasPrefix(q.ID, "gen-"+string(q.Shape)+"-"), q.ID)
		t.Logf("%-15s %s -> %v", q.Shape, q.Text, q.Answers)
	}
	for _, sh := range Forms {
		assert.Equal(t, formsPerForm, n[sh], "form %s (%d tries)", sh, rep.Tried[sh])
	}
}

// TestFormGoldQueriesReturnTheirAnswers runs each form's gold query as
// the loaders read it back from the written file, on the embedded store,
// and compares the result with the recorded answers.
func TestFormGoldQueriesReturnTheirAnswers(t *testing.T) {
	qs, _ := generateForms(t)
	g, _ := openWorld(t)
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, dataset.CWQ, qs))
	loaded := loadAll(t, buf.Bytes(), dataset.CWQ)
	require.Len(t, loaded, len(qs))
	for i, lq := range loaded {
		assert.Equal(t, string(qs[i].Shape), lq.Label, qs[i].ID)
		norm, _ := sparql2plan.Normalize(lq.SPARQL)
		res, err := g.Select(context.Background(), norm)
		require.NoError(t, err, lq.SPARQL)
		var got, want []string
		for _, row := range res.Rows {
			got = append(got, termKey(row[res.Vars[0]]))
		}
		for _, a := range lq.Answers {
			want = append(want, answerKey(a))
		}
		slices.Sort(got)
		slices.Sort(want)
		assert.NotEmpty(t, want, qs[i].ID)
		assert.Equal(t, want, slices.Compact(got), "%s: %s\n%s", qs[i].ID, lq.Text, lq.SPARQL)
	}
}

// TestFormsConvertToTheirPlans converts each form's gold query with
// sparql2plan and checks that the plan has the form's structure: plain
// hops where the chain has named middles, a hop through a mediator where
// it has one, the condition as an intersection or a compare, and three
// branches for the conjunction.
func TestFormsConvertToTheirPlans(t *testing.T) {
	qs, _ := generateForms(t)
	for _, q := range qs {
		c, err := sparql2plan.ConvertQuery(q.SPARQL, nil)
		require.NoError(t, err, q.SPARQL)
		require.NoError(t, c.Plan.Validate(), q.SPARQL)
		ops := map[kgqa.Op]int{}
		chained, mediated := 0, 0
		for _, s := range c.Steps {
			ops[s.Op]++
			if s.Op == kgqa.OpFind && len(s.Needs) > 0 {
				chained++
				if len(s.Path) == 2 {
					mediated++
				}
			}
		}
		cond := ops[kgqa.OpIntersect] + ops[kgqa.OpCompare]
		switch q.Shape {
		case Chain2, SetChain:
			assert.Equal(t, [3]int{1, 0, 0}, [3]int{chained, mediated, cond}, q.SPARQL)
		case Chain3:
			assert.Equal(t, [3]int{2, 0, 0}, [3]int{chained, mediated, cond}, q.SPARQL)
		case MediatorChain2:
			assert.Equal(t, [3]int{1, 0, 0}, [3]int{chained, mediated, cond}, q.SPARQL)
			assert.True(t, startsThroughMediator(c.Steps), q.SPARQL)
		case MediatorChain3:
			assert.Equal(t, [3]int{2, 1, 0}, [3]int{chained, mediated, cond}, q.SPARQL)
		case MiddleFilter:
			assert.Equal(t, [2]int{1, 1}, [2]int{chained, cond}, q.SPARQL)
			assert.Equal(t, c.Steps[len(c.Steps)-1].Op, kgqa.OpFind, "the condition comes before the last hop: %s", q.SPARQL)
		case EndFilter:
			assert.Equal(t, [2]int{1, 1}, [2]int{chained, cond}, q.SPARQL)
			assert.NotEqual(t, c.Steps[len(c.Steps)-1].Op, kgqa.OpFind, "the condition comes after the last hop: %s", q.SPARQL)
		case Conjunction3:
			assert.Equal(t, kgqa.KindConjunction, sparql2plan.PrimaryKind(c.Plan), q.SPARQL)
			last := c.Steps[len(c.Steps)-1]
			assert.Equal(t, kgqa.OpIntersect, last.Op, q.SPARQL)
			assert.Len(t, last.Needs, 3, q.SPARQL)
		default:
			t.Errorf("%s is no form", q.Shape)
		}
	}
}

// startsThroughMediator reports whether the first step is a find from the
// topic through a mediator.
func startsThroughMediator(steps []sparql2plan.Step) bool {
	return len(steps) > 0 && steps[0].Op == kgqa.OpFind && len(steps[0].Anchors) == 1 && len(steps[0].Path) == 2
}

// TestFormTextHasNoRelationIDs: no form's question names a relation by
// its id or writes an id's underscores, and each form is worded more than
// one way.
func TestFormTextHasNoRelationIDs(t *testing.T) {
	starts := map[Shape]map[string]bool{}
	qs, _ := generateForms(t)
	for _, q := range qs {
		assert.False(t, dottedID.MatchString(q.Text), q.Text)
		for _, r := range q.Relations {
			assert.NotContains(t, q.Text, r)
		}
		assert.NotContains(t, q.Text, "_", q.Text)
		assert.True(t, strings.HasSuffix(q.Text, "?"), q.Text)
		if starts[q.Shape] == nil {
			starts[q.Shape] = map[string]bool{}
		}
		starts[q.Shape][strings.Fields(q.Text)[0]] = true
	}
	for _, sh := range []Shape{Chain2, Chain3, SetChain, MiddleFilter} {
		assert.Greater(t, len(starts[sh]), 1, "form %s is worded one way", sh)
	}
}

// TestFormsLeaveTheShapes: the forms draw apart, so a seed makes the same
// questions of the shapes with forms among them as without, and the same
// questions of a form whatever is made with it.
func TestFormsLeaveTheShapes(t *testing.T) {
	g, ranges := openWorld(t)
	run := func(shapes ...Shape) map[Shape][]Question {
		qs, _, err := Generate(context.Background(), g, Options{Shapes: shapes, PerShape: 3, Seed: 4, Ranges: ranges})
		require.NoError(t, err)
		out := map[Shape][]Question{}
		for _, q := range qs {
			out[q.Shape] = append(out[q.Shape], q)
		}
		return out
	}
	mixed := run(Chain2, Conjunction, SetChain, Count)
	plain := run(Conjunction, Count)
	alone := run(SetChain)
	require.Len(t, mixed[Conjunction], 3)
	assert.Equal(t, plain[Conjunction], mixed[Conjunction])
	assert.Equal(t, plain[Count], mixed[Count])
	assert.Equal(t, alone[SetChain], mixed[SetChain])
}

func TestParseForms(t *testing.T) {
	s, err := ParseShapes("conjunction, forms, chain2")
	require.NoError(t, err)
	assert.Equal(t, append([]Shape{Conjunction}, Forms...), s)
	s, err = ParseShapes("set-chain,conjunction3")
	require.NoError(t, err)
	assert.Equal(t, []Shape{SetChain, Conjunction3}, s)
	_, err = ParseShapes("chain4")
	assert.ErrorContains(t, err, `unknown shape "chain4"`)
	assert.ErrorContains(t, err, "forms for all of chain2, chain3")
}
