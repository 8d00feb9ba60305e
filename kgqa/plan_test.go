package kgqa

import (
	"errors"
	"strings"
	"testing"
)

// TestCompareBoundReference: a compare may take another subgoal's result
// as its value ("#2" for s2), but only a subgoal it needs, never the only
// one, and never in a cycle.
func TestCompareBoundReference(t *testing.T) {
	const head = `{"subgoals":[
		{"id":"s1","text":"Which wars did the USA fight?","op":"find"},
		{"id":"s2","text":"When did Lincoln's presidency start?","op":"find"},`
	tests := []struct {
		name, last, err string
	}{
		{"needed reference", `{"id":"s3","text":"Keep those of #1 that started after #2.","op":"compare","needs":["s1","s2"],"args":{"attribute":"start date","cmp":">=","value":"#2"}}`, ""},
		{"reference not needed", `{"id":"s3","text":"Keep those of #1 that started after #2.","op":"compare","needs":["s1"],"args":{"attribute":"start date","cmp":">=","value":"#2"}}`, "refers to s2, which is not one of its needs"},
		{"reference to an unknown subgoal", `{"id":"s3","text":"Keep those of #1 that started after #7.","op":"compare","needs":["s1","s7"],"args":{"cmp":">=","value":"#7"}}`, `needs unknown id "s7"`},
		{"reference as the only need", `{"id":"s3","text":"Keep those of #2 after #2.","op":"compare","needs":["s2"],"args":{"cmp":">=","value":"#2"}}`, "is its only need"},
		{"malformed reference", `{"id":"s3","text":"Keep those of #1 after #2.","op":"compare","needs":["s1","s2"],"args":{"cmp":">=","value":"#s2"}}`, "not a reference of the form #k"},
		{"reference to itself", `{"id":"s3","text":"Keep those of #1 after #3.","op":"compare","needs":["s1","s3"],"args":{"cmp":">=","value":"#3"}}`, "needs itself"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePlan([]byte(head + tc.last + "]}"))
			if tc.err == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if id, ok := p.Subgoals[2].Args.BoundRef(); !ok || id != "s2" {
					t.Fatalf("BoundRef = %q, %v; want s2, true", id, ok)
				}
				return
			}
			if !errors.Is(err, ErrInvalidPlan) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Parse error = %v; want one containing %q", err, tc.err)
			}
		})
	}
	cycle := `{"subgoals":[
		{"id":"s1","text":"Keep those of #2 after #3.","op":"compare","needs":["s2","s3"],"args":{"cmp":">","value":"#3"}},
		{"id":"s2","text":"Which wars?","op":"find"},
		{"id":"s3","text":"The start of #1.","op":"find","needs":["s1"]}]}`
	if _, err := ParsePlan([]byte(cycle)); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("a bound in a cycle: Parse error = %v; want a cycle", err)
	}
	var none *Args
	if _, ok := none.BoundRef(); ok {
		t.Fatal("nil Args has no reference")
	}
	if _, ok := (&Args{Value: "1990"}).BoundRef(); ok {
		t.Fatal("a literal is no reference")
	}
}

// TestPlanConditions: time conditions, text values and literal anchors
// are version 2; a plan that declares version 1 and uses them, or states
// one malformed, is refused; a missing version takes the lowest that
// holds the plan.
func TestPlanConditions(t *testing.T) {
	const find = `{"id":"s1","text":"Find the teams Joakim Noah plays for, currently.","op":"find","args":{"valid":[{"attribute":"from","cmp":"<=","value":"2015-08-10","open":true}]}}`
	tests := []struct {
		name, plan, err string
		version         int
	}{
		{"time condition, no version", `{"subgoals":[` + find + `]}`, "", PlanVersionConditions},
		{"time condition, version 2", `{"version":2,"subgoals":[` + find + `]}`, "", PlanVersionConditions},
		{"time condition, version 1", `{"version":1,"subgoals":[` + find + `]}`, "need version 2", 0},
		{"version 3", `{"version":3,"subgoals":[` + find + `]}`, "version 3", 0},
		{"plain plan, no version", `{"subgoals":[{"id":"s1","text":"Find x.","op":"find"}]}`, "", PlanVersion},
		{"bad time value", `{"subgoals":[{"id":"s1","text":"x","op":"find","args":{"valid":[{"attribute":"from","cmp":"<=","value":"now"}]}}]}`, "not a year or an ISO date", 0},
		{"bad time cmp", `{"subgoals":[{"id":"s1","text":"x","op":"find","args":{"valid":[{"attribute":"from","cmp":"!=","value":"2009"}]}}]}`, "not one of", 0},
		{"time condition on a count", `{"subgoals":[{"id":"s1","text":"x","op":"find"},{"id":"s2","text":"y","op":"count","needs":["s1"],"args":{"valid":[{"attribute":"from","cmp":"<=","value":"2009"}]}}]}`, "only a find or a filter", 0},
		{"text contains", `{"subgoals":[{"id":"s1","text":"x","op":"find"},{"id":"s2","text":"y","op":"filter","needs":["s1"],"args":{"attribute":"name","cmp":"contains","value":"Saint","type":"text"}}]}`, "", PlanVersionConditions},
		{"contains a number", `{"subgoals":[{"id":"s1","text":"x","op":"find"},{"id":"s2","text":"y","op":"filter","needs":["s1"],"args":{"attribute":"name","cmp":"contains","value":"1"}}]}`, "contains compares text", 0},
		{"bad type", `{"subgoals":[{"id":"s1","text":"x","op":"find","args":{"attribute":"alias","literal":"EU","type":"word"}}]}`, "not text, number or date", 0},
		{"literal find", `{"subgoals":[{"id":"s1","text":"What has the alias EU?","op":"find","args":{"attribute":"alias","literal":"EU","type":"text"}}]}`, "", PlanVersionConditions},
		{"literal find with needs", `{"subgoals":[{"id":"s1","text":"x","op":"find"},{"id":"s2","text":"y","op":"find","needs":["s1"],"args":{"attribute":"alias","literal":"EU"}}]}`, "needs no subgoal", 0},
		{"literal find without attribute", `{"subgoals":[{"id":"s1","text":"x","op":"find","args":{"literal":"EU"}}]}`, "names no attribute", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePlan([]byte(tc.plan))
			if tc.err != "" {
				if !errors.Is(err, ErrInvalidPlan) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse error = %v; want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.Version != tc.version {
				t.Fatalf("version %d, want %d", p.Version, tc.version)
			}
		})
	}
}
