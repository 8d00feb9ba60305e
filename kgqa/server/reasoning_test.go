package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/parog/parog-go/kgqa"
)

// The lines of steps the demo questions of the HTTP tests do not reach,
// and the bounds that keep a line one short line whatever the model said.
func TestNarratorLines(t *testing.T) {
	many := make([]kgqa.Term, 8)
	for i := range many {
		many[i] = kgqa.Term{ID: "m.0" + string(rune('a'+i)), Name: "City " + string(rune('A'+i))}
	}
	plan := &kgqa.Plan{Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Which countries border France?"},
		{ID: "s2", Text: "Which of #1 has the largest population?", Needs: []string{"s1"}},
	}}
	tests := []struct {
		name string
		ev   kgqa.Event
		want string
	}{
		{"sufficient", kgqa.Event{Type: kgqa.EventSufficiency, Subgoal: "s1", Sufficiency: &kgqa.Sufficiency{Sufficient: true, Answer: "Germany"}},
			"After s1: enough to answer: \"Germany\"\n"},
		{"not sufficient", kgqa.Event{Type: kgqa.EventSufficiency, Subgoal: "s1", Sufficiency: &kgqa.Sufficiency{}},
			"After s1: not enough to answer yet.\n"},
		{"kept tentative", kgqa.Event{Type: kgqa.EventRefinement, Subgoal: "s2", Verdict: &kgqa.Verdict{KeptTentative: true, Answer: "Berlin", Rejected: []string{"x"}}},
			"s2: the facts do not settle it; keeping the tentative answer \"Berlin\"; dropped 1 not in the facts\n"},
		{"model text on one line", kgqa.Event{Type: kgqa.EventTentative, Subgoal: "s1", Tentative: &kgqa.Tentative{Answer: "Paris\n\nand\tLyon"}},
			"s1: tentative answer from the model: \"Paris and Lyon\"\n"},
		{"long lists are cut", kgqa.Event{Type: kgqa.EventSubgoalDone, Subgoal: "s1", Result: &kgqa.Result{Entities: many, Source: "exact", Capped: true}},
			"s1 done: City A, City B, City C, City D, City E and 3 more (by set logic), may be incomplete.\n"},
		{"nothing chosen", kgqa.Event{Type: kgqa.EventExploration, Subgoal: "s1", Round: &kgqa.Round{Depth: 1, Offered: 1}},
			"s1: hop 2: none of 1 relation fits.\n"},
		{"subgoal named by the plan", kgqa.Event{Type: kgqa.EventSubgoalStarted, Subgoal: "s2"},
			"s2: Which of #1 has the largest population?\n"},
		{"final is the content", kgqa.Event{Type: kgqa.EventFinal, Answer: &kgqa.Answer{Text: "Germany"}}, ""},
		{"no payload", kgqa.Event{Type: kgqa.EventRefinement, Subgoal: "s1"}, ""},
	}
	var n narrator
	assert.Equal(t, "Plan: 2 subgoals, as given.\n  s1: Which countries border France?\n  s2: Which of #1 has the largest population? (needs s1)\n",
		n.line(kgqa.Event{Type: kgqa.EventPlan, Plan: plan, PlanInfo: &kgqa.PlanInfo{Source: "given"}}))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, n.line(tc.ev))
		})
	}
	t.Run("long text is cut", func(t *testing.T) {
		l := n.line(kgqa.Event{Type: kgqa.EventTentative, Subgoal: "s1", Tentative: &kgqa.Tentative{Answer: strings.Repeat("é", 1000)}})
		assert.Equal(t, 1, strings.Count(l, "\n"))
		assert.Equal(t, maxReasonText, strings.Count(l, "é"))
		assert.Contains(t, l, "…")
	})
}
