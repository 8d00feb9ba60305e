package engine

import (
	"strings"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "Which World Series won by the Boston Red Sox started after 2015?": the
// plan compares by "start date", the model chooses the end date among the
// series' dated relations. The plan's words name time.event.start_date
// better than the model's choice and than any other offered relation, so
// the start dates are compared, with no call more, and the trace says why.
// The model is asked only with engine.clear_top_facts off: on, the plan's
// "start date" is the name of one offered relation, taken without a
// choice (TestAttributeNamedExactlyNeedsNoChoice).
func TestAttributeContradictingThePlanIsReplaced(t *testing.T) {
	m, s2, rd := askStartDate(t, noClearTop(), func() {})
	assert.Equal(t, chosenByPlan, rd.ChosenBy)
	assert.Equal(t, []kgqa.Relation{{ID: "time.event.start_date", Dir: kgqa.Out}}, rd.Chosen)
	assert.Contains(t, rd.Fallback, "time.event.end_date (1)")
	require.NotNil(t, s2.SetOp)
	require.NotNil(t, s2.SetOp.Attribute)
	assert.Equal(t, "time.event.start_date", s2.SetOp.Attribute.ID)
	assert.Equal(t, "exact", s2.SetOp.Method)
	assert.Equal(t, 1, m.Calls("relations"), "s1's choice; s2's was the scripted one, and the check asks nothing")
}

// The override needs the plan to name one offered relation clearly:
// otherwise the model's choice stands.
func TestNamedAttributeOverridesOnlyAClearMatch(t *testing.T) {
	readable := func(id string) string { return strings.NewReplacer("_", " ", ".", " ", ":", " ").Replace(id) }
	rel := func(id string) kgqa.Relation { return kgqa.Relation{ID: id, Dir: kgqa.Out} }
	total, cooking, prep := rel("food.recipe.total_time"), rel("food.recipe.cooking_time"), rel("food.recipe.preparation_time")
	death, burial := rel("people.deceased_person.date_of_death"), rel("people.deceased_person.date_of_burial")
	offered := []kgqa.Relation{prep, cooking, total}
	cases := []struct {
		name    string
		named   string
		offered []kgqa.Relation
		chosen  []kgqa.Relation
		want    *kgqa.Relation
	}{
		{"the plan names the total time, the model chose the cooking time", "total time", offered, []kgqa.Relation{cooking}, &total},
		{"date of death over date of burial", "date of death", []kgqa.Relation{burial, death}, []kgqa.Relation{burial}, &death},
		{"the model chose the match among others", "total time", offered, []kgqa.Relation{cooking, total}, nil},
		{"the model chose the match", "total time", offered, []kgqa.Relation{total}, nil},
		{"the plan names no attribute", "", offered, []kgqa.Relation{cooking}, nil},
		{"the plan's words match no offered relation", "calories", offered, []kgqa.Relation{cooking}, nil},
		{"ambiguous: two relations match equally", "time", offered, []kgqa.Relation{prep}, nil},
		{"ambiguous: both dates match 'date'", "date", []kgqa.Relation{burial, death}, []kgqa.Relation{burial}, nil},
		{"nothing chosen", "total time", offered, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why, ok := namedAttribute(c.named, readable, c.offered, c.chosen)
			if c.want == nil {
				assert.False(t, ok, "overrode with %v", got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, *c.want, got)
			assert.Contains(t, why, c.named)
		})
	}
}

// With engine.clear_top_facts on, "start date", the attribute demo-11's
// plan compares by, is the name of one offered relation of the World
// Series (time.event.start_date, "event: start date"): its values are
// compared without a relations call, and the answer is the same.
func TestAttributeNamedExactlyNeedsNoChoice(t *testing.T) {
	_, s2, rd := askStartDate(t, config.Default().Engine, func() { t.Error("the comparison asked for a relation choice") })
	assert.Equal(t, chosenByName, rd.ChosenBy)
	assert.Equal(t, []kgqa.Relation{{ID: "time.event.start_date", Dir: kgqa.Out}}, rd.Chosen)
	require.NotNil(t, s2.SetOp)
	assert.Equal(t, "exact", s2.SetOp.Method)
}

// The name must match one offered relation whole: a word of it, or two
// relations of the same name, leave the choice to the model.
func TestAttributeNamedMatchesOneWholeName(t *testing.T) {
	readable := func(id string) string {
		i := strings.Index(id, ".")
		return strings.ReplaceAll(strings.Replace(id[i+1:], ".", ": ", 1), "_", " ")
	}
	rel := func(id string) kgqa.Relation { return kgqa.Relation{ID: id, Dir: kgqa.Out} }
	par, length := rel("sports.golf_course.par"), rel("sports.golf_course.length")
	angle, capa := rel("measurement_unit.angle_unit.measurement_system"), rel("measurement_unit.capacitance_unit.measurement_system")
	cases := []struct {
		named   string
		offered []kgqa.Relation
		want    *kgqa.Relation
	}{
		{"par", []kgqa.Relation{length, par}, &par},
		{"Measurement_System", []kgqa.Relation{angle, par}, &angle},
		{"pa", []kgqa.Relation{length, par}, nil},
		{"course par", []kgqa.Relation{length, par}, nil},
		{"measurement system", []kgqa.Relation{angle, capa}, nil},
		{"", []kgqa.Relation{length, par}, nil},
	}
	for _, c := range cases {
		got, ok := attributeNamed(c.named, readable, c.offered)
		if c.want == nil {
			assert.False(t, ok, "%q took %v", c.named, got)
			continue
		}
		require.True(t, ok, c.named)
		assert.Equal(t, *c.want, got)
	}
}

// askStartDate asks demo-11 with cfg, the model's relation choice for the
// attribute "start date" scripted to the end date (asked calls it first),
// checks the answer and returns the model, s2's record and its first
// round.
func askStartDate(t *testing.T, cfg config.Engine, asked func()) (*kgqatest.Model, *kgqa.SubgoalRecord, *kgqa.Round) {
	t.Helper()
	q := demoQuestion(t, "demo-11")
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, cfg)
	h.server.SetHandler(once(m, "relations", `by the attribute "start date"`, func(openai.ChatCompletionRequest) llmtest.Reply {
		asked()
		return llmtest.JSON(map[string]any{"reason": "when it ended", "relations": []map[string]string{{"id": "time.event.end_date", "dir": "out"}}})
	}))
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, answerIDs(q), entityIDs(ans.Entities))
	s2 := record(t, ans, "s2")
	require.NotEmpty(t, s2.Rounds)
	return m, s2, s2.Rounds[0]
}
