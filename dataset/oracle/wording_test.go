package oracle

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/sparql2plan"
)

// The question files the wording is checked on: the demo graph's
// questions and the WebQSP train excerpts in testdata.
var wordingFiles = []struct {
	path   string
	format dataset.Format
}{
	{demoQuestions, dataset.Demo},
	{"../../testdata/webqsp/WebQSP.train.json", dataset.WebQSP},
	{"../../testdata/slice/webqsp/WebQSP.train.json", dataset.WebQSP},
}

// relationID is a Freebase relation id: domain.type.property.
var relationID = regexp.MustCompile(`\b[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\b`)

// leaks lists what a planner reply says of the gold relations beyond the
// question: relation ids, and the words of the names of the relations on
// the gold plan's paths (their type and property, function words
// excepted) that the question does not use. Topic entity names are not
// the planner's wording and are left out.
func leaks(t *testing.T, q dataset.Question, steps []sparql2plan.Step, reply string) []string {
	t.Helper()
	if id := relationID.FindString(reply); id != "" {
		return []string{"relation id " + id}
	}
	for _, e := range q.TopicEntities {
		reply = replaceFold(reply, e.Name, " ")
	}
	said := map[string]bool{}
	for _, w := range strings.Fields(naming.Fold(reply)) {
		for _, k := range wordKeys(w) {
			said[k] = true
		}
	}
	asked := newQuestionWords(q.Text)
	var out []string
	for _, s := range steps {
		var rels []string
		for _, h := range s.Path {
			rels = append(rels, h.Relation)
		}
		for _, x := range s.Qualifiers {
			rels = append(rels, x.Relation)
		}
		for _, r := range rels {
			for _, w := range strings.Fields(naming.Fold(strings.NewReplacer(".", " ", "_", " ").Replace(r))) {
				if naming.Stopword(w) {
					continue
				}
				if _, ok := asked.word(w); ok {
					continue
				}
				for _, k := range wordKeys(w) {
					if said[k] {
						out = append(out, w+" (of "+r+")")
					}
				}
			}
		}
	}
	return out
}

// plannerReplies are the oracle's replies to the planner prompts about
// q: the plan, the few-shot plan, and the LQT planner's atomic queries.
func plannerReplies(t *testing.T, m *Model, q dataset.Question) map[string]string {
	t.Helper()
	out := map[string]string{}
	for stage, data := range map[string]any{
		prompts.Plan:        prompts.PlanData{Question: q.Text, Ops: []string{"find", "intersect", "superlative", "count"}},
		prompts.PlanFewShot: prompts.PlanData{Question: q.Text, Ops: []string{"find", "intersect", "superlative", "count"}},
		prompts.LQTAtoms:    prompts.LQTAtomsData{Question: q.Text, Ops: []string{"find", "intersect"}},
	} {
		rep := m.Answer(chatRequest(t, stage, data, true), "")
		require.Equal(t, 200, rep.Status, "%s: %s", stage, rep.Error)
		out[stage] = rep.Content
	}
	return out
}

// TestQuestionWordingNamesNoRelation: with --wording question, no
// planner reply of the oracle names a relation id or a word of a gold
// relation's name that the question does not use, on the demo questions
// and the WebQSP train excerpts. The gold wording does (what the test
// guards against), and both wordings plan the same steps.
func TestQuestionWordingNamesNoRelation(t *testing.T) {
	for _, f := range wordingFiles {
		l, err := dataset.LoadFile(context.Background(), f.path, f.format)
		require.NoError(t, err)
		question, _ := New(l.Questions, WithWording(WordingQuestion))
		gold, _ := New(l.Questions)
		checked, goldLeaks := 0, 0
		for _, q := range l.Questions {
			c, err := sparql2plan.Convert(GoldPair(q))
			if err != nil || question.lookup(q.Text) == nil || question.lookup(q.Text).q.ID != q.ID {
				continue
			}
			checked++
			for stage, reply := range plannerReplies(t, question, q) {
				assert.Empty(t, leaks(t, q, c.Steps, reply), "%s %s %q: %s", f.path, stage, q.Text, reply)
			}
			var qp, gp kgqa.Plan
			replies := plannerReplies(t, gold, q)
			require.NoError(t, json.Unmarshal([]byte(plannerReplies(t, question, q)[prompts.Plan]), &qp))
			require.NoError(t, json.Unmarshal([]byte(replies[prompts.Plan]), &gp))
			require.Len(t, qp.Subgoals, len(gp.Subgoals))
			for i := range qp.Subgoals {
				assert.Equal(t, gp.Subgoals[i].Op, qp.Subgoals[i].Op)
				assert.Equal(t, gp.Subgoals[i].Needs, qp.Subgoals[i].Needs)
			}
			require.NoError(t, qp.Validate(), "%q", q.Text)
			if len(leaks(t, q, c.Steps, replies[prompts.Plan])) > 0 {
				goldLeaks++
			}
		}
		assert.Greater(t, checked, 20, "%s: questions checked", f.path)
		assert.Greater(t, goldLeaks, checked/4, "%s: the gold wording names relations the question does not", f.path)
		t.Logf("%s: %d questions, the gold wording leaks on %d", f.path, checked, goldLeaks)
	}
}

// The question wording keeps the question's words in the template's
// order, entity names and references whole, and restates the question
// when the template has none of its words.
func TestRewordExamples(t *testing.T) {
	q := dataset.Question{Text: "what country is the grand bahama island in?", TopicEntities: []dataset.Entity{{ID: "m.03st9j", Name: "Grand Bahama"}}}
	p := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the countries that contains Grand Bahama.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Find the place of birth of #1.", Op: kgqa.OpFind, Needs: []string{"s1"}},
		{ID: "s3", Text: "Keep those of #2 whose gender is Male.", Op: kgqa.OpFilter, Needs: []string{"s2"}},
	}}
	got := Reword(q, &sparql2plan.Conversion{Plan: p, Steps: []sparql2plan.Step{{ID: "s3", Anchors: []string{"m.05zppz"}}}})
	assert.Equal(t, "Find the country that Grand Bahama.", got.Subgoals[0].Text)
	assert.Equal(t, "Find, for #1: what country is the island in?", got.Subgoals[1].Text, "only its own anchors are named")
	assert.Equal(t, "Keep those of #2 whose is Male.", got.Subgoals[2].Text, "a constant's name is a value, kept")
	assert.Equal(t, "Find the place of birth of #1.", p.Subgoals[1].Text, "the plan given is left alone")

	sup := &kgqa.Plan{Version: 2, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the countries that contains Grand Bahama.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Which of #1 has the largest area?", Op: kgqa.OpSuperlative, Needs: []string{"s1"},
			Args: &kgqa.Args{Attribute: "location.location.area", Order: "max", Valid: []kgqa.TimeCond{{Attribute: "from", Cmp: "<=", Value: "2015"}, {Attribute: "start date", Cmp: "<=", Value: "2015"}}}},
	}}
	got = Reword(dataset.Question{Text: "what is the largest country with an island?"}, &sparql2plan.Conversion{Plan: sup})
	assert.Equal(t, "Which of #1 has the largest?", got.Subgoals[1].Text)
	assert.Empty(t, got.Subgoals[1].Args.Attribute, "area is not the question's word")
	assert.Equal(t, []kgqa.TimeCond{{Attribute: "from", Cmp: "<=", Value: "2015"}}, got.Subgoals[1].Args.Valid)
}

// A conjunction whose template has no word of the question restates the
// question in each branch from that branch's own anchor: the engine
// starts a subgoal from the topic entities its text names.
func TestRestatedBranchesKeepTheirAnchors(t *testing.T) {
	q := dataset.Question{Text: "Which country borders both Germany and Spain?",
		TopicEntities: []dataset.Entity{{ID: "m.0345h", Name: "Germany"}, {ID: "m.06mkj", Name: "Spain"}}}
	p := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the adjoins of Germany.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Find the adjoins of Spain.", Op: kgqa.OpFind},
		{ID: "s3", Text: "Which of #1 are also in #2?", Op: kgqa.OpIntersect, Needs: []string{"s1", "s2"}},
	}}
	got := Reword(q, &sparql2plan.Conversion{Plan: p, Steps: []sparql2plan.Step{{ID: "s1", Anchors: []string{"m.0345h"}}, {ID: "s2", Anchors: []string{"m.06mkj"}}}})
	assert.Equal(t, "Find, from Germany: Which country borders both Germany and?", got.Subgoals[0].Text)
	assert.Equal(t, "Find, from Spain: Which country borders both and Spain?", got.Subgoals[1].Text)
	assert.Equal(t, "Which of #1 are also in #2?", got.Subgoals[2].Text)
}

func TestParseWording(t *testing.T) {
	for in, want := range map[string]string{"": WordingGold, "gold": WordingGold, "question": WordingQuestion} {
		got, err := ParseWording(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseWording("schema")
	assert.ErrorContains(t, err, "want gold or question")
}
