package lqt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simIf scores a text 1 when it holds want and low otherwise.
func simIf(want string, low float64) func(string) float64 {
	return func(text string) float64 {
		if strings.Contains(text, want) {
			return 1
		}
		return low
	}
}

// The airport question: s1 countries bordering France, s2 airports
// serving Nijmegen, s3 countries containing #2, s4 those of #1 also in #3.
// The labels allow one tree; its cost, worked by hand:
// |V| 4, |E| 3, Depth 2 (s4 -> s3 -> s2), Balance 1 (s4's children have
// heights 0 and 1), Sim 0 with alpha 0: -(4 + 3 - 2 - 1) = -4.
func TestDPBuildsTheOnlyTreeTheLabelsAllow(t *testing.T) {
	l := NewLabels(4)
	l.SetParent(3, 0)
	l.SetParent(3, 2)
	l.SetParent(2, 1)
	l.SetSibling(0, 2)
	tr, err := DP(l, Model{})
	require.NoError(t, err)
	assert.Equal(t, []int{3, 2, 3, -1}, tr.Parent)
	assert.Equal(t, 2, tr.Depth)
	assert.Equal(t, 1, tr.Balance)
	assert.InDelta(t, -4.0, tr.Cost, 1e-9)
}

// Two trees are allowed when query 3 may hang under 1 or under 2 (both
// children of 0, siblings): same Depth 2 and Balance 1, so Sim decides.
// Under 1 the root's text composes to "[red [apple]] and [blue #4]",
// under 2 to "[red #4] and [blue [apple]]". With alpha 1 and Sim 1 for the text holding
// "red apple", 0.2 otherwise: -(4 + 3 - 2 - 1 + 1) = -5 against -4.2.
func TestDPPicksTheMoreSimilarMerge(t *testing.T) {
	l := NewLabels(4)
	l.SetParent(0, 1)
	l.SetParent(0, 2)
	l.SetSibling(1, 2)
	l.SetParent(1, 3)
	l.SetParent(2, 3)
	m := Model{Alpha: 1, Texts: []string{"#2 and #3", "red #4", "blue #4", "apple"}, Sim: simIf("red [apple]", 0.2)}
	tr, err := DP(l, m)
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 0, 1}, tr.Parent)
	assert.InDelta(t, -5.0, tr.Cost, 1e-9)
	assert.Equal(t, "[red [apple]] and [blue #4]", Text(tr.Parent, m.Texts, 0))

	m.Sim = simIf("blue [apple]", 0.2)
	tr, err = DP(l, m)
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 0, 2}, tr.Parent)
	assert.InDelta(t, -5.0, tr.Cost, 1e-9)
}

// Depth against similarity: 2 may hang under 1 (a chain 0 -> 1 -> 2 -> 3,
// Depth 3, Balance 0) or, when 1 and 3 are siblings under 0, the tree is
// 0 -> {1, 3}, 1 -> 2 (Depth 2, Balance 1). Here 3's parent is 0 or 2.
// Both cost -4 before Sim. The shallow tree's text is "[mid [low #4]]
// [leaf] top", the chain's "[mid [low [leaf]]] #4 top": the text Sim favours wins, at
// -(4 + 1) with alpha 1.
func TestDPTradesDepthAgainstSimilarity(t *testing.T) {
	l := NewLabels(4)
	l.SetParent(0, 1)
	l.SetParent(1, 2)
	l.SetParent(0, 3)
	l.SetSibling(1, 3)
	l.SetParent(2, 3)
	texts := []string{"#2 #4 top", "mid #3", "low #4", "leaf"}
	tr, err := DP(l, Model{Alpha: 1, Texts: texts, Sim: simIf("[leaf] top", 0.1)})
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 1, 0}, tr.Parent)
	assert.Equal(t, 2, tr.Depth)
	assert.Equal(t, 1, tr.Balance)
	assert.InDelta(t, -5.0, tr.Cost, 1e-9)

	tr, err = DP(l, Model{Alpha: 1, Texts: texts, Sim: simIf("low [leaf]", 0.1)})
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 1, 2}, tr.Parent)
	assert.Equal(t, 3, tr.Depth)
	assert.InDelta(t, -5.0, tr.Cost, 1e-9)
}

// Conflicting pair labels: relation preprocessing says the country uses
// the birthplace, the capital uses the country, and (wrongly) the
// birthplace uses the capital. The labels make a cycle, so three chains
// of the same shape (Depth 2, Balance 0) are allowed and only Sim against
// the question tells them apart. Their composed texts:
//
//	2 -> 1 -> 0: "the capital of [the country containing [Barack Obama's birthplace]]"
//	1 -> 0 -> 2: "the country containing [Barack Obama's birthplace]"
//	0 -> 2 -> 1: "Barack Obama's birthplace"
//
// Asked for the capital, the first holds every content word of the
// question it can; asked for the country, the second does and the first
// carries "capital" the question lacks.
func TestConflictingLabelsChooseByTheQuestion(t *testing.T) {
	l := NewLabels(3)
	l.SetParent(1, 0)
	l.SetParent(2, 1)
	l.SetParent(0, 2) // the conflicting label
	texts := []string{"Barack Obama's birthplace", "the country containing #1", "the capital of #2"}
	for _, c := range []struct {
		question string
		want     []int
	}{
		{"What is the capital of the country containing Barack Obama's birthplace?", []int{1, 2, -1}},
		{"Which country contains Barack Obama's birthplace?", []int{1, -1, 0}},
	} {
		m := Model{Alpha: 10, Texts: texts, Sim: Lexical{}.To(c.question)}
		for name, tr := range map[string]Tree{"dp": must(DP(l, m)), "greedy": Greedy(l, m)} {
			assert.Equal(t, c.want, tr.Parent, "%s: %s", name, c.question)
		}
		// The choice is the cheapest of the three chains by Evaluate.
		got := must(Evaluate(c.want, m))
		for _, other := range [][]int{{1, 2, -1}, {1, -1, 0}, {-1, 2, 0}} {
			o := must(Evaluate(other, m))
			assert.Equal(t, 2, o.Depth)
			assert.LessOrEqual(t, got.Cost, o.Cost, "%v against %v for %q", c.want, other, c.question)
		}
		// With alpha 0 the three chains cost the same: Sim decides.
		assert.InDelta(t, must(Evaluate([]int{1, 2, -1}, Model{Texts: texts})).Cost, must(Evaluate([]int{-1, 2, 0}, Model{Texts: texts})).Cost, 1e-9)
	}
}

func must(tr Tree, err error) Tree {
	if err != nil {
		panic(err)
	}
	return tr
}

// The model may label a cycle: 0 uses 1, 1 uses 2, 2 uses 0. No query
// may become its own ancestor: both builders keep two of the three edges.
func TestCyclicLabelsGiveATree(t *testing.T) {
	l := NewLabels(3)
	l.SetParent(0, 1)
	l.SetParent(1, 2)
	l.SetParent(2, 0)
	for name, build := range map[string]func() (Tree, error){
		"dp":     func() (Tree, error) { return DP(l, Model{}) },
		"greedy": func() (Tree, error) { return Greedy(l, Model{}), nil },
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := build()
			require.NoError(t, err)
			assert.Len(t, tr.Roots(), 1, "one tree over the three queries")
			_, err = Evaluate(tr.Parent, Model{})
			assert.NoError(t, err, "no query is its own ancestor")
			edges := 0
			for c, p := range tr.Parent {
				if p >= 0 {
					edges++
					assert.True(t, l.IsParent(p, c), "edge %d -> %d follows a label", p, c)
				}
			}
			assert.Equal(t, 2, edges)
		})
	}
}

func TestEvaluateRejectsCycles(t *testing.T) {
	_, err := Evaluate([]int{1, 2, 0}, Model{})
	assert.ErrorContains(t, err, "own ancestor")
	_, err = Evaluate([]int{-1, 5}, Model{})
	assert.ErrorContains(t, err, "out of range")
}

// Unrelated queries never merge: with no label between them, the result
// is a forest, and the forest with the fewest trees wins.
func TestUnrelatedQueriesStayApart(t *testing.T) {
	l := NewLabels(3)
	l.SetParent(0, 1)
	tr, err := DP(l, Model{})
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, -1}, tr.Parent)
	assert.Equal(t, tr.Parent, Greedy(l, Model{}).Parent)
}

// exhaustive finds the cheapest allowed forest by trying every parent
// array: fewest trees first, then cost.
func exhaustive(l *Labels, m Model) (trees int, cost float64) {
	n := l.Len()
	parent := make([]int, n)
	trees = n + 1
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			for c, p := range parent {
				if p < 0 {
					continue
				}
				if !l.IsParent(p, c) {
					return
				}
				for k, q := range parent {
					if q == p && k != c && l.Relation(k, c) != Sibling {
						return
					}
				}
			}
			tr, err := Evaluate(parent, m)
			if err != nil {
				return
			}
			if r := len(tr.Roots()); r < trees || (r == trees && tr.Cost < cost) {
				trees, cost = r, tr.Cost
			}
			return
		}
		for p := -1; p < n; p++ {
			if p != i {
				parent[i] = p
				rec(i + 1)
			}
		}
	}
	rec(0)
	return trees, cost
}

// randomLabels labels every pair at random, mostly as a model would:
// parents point back to earlier queries.
func randomLabels(r *rand.Rand, n int) (*Labels, Model) {
	l := NewLabels(n)
	words := []string{"river", "city", "film", "actor", "team", "author", "country", "award"}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = words[r.IntN(len(words))]
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			switch r.IntN(4) {
			case 0:
				l.SetSibling(a, b)
			case 1:
				l.SetParent(b, a)
				texts[b] += fmt.Sprintf(" %s #%d", words[r.IntN(len(words))], a+1)
			case 2:
				l.SetParent(a, b)
				texts[a] += fmt.Sprintf(" %s #%d", words[r.IntN(len(words))], b+1)
			}
		}
	}
	question := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
	return l, Model{Alpha: 1, Texts: texts, Sim: Lexical{}.To(question)}
}

// The dynamic programme against exhaustive enumeration on small random
// inputs: it finds a forest with the fewest trees, and its cost is the
// optimum except where keeping one partial tree per (subset, root) loses
// it (see the package doc), which the test counts and bounds.
func TestDPAgainstExhaustiveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worse, runs := 0, 0
	for n := 2; n <= 6; n++ {
		for k := 0; k < 60; k++ {
			l, m := randomLabels(r, n)
			wantTrees, wantCost := exhaustive(l, m)
			tr, err := DP(l, m)
			require.NoError(t, err)
			require.Equal(t, wantTrees, len(tr.Roots()), "n=%d case %d: fewest trees", n, k)
			require.GreaterOrEqual(t, tr.Cost, wantCost-1e-9, "never better than the optimum")
			runs++
			if tr.Cost > wantCost+1e-9 {
				worse++
			}
		}
	}
	t.Logf("dynamic programme above the optimum in %d of %d random cases", worse, runs)
	assert.LessOrEqual(t, worse*10, runs, "misses the optimum in at most a tenth of the cases")
}

func TestDPRejectsTooManyQueries(t *testing.T) {
	_, err := DP(NewLabels(MaxDP+1), Model{})
	assert.Error(t, err)
}

// BenchmarkDP times the dynamic programme for n = 4 to 12 queries on
// dense random labels (every pair related: the worst case).
func BenchmarkDP(b *testing.B) {
	for _, n := range []int{4, 6, 8, 10, 12} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		l, m := randomLabels(r, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := DP(l, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The greedy merge against the dynamic programme alone on random inputs:
// the test logs how often either finds fewer trees or a cheaper one, and
// holds DP (the better of the two) to never lose to either.
func TestGreedyAgainstDP(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	greedyWorse, dpWorse, runs := 0, 0, 0
	better := func(a, b Tree) bool {
		return len(a.Roots()) < len(b.Roots()) || (len(a.Roots()) == len(b.Roots()) && a.Cost < b.Cost-1e-9)
	}
	for n := 2; n <= 8; n++ {
		for k := 0; k < 40; k++ {
			l, m := randomLabels(r, n)
			pure, err := dp(l, m)
			require.NoError(t, err)
			g := Greedy(l, m)
			_, err = Evaluate(g.Parent, m)
			require.NoError(t, err, "the greedy tree is acyclic")
			best, err := DP(l, m)
			require.NoError(t, err)
			require.False(t, better(pure, best) || better(g, best), "n=%d case %d: DP takes the better", n, k)
			runs++
			if better(pure, g) {
				greedyWorse++
			}
			if better(g, pure) {
				dpWorse++
			}
		}
	}
	t.Logf("greedy merge worse than the dynamic programme in %d of %d random cases, better in %d", greedyWorse, runs, dpWorse)
}

// BenchmarkGreedy times the greedy merge for 16 queries (the most a plan
// holds) on dense random labels.
func BenchmarkGreedy(b *testing.B) {
	r := rand.New(rand.NewPCG(16, 7))
	l, m := randomLabels(r, 16)
	for b.Loop() {
		Greedy(l, m)
	}
}

// Compose replaces only the named reference, whole, and not inside a
// subtree already composed.
func TestCompose(t *testing.T) {
	assert.Equal(t, "[a] and #12", Compose("#1 and #12", 1, "a"))
	assert.Equal(t, "[x #3] and [y]", Compose(Compose("#2 and #3", 2, "x #3"), 3, "y"))
	assert.Equal(t, "no reference", Compose("no reference", 1, "a"))
}
