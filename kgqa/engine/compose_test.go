package engine

import (
	"encoding/json"
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

// tentRecs builds subgoal records: a nil names slice means the subgoal has
// no tentative answer (skipped), anything else is its tentative names.
func tentRecs(plan *kgqa.Plan, names map[string][]string) []*kgqa.SubgoalRecord {
	var out []*kgqa.SubgoalRecord
	for _, s := range plan.Subgoals {
		rec := &kgqa.SubgoalRecord{ID: s.ID, Op: s.Op, Needs: s.Needs, Status: statusDone}
		if ns, ok := names[s.ID]; ok && ns != nil {
			rec.Tentative = &kgqa.Tentative{Answer: "whatever the text says", Names: ns}
		} else if s.Op == kgqa.OpFind {
			rec.Status = statusSkipped
		}
		out = append(out, rec)
	}
	return out
}

func TestTentativeAnswerComposition(t *testing.T) {
	find := func(id string, needs ...string) kgqa.Subgoal {
		return kgqa.Subgoal{ID: id, Op: kgqa.OpFind, Text: "t", Needs: needs}
	}
	op := func(id string, o kgqa.Op, needs ...string) kgqa.Subgoal {
		return kgqa.Subgoal{ID: id, Op: o, Text: "t", Needs: needs}
	}
	cases := []struct {
		name   string
		plan   kgqa.Plan
		names  map[string][]string
		want   []string
		reason string // "" means derivable
	}{
		{
			name:  "find: the tentative names, blanks and repeats dropped",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1")}},
			names: map[string][]string{"s1": {"Berlin", " ", "berlin", "Bonn"}},
			want:  []string{"Berlin", "Bonn"},
		},
		{
			// {Germany, Belgium, Spain} ∩ {the netherlands, GERMANY}: only
			// Germany is in both, spelled as in the first set.
			name: "intersect by normalised name",
			plan: kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), find("s2"), find("s3", "s2"), op("s4", kgqa.OpIntersect, "s1", "s3")}},
			names: map[string][]string{"s1": {"Germany", "Belgium", "Spain"}, "s2": {"Weeze Airport"},
				"s3": {"the Netherlands", "GERMANY"}},
			want: []string{"Germany"},
		},
		{
			name:  "intersect of disjoint answers is empty but derivable",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), find("s2"), op("s3", kgqa.OpIntersect, "s1", "s2")}},
			names: map[string][]string{"s1": {"Spain"}, "s2": {"Italy"}},
			want:  []string{},
		},
		{
			name:  "union keeps first spellings",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), find("s2"), op("s3", kgqa.OpUnion, "s1", "s2")}},
			names: map[string][]string{"s1": {"Spain", "Italy"}, "s2": {"italy", "Malta"}},
			want:  []string{"Spain", "Italy", "Malta"},
		},
		{
			// Belgium, Germany, Luxembourg: "germany" repeats Germany.
			name:  "count is the number of distinct names",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpCount, "s1")}},
			names: map[string][]string{"s1": {"Belgium", "Germany", "Luxembourg", "germany"}},
			want:  []string{"3"},
		},
		{
			name:   "count of a tentative answer that names nothing",
			plan:   kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpCount, "s1")}},
			names:  map[string][]string{"s1": {}},
			reason: "subgoal s2 (count) rests on subgoal s1, whose tentative answer names no entity",
		},
		{
			name:  "find that names nothing is an empty answer",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), find("s2", "s1")}},
			names: map[string][]string{"s1": {"Lyon"}, "s2": {}},
			want:  []string{},
		},
		{
			name:  "compare: its own tentative answer",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpCompare, "s1")}},
			names: map[string][]string{"s1": {"Amélie", "Micmacs"}, "s2": {"Amélie"}},
			want:  []string{"Amélie"},
		},
		{
			name:  "count over a filter",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpFilter, "s1"), op("s3", kgqa.OpCount, "s2")}},
			names: map[string][]string{"s1": {"Amélie", "Micmacs"}, "s2": {"Amélie", "Micmacs"}},
			want:  []string{"2"},
		},
		{
			name:   "superlative without a tentative answer",
			plan:   kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpSuperlative, "s1")}},
			names:  map[string][]string{"s1": {"x"}},
			reason: "subgoal s2 (superlative) has no tentative answer (done)",
		},
		{
			name:   "a skipped find leaves the intersection not derivable",
			plan:   kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), find("s2"), op("s3", kgqa.OpIntersect, "s1", "s2")}},
			names:  map[string][]string{"s1": {"Spain"}},
			reason: "subgoal s2 (find) has no tentative answer (skipped)",
		},
		{
			name:  "the plan's answer subgoal, not the last one",
			plan:  kgqa.Plan{Subgoals: []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpCount, "s1")}, Answer: "s1"},
			names: map[string][]string{"s1": {"Spain", "Italy"}},
			want:  []string{"Spain", "Italy"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tentativeAnswer(&c.plan, tentRecs(&c.plan, c.names))
			require.NotNil(t, got)
			if c.reason != "" {
				assert.Equal(t, kgqa.TentativeAnswer{Names: []string{}, Reason: c.reason}, *got)
				return
			}
			assert.Equal(t, kgqa.TentativeAnswer{Derivable: true, Names: c.want}, *got)
		})
	}
	assert.Nil(t, tentativeAnswer(nil, nil), "no plan, no tentative answer")
}

// The engine records the composed tentative answer of a real run: the
// model's beliefs for the three finds of the conjunction intersect to the
// one country both hold.
func TestAskRecordsTentativeAnswer(t *testing.T) {
	cases := []struct {
		id        string
		opts      []kgqatest.Option
		derivable bool
		names     []string
	}{
		{"demo-01", []kgqatest.Option{
			kgqatest.Believe("border France", "Belgium", "Germany"),
			kgqatest.Believe("airports that serve Nijmegen", "Weeze Airport"),
			kgqatest.Believe("countries that contain", "Germany", "Netherlands"),
		}, true, []string{"Germany"}},
		{"demo-17", []kgqatest.Option{kgqatest.BelieveAlways("Belgium", "Spain")}, true, []string{"2"}},
		// The superlative has a tentative answer of its own.
		{"demo-14", []kgqatest.Option{kgqatest.BelieveAlways("Belgium")}, true, []string{"Belgium"}},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			q := demoQuestion(t, c.id)
			// Plan ordering: every branch of demo-01 is explored with
			// its tentative answer (cost ordering checks s1 against s3's
			// candidates and asks it for none).
			cfg := config.Default().Engine
			cfg.Ordering = OrderingPlan
			h := newHarness(t, kgqatest.NewDemoModel(c.opts...), cfg)
			ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
			require.NotNil(t, ans.TentativeAnswer)
			assert.Equal(t, c.derivable, ans.TentativeAnswer.Derivable, ans.TentativeAnswer.Reason)
			assert.Equal(t, c.names, ans.TentativeAnswer.Names)
			assert.Equal(t, !c.derivable, ans.TentativeAnswer.Reason != "")
			data, err := json.Marshal(ans)
			require.NoError(t, err)
			assert.Contains(t, string(data), `"tentative_answer":{"derivable":`)
		})
	}
}

// Compare, superlative and filter subgoals get a tentative answer before
// retrieval like finds. Where the KG holds the values, exact logic refines
// it; where it holds none, the tentative answer stands instead of an
// empty set, and the trace says so.
func TestConstraintTentativeAnswer(t *testing.T) {
	q := demoQuestion(t, "demo-13") // mountains in Switzerland above 4,600 m
	believe := kgqatest.Believe("elevation above", "Dufourspitze")
	t.Run("values in the KG refine it", func(t *testing.T) {
		h := newHarness(t, kgqatest.NewDemoModel(believe), config.Default().Engine)
		ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
		s2 := record(t, ans, "s2")
		require.NotNil(t, s2.Tentative)
		assert.Equal(t, []string{"Dufourspitze"}, s2.Tentative.Names)
		assert.Equal(t, "exact", s2.SetOp.Method)
		assert.Equal(t, "exact", s2.Result.Source)
		assert.Equal(t, []string{"m.06db_x"}, entityIDs(ans.Entities))
	})
	t.Run("no value in the KG: the tentative answer stands", func(t *testing.T) {
		m := kgqatest.NewDemoModel(believe)
		h := newHarness(t, m, config.Default().Engine)
		h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
			if llmtest.StageOf(req) == "relations" && strings.Contains(llmtest.LastUser(req), "Current subgoal: Find which of") {
				return llmtest.JSON(map[string]any{"relations": []any{}, "reason": "none gives the attribute"})
			}
			return m.Handle(req)
		})
		var plan kgqa.Plan
		require.NoError(t, json.Unmarshal(q.Plan, &plan))
		require.NotNil(t, plan.Subgoals[1].Args)
		plan.Subgoals[1].Args.Attribute = "prominence" // no relation of the demo graph has the word
		ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q), Plan: &plan})
		s2 := record(t, ans, "s2")
		require.NotNil(t, s2.Tentative)
		assert.Equal(t, "tentative", s2.SetOp.Method)
		assert.Contains(t, s2.SetOp.Note, "no value of the attribute")
		assert.Equal(t, "property_not_in_kg", s2.Boundary, "the model kept none of an uncut offer")
		assert.Equal(t, "tentative", s2.Result.Source)
		assert.Equal(t, []string{"m.06db_x"}, entityIDs(s2.Result.Entities), "the name is resolved to the member")
		assert.Equal(t, []string{"m.06db_x"}, entityIDs(ans.Entities))
		assert.Zero(t, m.Calls("select"), "no selection from no facts")
	})
}
