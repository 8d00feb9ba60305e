package finetune

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
)

// plan builds a plan from "id:op<-need,need" items; the text is the id.
func plan(t *testing.T, answer string, items ...string) *kgqa.Plan {
	t.Helper()
	p := &kgqa.Plan{Version: kgqa.PlanVersion, Answer: answer}
	for _, it := range items {
		head, needs, _ := strings.Cut(it, "<-")
		id, op, ok := strings.Cut(head, ":")
		require.True(t, ok, it)
		s := kgqa.Subgoal{ID: id, Text: "subgoal " + id, Op: kgqa.Op(op)}
		if needs != "" {
			s.Needs = strings.Split(needs, ",")
		}
		p.Subgoals = append(p.Subgoals, s)
	}
	require.NoError(t, p.Validate())
	return p
}

func TestOpF1(t *testing.T) {
	gold := plan(t, "", "s1:find", "s2:find", "s3:find<-s2", "s4:intersect<-s1,s3")
	cases := []struct {
		name string
		pred *kgqa.Plan
		want float64
	}{
		// Same multiset {find×3, intersect}: P = R = 1.
		{"identical", plan(t, "", "a:find", "b:find<-a", "c:find", "d:intersect<-b,c"), 1},
		// {find×2, intersect} against {find×3, intersect}: overlap 3,
		// P = 3/3, R = 3/4, F1 = 2·1·0.75/1.75 = 6/7.
		{"one find short", plan(t, "", "s1:find", "s2:find", "s3:intersect<-s1,s2"), 6.0 / 7.0},
		// {find×4}: overlap 3, P = 3/4, R = 3/4, F1 = 0.75.
		{"intersect missing", plan(t, "", "s1:find", "s2:find<-s1", "s3:find<-s2", "s4:find<-s3"), 0.75},
		// {find, count}: overlap 1 (one find), P = 1/2, R = 1/4,
		// F1 = 2·(1/8)/(3/4) = 1/3.
		{"mostly wrong", plan(t, "", "s1:find", "s2:count<-s1"), 1.0 / 3.0},
		// {find, count×2}: overlap 1, P = 1/3, R = 1/4,
		// F1 = 2·(1/12)/(7/12) = 2/7.
		{"two counts", plan(t, "", "s1:find", "s2:count<-s1", "s3:count<-s1"), 2.0 / 7.0},
		{"invalid prediction", nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, OpF1(tc.pred, gold), 1e-9)
		})
	}
}

func TestOpOverlapCounts(t *testing.T) {
	gold := plan(t, "", "s1:find", "s2:superlative<-s1")
	pred := plan(t, "", "s1:find", "s2:compare<-s1", "s3:superlative<-s2")
	o, np, ng := OpOverlap(pred, gold)
	assert.Equal(t, [3]int{2, 3, 2}, [3]int{o, np, ng})
	// P = 2/3, R = 1: F1 = (4/3)/(5/3) = 0.8.
	assert.InDelta(t, 0.8, F1(o, np, ng), 1e-9)
	assert.Zero(t, F1(0, 0, 3))
}

func TestSameGraph(t *testing.T) {
	conj := plan(t, "", "s1:find", "s2:find", "s3:find<-s2", "s4:intersect<-s1,s3")
	cases := []struct {
		name string
		a, b *kgqa.Plan
		want bool
	}{
		{"renamed and reordered", conj,
			plan(t, "", "x3:find", "x9:find<-x3", "x1:find", "z:intersect<-x9,x1"), true},
		{"needs listed in another order", conj,
			plan(t, "", "s1:find", "s2:find", "s3:find<-s2", "s4:intersect<-s3,s1"), true},
		{"extra edge", conj,
			plan(t, "", "s1:find", "s2:find", "s3:find<-s2,s1", "s4:intersect<-s1,s3"), false},
		{"different op on one node", conj,
			plan(t, "", "s1:find", "s2:find", "s3:filter<-s2", "s4:intersect<-s1,s3"), false},
		{"one subgoal fewer", conj,
			plan(t, "", "s1:find", "s2:find", "s3:intersect<-s1,s2"), false},
		// Every node has the same (op, needs, needed-by) signature in both,
		// so only the search can tell that find and filter swap places on
		// the chain.
		{"same signatures, different wiring",
			plan(t, "", "s1:find", "s2:find<-s1", "s3:filter<-s2", "s4:find", "s5:compare<-s4", "s6:intersect<-s3,s5"),
			plan(t, "", "s1:find", "s3:filter<-s1", "s2:find<-s3", "s4:find", "s5:compare<-s4", "s6:intersect<-s2,s5"),
			false},
		{"same signatures, same wiring, renamed",
			plan(t, "", "s1:find", "s2:find<-s1", "s3:filter<-s2", "s4:find", "s5:compare<-s4", "s6:intersect<-s3,s5"),
			plan(t, "", "q4:find", "q5:compare<-q4", "q1:find", "q2:find<-q1", "q3:filter<-q2", "q6:intersect<-q5,q3"),
			true},
		{"answer on another subgoal",
			plan(t, "", "s1:find", "s2:find", "s3:intersect<-s1,s2"),
			plan(t, "s1", "s1:find", "s2:find", "s3:intersect<-s1,s2"), false},
		{"explicit answer equals default", plan(t, "s2", "s1:find", "s2:count<-s1"),
			plan(t, "", "a:find", "b:count<-a"), true},
		{"nil", conj, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, SameGraph(tc.a, tc.b))
			assert.Equal(t, tc.want, SameGraph(tc.b, tc.a), "symmetric")
		})
	}
}

func TestSameGraphIgnoresTextAndArgs(t *testing.T) {
	a := plan(t, "", "s1:find", "s2:superlative<-s1")
	b := plan(t, "", "s1:find", "s2:superlative<-s1")
	b.Subgoals[0].Text = "something else"
	b.Subgoals[1].Args = &kgqa.Args{Attribute: "date", Order: "min"}
	assert.True(t, SameGraph(a, b))
}
