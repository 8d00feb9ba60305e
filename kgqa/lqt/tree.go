package lqt

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Relation is how two atomic queries relate.
type Relation uint8

// The relations relation preprocessing tells apart.
const (
	// Unrelated queries never merge.
	Unrelated Relation = iota
	// Sibling queries are both used by one later query.
	Sibling
	// ParentChild means one query uses the other's result.
	ParentChild
)

// String is the label used in prompts and traces.
func (r Relation) String() string {
	switch r {
	case Sibling:
		return "sibling"
	case ParentChild:
		return "parent_child"
	}
	return "unrelated"
}

// Labels holds the relation of every pair of n atomic queries; pairs not
// set are unrelated.
type Labels struct {
	n      int
	rel    []Relation
	parent []bool // parent[p*n+c]: p uses c's result
}

// NewLabels returns the labels of n queries, all unrelated.
func NewLabels(n int) *Labels {
	return &Labels{n: n, rel: make([]Relation, n*n), parent: make([]bool, n*n)}
}

// Len is the number of queries.
func (l *Labels) Len() int { return l.n }

// SetUnrelated marks a and b unrelated.
func (l *Labels) SetUnrelated(a, b int) { l.set(a, b, Unrelated) }

// SetSibling marks a and b siblings.
func (l *Labels) SetSibling(a, b int) { l.set(a, b, Sibling) }

// SetParent marks p the parent of c: p uses c's result.
func (l *Labels) SetParent(p, c int) {
	l.set(p, c, ParentChild)
	l.parent[p*l.n+c] = true
}

func (l *Labels) set(a, b int, r Relation) {
	l.rel[a*l.n+b], l.rel[b*l.n+a] = r, r
	l.parent[a*l.n+b], l.parent[b*l.n+a] = false, false
}

// Relation is the relation of a and b.
func (l *Labels) Relation(a, b int) Relation { return l.rel[a*l.n+b] }

// IsParent reports whether p is labelled the parent of c.
func (l *Labels) IsParent(p, c int) bool { return l.parent[p*l.n+c] }

// Tree is a chosen logical query tree (a forest when the labels connect
// no single tree).
type Tree struct {
	// Parent[i] is query i's parent, -1 for a root.
	Parent []int
	// Depth, Balance and Sim are the parts of Cost (see the package doc).
	Depth   int
	Balance int
	Sim     float64
	// Cost is -(|V| + |E| - Depth - Balance + alpha*Sim).
	Cost float64
	// Method is "dp" or "greedy".
	Method string
}

// Children returns i's children in index order.
func (t *Tree) Children(i int) []int {
	var out []int
	for c, p := range t.Parent {
		if p == i {
			out = append(out, c)
		}
	}
	return out
}

// Roots returns the roots in index order.
func (t *Tree) Roots() []int {
	var out []int
	for i, p := range t.Parent {
		if p < 0 {
			out = append(out, i)
		}
	}
	return out
}

// Model is what the cost reads besides the tree: the queries' texts, how
// alike a tree's text is to the question, and its weight.
type Model struct {
	// Texts are the atomic queries; "#k" names the result of query k
	// (from 1). Nil leaves every tree's text empty.
	Texts []string
	// Sim scores a tree's composed text (see Compose) against the
	// question, in [0, 1]. Nil scores 0.
	Sim func(text string) float64
	// Alpha weighs Sim in the cost.
	Alpha float64
}

func (m Model) text(i int) string {
	if m.Texts == nil {
		return ""
	}
	return m.Texts[i]
}

func (m Model) sim(text string) float64 {
	if m.Sim == nil {
		return 0
	}
	return max(0, min(1, m.Sim(text)))
}

// Compose returns text with every "#k" reference to query k (from 1)
// replaced by sub, the composed text of k's subtree, in brackets: "[sub]".
// References inside brackets belong to a subtree already composed and are
// left alone, so children can be composed one at a time; "#12" is not
// "#1".
func Compose(text string, k int, sub string) string {
	ref := "#" + strconv.Itoa(k)
	var b strings.Builder
	depth := 0
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; {
		case ch == '[':
			depth++
		case ch == ']' && depth > 0:
			depth--
		case ch == '#' && depth == 0 && strings.HasPrefix(text[i:], ref):
			end := i + len(ref)
			if end == len(text) || text[end] < '0' || text[end] > '9' {
				b.WriteString("[" + sub + "]")
				i = end - 1
				continue
			}
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// Text is the composed text of the tree under root: root's query with
// each "#k" naming one of its children replaced by that child's composed
// text. References to queries that are not its children stay as written.
func Text(parent []int, texts []string, root int) string {
	out := texts[root]
	for c, p := range parent {
		if p == root {
			out = Compose(out, c+1, Text(parent, texts, c))
		}
	}
	return out
}

// Evaluate computes the cost of the forest given by parent (-1 for a
// root) from the definition: it is how the greedy merge scores, and the
// reference the tests hold the dynamic programme to. It fails when parent
// has a cycle or an index out of range.
func Evaluate(parent []int, m Model) (Tree, error) {
	n := len(parent)
	t := Tree{Parent: append([]int(nil), parent...)}
	for c, p := range parent {
		if p < -1 || p >= n || p == c {
			return t, fmt.Errorf("lqt: query %d: parent %d out of range", c, p)
		}
	}
	edges := 0
	for c, p := range parent {
		if p >= 0 {
			edges++
		}
		// Walk up at most n steps: more means a cycle.
		for x, steps := p, 0; x >= 0; x, steps = parent[x], steps+1 {
			if x == c || steps > n {
				return t, fmt.Errorf("lqt: query %d is its own ancestor", c)
			}
		}
	}
	height := make([]int, n)
	done := make([]bool, n)
	var h func(i int) int
	h = func(i int) int {
		if done[i] {
			return height[i]
		}
		lo, hi, kids := math.MaxInt, -1, 0
		for c, p := range parent {
			if p == i {
				kids++
				hc := h(c)
				lo, hi = min(lo, hc), max(hi, hc)
			}
		}
		if kids > 0 {
			height[i] = hi + 1
			t.Balance += hi - lo
		}
		done[i] = true
		return height[i]
	}
	for i, p := range parent {
		if p < 0 {
			t.Depth += h(i)
			if m.Texts != nil {
				t.Sim += m.sim(Text(parent, m.Texts, i))
			} else {
				t.Sim += m.sim("")
			}
		}
	}
	t.Cost = -(float64(n+edges) - float64(t.Depth) - float64(t.Balance) + m.Alpha*t.Sim)
	return t, nil
}

// entry is the best tree over a subset with a given root.
type entry struct {
	ok           bool
	score        float64 // -Depth - Balance + alpha*Sim
	height       int
	balance      int
	sim          float64
	minCH, maxCH int    // heights of the root's child subtrees
	kids         uint32 // the root's children
	child        int8   // root of the subtree attached last; -1 for a single query
	childSet     uint32 // the queries of that subtree
	text         string // the tree's composed text
}

// MaxDP is the most queries the dynamic programme accepts.
const MaxDP = 16

// DP chooses the tree over l's queries by the dynamic programme over
// subsets (see the package doc), or the greedy merge's tree when that one
// has fewer trees or costs less (Method "dp+greedy"): keeping one partial
// tree per (subset, root) can lose a merge the labels allow. It fails
// above MaxDP queries.
func DP(l *Labels, m Model) (Tree, error) {
	t, err := dp(l, m)
	if err != nil {
		return t, err
	}
	g := Greedy(l, m)
	if gt, dt := len(g.Roots()), len(t.Roots()); gt < dt || (gt == dt && g.Cost < t.Cost-1e-9) {
		g.Method = "dp+greedy"
		return g, nil
	}
	return t, nil
}

// dp is the dynamic programme alone.
func dp(l *Labels, m Model) (Tree, error) {
	n := l.n
	if n == 0 || n > MaxDP {
		return Tree{}, fmt.Errorf("lqt: dynamic programme over %d queries: want 1 to %d", n, MaxDP)
	}
	full := uint32(1)<<n - 1
	best := make([]entry, (int(full)+1)*n)
	at := func(s uint32, r int) *entry { return &best[int(s)*n+r] }
	for s := uint32(1); s <= full; s++ {
		for r := 0; r < n; r++ {
			if s&(1<<r) == 0 {
				continue
			}
			if s == 1<<r {
				text := m.text(r)
				sim := m.sim(text)
				*at(s, r) = entry{ok: true, child: -1, text: text, sim: sim, score: m.Alpha * sim}
				continue
			}
			rem := s &^ (1 << r)
			low := rem & -rem
			e := at(s, r)
			others := rem &^ low
			// Every submask of others, with low added: the child subtree
			// holding the lowest query.
			for sub := others; ; sub = (sub - 1) & others {
				cs := sub | low
				rest := at(s&^cs, r)
				if rest.ok {
					attach(l, m, e, rest, cs, func(c int) *entry { return at(cs, c) }, r)
				}
				if sub == 0 {
					break
				}
			}
		}
	}
	// The best forest over every subset: the tree holding the subset's
	// lowest query, and the best forest over the rest. Fewer trees win
	// first, then the score.
	type forestBest struct {
		trees int
		score float64
		pick  uint32
		root  int8
	}
	forest := make([]forestBest, full+1)
	for s := uint32(1); s <= full; s++ {
		f := &forest[s]
		f.trees = n + 1
		low := s & -s
		others := s &^ low
		for sub := others; ; sub = (sub - 1) & others {
			ts := sub | low
			rest := forest[s&^ts]
			size := float64(2*bits.OnesCount32(ts) - 1)
			for set := ts; set != 0; set &= set - 1 {
				r := bits.TrailingZeros32(set)
				e := at(ts, r)
				if !e.ok {
					continue
				}
				trees, v := rest.trees+1, size+e.score+rest.score
				if trees < f.trees || (trees == f.trees && v > f.score) {
					f.trees, f.score, f.pick, f.root = trees, v, ts, int8(r)
				}
			}
			if sub == 0 {
				break
			}
		}
	}
	parent := make([]int, n)
	for i := range parent {
		parent[i] = -1
	}
	var build func(s uint32, r int)
	build = func(s uint32, r int) {
		for e := at(s, r); e.child >= 0; e = at(s, r) {
			parent[e.child] = r
			build(e.childSet, int(e.child))
			s &^= e.childSet
		}
	}
	for s := full; s != 0; s &^= forest[s].pick {
		build(forest[s].pick, int(forest[s].root))
	}
	t, err := Evaluate(parent, m)
	t.Method = "dp"
	return t, err
}

// attach tries every root c of the subtree over cs as a child of r on top
// of rest, keeping the best in e.
func attach(l *Labels, m Model, e, rest *entry, cs uint32, sub func(int) *entry, r int) {
	for set := cs; set != 0; set &= set - 1 {
		c := bits.TrailingZeros32(set)
		ce := sub(c)
		if !ce.ok || !l.IsParent(r, c) || !siblings(l, rest.kids, c) {
			continue
		}
		lo, hi := ce.height, ce.height
		oldLocal := 0
		if rest.kids != 0 {
			lo, hi = min(lo, rest.minCH), max(hi, rest.maxCH)
			oldLocal = rest.maxCH - rest.minCH
		}
		text := Compose(rest.text, c+1, ce.text)
		cand := entry{ok: true, height: max(rest.height, ce.height+1),
			balance: rest.balance + ce.balance - oldLocal + (hi - lo),
			sim:     m.sim(text), minCH: lo, maxCH: hi, text: text,
			kids: rest.kids | 1<<c, child: int8(c), childSet: cs}
		cand.score = -float64(cand.height) - float64(cand.balance) + m.Alpha*cand.sim
		if !e.ok || cand.score > e.score {
			*e = cand
		}
	}
}

// siblings reports whether c is labelled a sibling of every query in kids.
func siblings(l *Labels, kids uint32, c int) bool {
	for set := kids; set != 0; set &= set - 1 {
		if l.Relation(bits.TrailingZeros32(set), c) != Sibling {
			return false
		}
	}
	return true
}

// Greedy builds the tree by merging: starting from every query alone, it
// attaches, one at a time, the root whose attachment under a node of
// another tree leaves the cheapest forest, as long as any attachment is
// allowed (the same context-aware rule as the dynamic programme). A root
// is never attached inside its own tree, so no cycle forms.
func Greedy(l *Labels, m Model) Tree {
	n := l.n
	parent := make([]int, n)
	for i := range parent {
		parent[i] = -1
	}
	rootOf := func(i int) int {
		for parent[i] >= 0 {
			i = parent[i]
		}
		return i
	}
	kids := func(p int) []int {
		var out []int
		for c, q := range parent {
			if q == p {
				out = append(out, c)
			}
		}
		return out
	}
	for {
		bestP, bestC, bestCost := -1, -1, math.Inf(1)
		for c := 0; c < n; c++ {
			if parent[c] >= 0 {
				continue
			}
			for p := 0; p < n; p++ {
				if p == c || !l.IsParent(p, c) || rootOf(p) == c {
					continue
				}
				ok := true
				for _, k := range kids(p) {
					if l.Relation(k, c) != Sibling {
						ok = false
						break
					}
				}
				if !ok {
					continue
				}
				parent[c] = p
				t, err := Evaluate(parent, m)
				parent[c] = -1
				if err == nil && t.Cost < bestCost {
					bestP, bestC, bestCost = p, c, t.Cost
				}
			}
		}
		if bestC < 0 {
			break
		}
		parent[bestC] = bestP
	}
	t, _ := Evaluate(parent, m) // acyclic by construction
	t.Method = "greedy"
	return t
}
