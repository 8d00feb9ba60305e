package oracle

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/prompts"
)

const (
	riverQuestion       = "Which river flows through both Switzerland and the Netherlands?"
	smallestPopQuestion = "Which country bordering Switzerland had the smallest population in 2019?"
)

// stepFacts renders, for step id of the question's gold plan, one fact
// per result from the anchor along the step's gold relation, as the
// engine shows facts (subject to object).
func stepFacts(t *testing.T, m *Model, question, id, anchor string, results ...string) []string {
	t.Helper()
	q := m.lookup(question)
	require.NotNil(t, q, question)
	s, ok := q.steps[id]
	require.True(t, ok, "gold plan %s has %s", q.plan, id)
	rel := m.dialect.Readable(s.Path[0].Relation)
	if len(s.Path) > 1 {
		rel += " / " + m.dialect.Readable(s.Path[1].Relation)
	}
	var out []string
	for _, r := range results {
		if s.Path[0].Reverse {
			out = append(out, fmt.Sprintf("%s -[%s]-> %s", r, rel, anchor))
		} else {
			out = append(out, fmt.Sprintf("%s -[%s]-> %s", anchor, rel, r))
		}
	}
	return out
}

// view is the plan view of a question's gold plan as the engine renders it.
func goldView(t *testing.T, m *Model, question, current string, known ...string) prompts.PlanView {
	t.Helper()
	q := m.lookup(question)
	require.NotNil(t, q, question)
	v := prompts.PlanView{Question: question, Current: current, Known: known}
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5"} {
		s, ok := q.steps[id]
		if !ok {
			continue
		}
		v.Subgoals = append(v.Subgoals, prompts.SubgoalLine{ID: id, Text: "subgoal " + id, Op: string(s.Op), Needs: joinNeeds(s.Needs)})
	}
	return v
}

func joinNeeds(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// TestStrictSufficiencyOnAConjunction: "Which river flows through both
// Switzerland and the Netherlands?" (gold: the Rhine). After s1 (rivers
// of Switzerland) the folded refine call and the separate sufficiency
// call may stop the run only when s1's candidates are the gold set: with
// the Rhine among the Aare and the Rhône, the intersect with s2 is what
// decides, and it has not run.
func TestStrictSufficiencyOnAConjunction(t *testing.T) {
	rhine, aare, rhone := "Rhine [m.0s7pct]", "Aare [m.0aare]", "Rhône [m.0rhone]"
	cases := []struct {
		name    string
		results []string
		mode    string
		want    bool
	}{
		{"gold among others, strict", []string{aare, rhine, rhone}, SufficiencyStrict, false},
		{"evidence is the gold set, strict", []string{rhine}, SufficiencyStrict, true},
		{"evidence is the gold set, never", []string{rhine}, SufficiencyNever, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := demoModel(t, WithSufficiency(c.mode))
			facts := stepFacts(t, m, riverQuestion, "s1", "Switzerland [m.06mzp]", c.results...)
			d := prompts.RefineData{Plan: goldView(t, m, riverQuestion, "s1"), Subgoal: "Find the rivers of Switzerland.", Facts: facts, Fused: true}
			rep := validate(t, prompts.Refine, m.Answer(chatRequest(t, prompts.Refine, d, true), "").Content)
			assert.Equal(t, true, rep["aligned"], "s1's facts are s1's evidence")
			assert.Len(t, rep["entities"], len(c.results), "s1 is answered with every river of Switzerland")
			assert.Equal(t, c.want, rep["sufficient"], "folded verdict")
			if c.want {
				assert.Equal(t, []any{"m.0s7pct"}, rep["final_entities"])
			} else {
				assert.Empty(t, rep["final_entities"])
			}

			known := "s1: Aare; Rhine; Rhône"
			if len(c.results) == 1 {
				known = "s1: Rhine"
			}
			sd := prompts.SufficiencyData{Plan: goldView(t, m, riverQuestion, "", known), Facts: facts}
			rep = validate(t, prompts.Sufficiency, m.Answer(chatRequest(t, prompts.Sufficiency, sd, true), "").Content)
			assert.Equal(t, c.want, rep["sufficient"], "separate verdict")
		})
	}
}

// TestStrictSufficiencyOnASuperlative: "Which country bordering
// Switzerland had the smallest population in 2019?" (gold:
// Liechtenstein). Switzerland's neighbours include it, but the
// population, superlative and intersect steps decide; a clipped list of
// results shows not every candidate and decides nothing either.
func TestStrictSufficiencyOnASuperlative(t *testing.T) {
	m := demoModel(t)
	facts := stepFacts(t, m, smallestPopQuestion, "s1", "Switzerland [m.06mzp]",
		"Germany [m.0345h]", "France [m.0f8l9c]", "Italy [m.03rjj]", "Austria [m.0h7x]", "Liechtenstein [m.0kfnyg]")
	for _, known := range []string{"s1: Germany; France; Italy; Austria; Liechtenstein", "s1: Liechtenstein; Germa..."} {
		sd := prompts.SufficiencyData{Plan: goldView(t, m, smallestPopQuestion, "", known), Facts: facts}
		rep := validate(t, prompts.Sufficiency, m.Answer(chatRequest(t, prompts.Sufficiency, sd, true), "").Content)
		assert.Equal(t, false, rep["sufficient"], known)
		fd := prompts.SufficiencyData{Plan: goldView(t, m, smallestPopQuestion, "", known), Facts: facts}
		rep = validate(t, prompts.Final, m.Answer(chatRequest(t, prompts.Final, fd, true), "").Content)
		assert.Equal(t, "unknown", rep["answer"], "the final answer is not read off evidence that does not determine it")
	}
	// The intersect's other input (s4, the regions of that population)
	// shown complete and equal to the gold set determines the answer.
	sd := prompts.SufficiencyData{Plan: goldView(t, m, smallestPopQuestion, "", "s4: Liechtenstein"), Facts: facts}
	rep := validate(t, prompts.Sufficiency, m.Answer(chatRequest(t, prompts.Sufficiency, sd, true), "").Content)
	assert.Equal(t, true, rep["sufficient"])
}

func TestParseSufficiency(t *testing.T) {
	for in, want := range map[string]string{"": SufficiencyStrict, "strict": SufficiencyStrict, "never": SufficiencyNever} {
		got, err := ParseSufficiency(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseSufficiency("lax")
	assert.ErrorContains(t, err, `"lax"`)
}
