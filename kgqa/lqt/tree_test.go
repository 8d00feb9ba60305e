package lqt

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simOf builds a symmetric similarity matrix from pairs.
func simOf(n int, pairs map[[2]int]float64) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	for p, v := range pairs {
		m[p[0]][p[1]], m[p[1]][p[0]] = v, v
	}
	return m
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
// With alpha 1 and sims 0-1 0.5, 0-2 0.5: under 1 (sim 0.8) the cost is
// -(4 + 3 - 2 - 1 + 1.8) = -5.8; under 2 (sim 0.2) it is -5.2.
func TestDPPicksTheMoreSimilarMerge(t *testing.T) {
	l := NewLabels(4)
	l.SetParent(0, 1)
	l.SetParent(0, 2)
	l.SetSibling(1, 2)
	l.SetParent(1, 3)
	l.SetParent(2, 3)
	m := Model{Alpha: 1, Sim: simOf(4, map[[2]int]float64{{0, 1}: 0.5, {0, 2}: 0.5, {1, 3}: 0.8, {2, 3}: 0.2})}
	tr, err := DP(l, m)
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 0, 1}, tr.Parent)
	assert.InDelta(t, -5.8, tr.Cost, 1e-9)

	m.Sim = simOf(4, map[[2]int]float64{{0, 1}: 0.5, {0, 2}: 0.5, {1, 3}: 0.2, {2, 3}: 0.8})
	tr, err = DP(l, m)
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 0, 2}, tr.Parent)
}

// Depth against similarity: 2 may hang under 1 (a chain 0 -> 1 -> 2 -> 3,
// Depth 3, Balance 0) or, when 1 and 3 are siblings under 0, the tree is
// 0 -> {1, 3}, 1 -> 2 (Depth 2, Balance 1). Here 3's parent is 0 or 2.
// Both cost -4 before Sim: with sims 0-3 0.9 and 2-3 0.1 the shallow tree
// costs -(4 + 0.9 + s01 + s12) and wins; reversed, the chain wins.
func TestDPTradesDepthAgainstSimilarity(t *testing.T) {
	l := NewLabels(4)
	l.SetParent(0, 1)
	l.SetParent(1, 2)
	l.SetParent(0, 3)
	l.SetSibling(1, 3)
	l.SetParent(2, 3)
	base := map[[2]int]float64{{0, 1}: 0.3, {1, 2}: 0.3}
	with := func(a, b float64) Model {
		p := map[[2]int]float64{{0, 3}: a, {2, 3}: b}
		for k, v := range base {
			p[k] = v
		}
		return Model{Alpha: 1, Sim: simOf(4, p)}
	}
	tr, err := DP(l, with(0.9, 0.1))
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 1, 0}, tr.Parent)
	assert.Equal(t, 2, tr.Depth)
	assert.Equal(t, 1, tr.Balance)
	assert.InDelta(t, -(4 + 1.5), tr.Cost, 1e-9)

	tr, err = DP(l, with(0.1, 0.9))
	require.NoError(t, err)
	assert.Equal(t, []int{-1, 0, 1, 2}, tr.Parent)
	assert.Equal(t, 3, tr.Depth)
	assert.InDelta(t, -(4 + 1.5), tr.Cost, 1e-9)
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
	sim := make([][]float64, n)
	for i := range sim {
		sim[i] = make([]float64, n)
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			switch r.IntN(4) {
			case 0:
				l.SetSibling(a, b)
			case 1:
				l.SetParent(b, a)
			case 2:
				l.SetParent(a, b)
			}
			sim[a][b] = float64(r.IntN(10)) / 10
			sim[b][a] = sim[a][b]
		}
	}
	return l, Model{Alpha: 1, Sim: sim}
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

// The greedy merge against the dynamic programme on random inputs: it
// never finds fewer trees, and the test logs how often it ends costlier.
func TestGreedyAgainstDP(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	worse, runs := 0, 0
	for n := 2; n <= 8; n++ {
		for k := 0; k < 40; k++ {
			l, m := randomLabels(r, n)
			best, err := DP(l, m)
			require.NoError(t, err)
			g := Greedy(l, m)
			_, err = Evaluate(g.Parent, m)
			require.NoError(t, err, "the greedy tree is acyclic")
			require.GreaterOrEqual(t, len(g.Roots()), len(best.Roots()))
			runs++
			if len(g.Roots()) > len(best.Roots()) || g.Cost > best.Cost+1e-9 {
				worse++
			}
		}
	}
	t.Logf("greedy merge worse than the dynamic programme in %d of %d random cases", worse, runs)
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
