package engine

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldMatch reports whether a predicted term names a gold answer, by the
// rules of the dataset scorer (which this package's tests cannot import:
// dataset imports kgqa): the same id; else the same normalised name; else,
// for literals, the same number.
func goldMatch(p kgqa.Term, a dataset.DemoAnswer) bool {
	if p.ID != "" && a.ID != "" {
		return p.ID == a.ID
	}
	if naming.Fold(p.Name) != "" && naming.Fold(p.Name) == naming.Fold(a.Name) {
		return true
	}
	x, err1 := strconv.ParseFloat(strings.ReplaceAll(p.Name, ",", ""), 64)
	y, err2 := strconv.ParseFloat(strings.ReplaceAll(a.Name, ",", ""), 64)
	return err1 == nil && err2 == nil && x == y
}

// Every demo question, asked with its topic entities, is answered with
// exactly its gold answer set: each gold answer is predicted and each
// prediction is a gold answer.
func TestEveryDemoQuestionGetsItsGoldAnswer(t *testing.T) {
	qs := demokg.FreebaseQuestions()
	require.Len(t, qs, 22)
	for _, q := range qs {
		t.Run(q.ID, func(t *testing.T) {
			h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
			ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
			require.NoError(t, err, "trace:\n%s", briefOrNil(ans))
			assertGold(t, q, ans)
			assert.Equal(t, kgqa.StopPlanComplete, ans.Stop)
			assert.Equal(t, retrieval.RouteKG, ans.RetrievalPlan.Route, "the KG answers it")
			for _, rec := range ans.Subgoals {
				assert.Empty(t, rec.Boundary, "%s", rec.ID)
			}
		})
	}
}

// assertGold checks that ans holds exactly the gold answers of q.
func assertGold(t *testing.T, q dataset.DemoRecord, ans *kgqa.Answer) {
	t.Helper()
	require.NotEmpty(t, ans.Entities, "trace:\n%s", brief(ans))
	for _, a := range q.Answers {
		found := false
		for _, p := range ans.Entities {
			found = found || goldMatch(p, a)
		}
		assert.True(t, found, "gold %s %q missing; trace:\n%s", a.ID, a.Name, brief(ans))
	}
	for _, p := range ans.Entities {
		found := false
		for _, a := range q.Answers {
			found = found || goldMatch(p, a)
		}
		assert.True(t, found, "%s %q is not a gold answer; trace:\n%s", p.ID, p.Name, brief(ans))
	}
}

func TestGoldMatch(t *testing.T) {
	cases := []struct {
		name string
		p    kgqa.Term
		a    dataset.DemoAnswer
		want bool
	}{
		{"same id", kgqa.Term{ID: "m.0345h", Name: "Deutschland"}, dataset.DemoAnswer{ID: "m.0345h", Name: "Germany"}, true},
		{"other id, same name", kgqa.Term{ID: "m.1", Name: "Germany"}, dataset.DemoAnswer{ID: "m.0345h", Name: "Germany"}, false},
		{"name of a literal", kgqa.Term{Name: "Swiss franc"}, dataset.DemoAnswer{ID: "m.0rzsqt", Name: "Swiss Franc"}, true},
		{"same number", kgqa.Term{Name: "27", Datatype: xsd + "integer"}, dataset.DemoAnswer{Name: "27.0"}, true},
		{"other number", kgqa.Term{Name: "20", Datatype: xsd + "integer"}, dataset.DemoAnswer{Name: "27"}, false},
		{"empty", kgqa.Term{}, dataset.DemoAnswer{Name: ""}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, goldMatch(c.p, c.a))
		})
	}
}
