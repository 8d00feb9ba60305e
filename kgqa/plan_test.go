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
