package finetune

import (
	"github.com/parog/parog-go/kgqa"
)

// OpOverlap returns the size of the multiset intersection of the two
// plans' op kinds and the sizes of both multisets. A nil plan has no ops.
func OpOverlap(pred, gold *kgqa.Plan) (overlap, npred, ngold int) {
	count := func(p *kgqa.Plan) map[kgqa.Op]int {
		m := map[kgqa.Op]int{}
		if p != nil {
			for _, s := range p.Subgoals {
				m[s.Op]++
			}
		}
		return m
	}
	cp, cg := count(pred), count(gold)
	for op, n := range cp {
		overlap += min(n, cg[op])
		npred += n
	}
	for _, n := range cg {
		ngold += n
	}
	return overlap, npred, ngold
}

// F1 is the harmonic mean of precision overlap/npred and recall
// overlap/ngold; it is 0 when either side is empty or nothing overlaps.
func F1(overlap, npred, ngold int) float64 {
	if overlap == 0 || npred == 0 || ngold == 0 {
		return 0
	}
	p := float64(overlap) / float64(npred)
	r := float64(overlap) / float64(ngold)
	return 2 * p * r / (p + r)
}

// OpF1 is the F1 of the op-kind multisets of a predicted and a gold plan:
// a plan with the right operations in the wrong shape still scores, a nil
// (invalid) prediction scores 0.
func OpF1(pred, gold *kgqa.Plan) float64 {
	return F1(OpOverlap(pred, gold))
}

// planGraph is a plan as a labelled DAG: node i is subgoal i, labelled by
// its op and whether it answers the question; edges go from a subgoal to
// the subgoals it needs.
type planGraph struct {
	label []string
	out   []map[int]bool
	in    []int
}

func graphOf(p *kgqa.Plan) planGraph {
	n := len(p.Subgoals)
	g := planGraph{label: make([]string, n), out: make([]map[int]bool, n), in: make([]int, n)}
	index := make(map[string]int, n)
	for i, s := range p.Subgoals {
		index[s.ID] = i
	}
	answer := p.AnswerID()
	for i, s := range p.Subgoals {
		g.label[i] = string(s.Op)
		if s.ID == answer {
			g.label[i] += "*"
		}
		g.out[i] = map[int]bool{}
		for _, need := range s.Needs {
			if j, ok := index[need]; ok && !g.out[i][j] {
				g.out[i][j] = true
				g.in[j]++
			}
		}
	}
	return g
}

// SameGraph reports whether two plans have the same dependency graph up
// to a renaming of subgoal ids: a bijection between subgoals that keeps
// every op, the answer subgoal, and every "needs" edge in both directions.
// Texts, argument values and subgoal order do not matter. Either plan
// being nil gives false.
func SameGraph(a, b *kgqa.Plan) bool {
	if a == nil || b == nil || len(a.Subgoals) != len(b.Subgoals) {
		return false
	}
	ga, gb := graphOf(a), graphOf(b)
	n := len(ga.label)
	sig := func(g planGraph, i int) [3]any { return [3]any{g.label[i], len(g.out[i]), g.in[i]} }
	// Node signatures must agree as multisets before any search.
	bag := map[[3]any]int{}
	for i := 0; i < n; i++ {
		bag[sig(ga, i)]++
		bag[sig(gb, i)]--
	}
	for _, c := range bag {
		if c != 0 {
			return false
		}
	}
	m := make([]int, n) // m[i] is the node of b that node i of a maps to
	used := make([]bool, n)
	var try func(i int) bool
	try = func(i int) bool {
		if i == n {
			return true
		}
		for j := 0; j < n; j++ {
			if used[j] || sig(ga, i) != sig(gb, j) || !consistent(ga, gb, m, i, j) {
				continue
			}
			m[i], used[j] = j, true
			if try(i + 1) {
				return true
			}
			used[j] = false
		}
		return false
	}
	return try(0)
}

// consistent reports whether mapping a's node i to b's node j agrees with
// the edges between i and the already mapped nodes 0..i-1.
func consistent(ga, gb planGraph, m []int, i, j int) bool {
	for k := 0; k < i; k++ {
		if ga.out[i][k] != gb.out[j][m[k]] || ga.out[k][i] != gb.out[m[k]][j] {
			return false
		}
	}
	return true
}
