package lqt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/prompts"
)

// Atom is one atomic query as the model lists it.
type Atom struct {
	// Text is the query; "#k" names the result of query k (from 1).
	Text string `json:"text"`
	// Op is its operation kind.
	Op kgqa.Op `json:"op"`
	// Args holds a compare or superlative query's constraint.
	Args *kgqa.Args `json:"args,omitempty"`
}

// Planner plans questions as logical query trees. It implements
// kgqa.Planner. Safe for concurrent use; its cache of unrelated pairs is
// shared by every question it plans.
type Planner struct {
	tmpl  *prompts.Set
	chat  kgqa.Chatter
	cfg   config.LQT
	sim   Similarity
	cache *PairCache
}

var _ engine.Planner = (*Planner)(nil)

// Option configures a Planner.
type Option func(*Planner)

// WithPrompts makes the planner render its prompts with set (prompts.dir)
// rather than the built-in templates.
func WithPrompts(set *prompts.Set) Option {
	return func(p *Planner) {
		if set != nil {
			p.tmpl = set
		}
	}
}

// WithSimilarity sets where Sim comes from (default Lexical).
func WithSimilarity(s Similarity) Option { return func(p *Planner) { p.sim = s } }

// WithCache makes the planner share c with others (default: a cache of
// cfg.CacheSize pairs of its own).
func WithCache(c *PairCache) Option { return func(p *Planner) { p.cache = c } }

// New returns a planner that asks chat (the planner role when it has one,
// else the reasoner). Zero fields of cfg take config.Default's values.
func New(chat kgqa.Chatter, cfg config.LQT, opts ...Option) *Planner {
	d := config.Default().Planner.LQT
	if cfg.MaxExact <= 0 {
		cfg.MaxExact = d.MaxExact
	}
	if cfg.MaxAtoms <= 0 {
		cfg.MaxAtoms = d.MaxAtoms
	}
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = d.Parallelism
	}
	p := &Planner{tmpl: prompts.Builtin, chat: chat, cfg: cfg, sim: Lexical{}}
	for _, o := range opts {
		o(p)
	}
	if p.cache == nil {
		p.cache = NewPairCache(cfg.CacheSize)
	}
	return p
}

// FromConfig returns the engine option planner.mode selects: the LQT
// planner for mode lqt, taking Sim from embedder's vectors when it is not
// nil (the client of llm.embeddings) and from lexical cosine otherwise,
// and an option that changes nothing for mode parog.
func FromConfig(cfg config.Planner, chat kgqa.Chatter, embedder llm.Embedder, set *prompts.Set) engine.Option {
	if cfg.Mode != "lqt" {
		return func(*engine.Engine) {}
	}
	opts := []Option{WithPrompts(set)}
	if embedder != nil {
		opts = append(opts, WithSimilarity(NewEmbeddings(embedder)))
	}
	return engine.WithPlanner(New(chat, cfg.LQT, opts...))
}

func (p *Planner) role() kgqa.Role {
	if p.chat.Has(kgqa.Planner) {
		return kgqa.Planner
	}
	return kgqa.Reasoner
}

// Plan lists the question's atomic queries, relates every pair not known
// unrelated, chooses the tree and returns it as the engine's plan.
func (p *Planner) Plan(ctx context.Context, question string) (*kgqa.Plan, kgqa.PlanInfo, error) {
	info := kgqa.PlanInfo{Source: engine.PlanSourceLQT}
	atoms, err := p.atoms(ctx, question)
	if err != nil {
		return nil, info, err
	}
	ti := &kgqa.TreeInfo{Atoms: len(atoms), Pairs: len(atoms) * (len(atoms) - 1) / 2, Labels: map[string]int{}}
	info.Tree = ti
	texts := make([]string, len(atoms))
	for i, a := range atoms {
		texts[i] = a.Text
	}
	labels, err := p.relate(ctx, question, texts, ti)
	if err != nil {
		return nil, info, err
	}
	// Sim compares each candidate tree's composed text with the question,
	// once per (subset, root) entry of the dynamic programme: lexical
	// cosine there, since one embeddings call per entry is too many.
	m := Model{Texts: texts, Alpha: p.cfg.Alpha, Sim: Lexical{}.To(question)}
	ti.Similarity = Lexical{}.Name()
	if name := p.sim.Name(); name != ti.Similarity {
		ti.Note = joinNote(ti.Note, fmt.Sprintf("similarity from lexical cosine with the question: %s is not called per candidate tree", name))
	}
	start := time.Now()
	tree, err := p.choose(labels, m)
	if err != nil {
		return nil, info, err
	}
	ti.PlanMS = float64(time.Since(start).Microseconds()) / 1000
	if len(atoms) > p.cfg.MaxExact {
		ti.Note = joinNote(ti.Note, fmt.Sprintf("%d atomic queries, more than planner.lqt.max_exact %d: the tree comes from a greedy merge, not the dynamic programme over subsets", len(atoms), p.cfg.MaxExact))
	}
	if p.cfg.ContextMerge {
		if tree, err = p.confirmMerges(ctx, question, texts, labels, m, tree, ti); err != nil {
			return nil, info, err
		}
	}
	ti.Method, ti.Cost, ti.Depth, ti.Balance, ti.Sim, ti.Roots = tree.Method, tree.Cost, tree.Depth, tree.Balance, tree.Sim, len(tree.Roots())
	plan, added, err := ToPlan(atoms, tree)
	if err != nil {
		return nil, info, err
	}
	ti.RefNeeds = added
	info.Kinds = plan.Kinds()
	return plan, info, nil
}

// choose picks the tree over the labels: by the dynamic programme up to
// planner.lqt.max_exact queries, by the greedy merge above.
func (p *Planner) choose(labels *Labels, m Model) (Tree, error) {
	if labels.Len() <= p.cfg.MaxExact {
		return DP(labels, m)
	}
	return Greedy(labels, m), nil
}

// opNames are the operation kinds the lqt_atoms prompt lists.
var opNames = func() []string {
	ops := make([]string, len(kgqa.Ops))
	for i, o := range kgqa.Ops {
		ops[i] = string(o)
	}
	return ops
}()

type atomsReply struct {
	Reason  string `json:"reason"`
	Queries []Atom `json:"queries"`
}

// atoms asks for the atomic queries; they must make a valid flat plan
// (known ops, consistent args) and refer only to other queries.
func (p *Planner) atoms(ctx context.Context, question string) ([]Atom, error) {
	req, err := p.tmpl.Request(p.role(), prompts.LQTAtoms, prompts.LQTAtomsData{Question: question, Ops: opNames})
	if err != nil {
		return nil, err
	}
	var rep atomsReply
	check := func() error {
		n := len(rep.Queries)
		if n == 0 || n > p.cfg.MaxAtoms {
			return fmt.Errorf("%d atomic queries, want 1 to %d", n, p.cfg.MaxAtoms)
		}
		// The queries with their references as needs must make a valid
		// plan: known ops, consistent args, an intersection of two
		// results naming both.
		flat := kgqa.Plan{Version: kgqa.PlanVersion}
		for i, a := range rep.Queries {
			s := kgqa.Subgoal{ID: atomID(i), Text: a.Text, Op: a.Op, Args: a.Args}
			for _, k := range refs(a.Text) {
				if k < 1 || k > n || k == i+1 {
					return fmt.Errorf("query %d refers to #%d: a reference names another of the %d queries", i+1, k, n)
				}
				s.Needs = append(s.Needs, atomID(k-1))
			}
			flat.Subgoals = append(flat.Subgoals, s)
		}
		return flat.Validate()
	}
	if _, err := p.chat.JSON(ctx, req, &rep, check); err != nil {
		return nil, err
	}
	return rep.Queries, nil
}

type relationReply struct {
	Reason   string `json:"reason"`
	Relation string `json:"relation"`
	Parent   string `json:"parent"`
}

// relate labels every pair of the atomic queries' texts: from the cache
// when known unrelated, else by one call, at most cfg.Parallelism at once.
// A pair whose reply stays unreadable after the repair turn counts as
// unrelated (not cached).
func (p *Planner) relate(ctx context.Context, question string, texts []string, ti *kgqa.TreeInfo) (*Labels, error) {
	n := len(texts)
	shown := make([]string, n)
	for i := range texts {
		shown[i] = prompts.ExpandRefs(texts, i)
	}
	type pair struct{ a, b int }
	var ask []pair
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if p.cache.Unrelated(shown[a], shown[b]) {
				ti.CachedUnrelated++
				continue
			}
			ask = append(ask, pair{a, b})
		}
	}
	ti.PairCalls = len(ask)
	replies := make([]relationReply, len(ask))
	failed := make([]bool, len(ask))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.cfg.Parallelism)
	for i, pr := range ask {
		g.Go(func() error {
			req, err := p.tmpl.Request(p.role(), prompts.LQTRelation, prompts.LQTRelationData{Question: question, A: shown[pr.a], B: shown[pr.b]})
			if err != nil {
				return err
			}
			rep := &replies[i]
			check := func() error {
				switch rep.Relation {
				case "unrelated", "sibling":
				case "parent_child":
					if rep.Parent != "A" && rep.Parent != "B" {
						return fmt.Errorf(`relation parent_child needs parent "A" or "B", got %q`, rep.Parent)
					}
				default:
					return fmt.Errorf("relation %q is not unrelated, sibling or parent_child", rep.Relation)
				}
				return nil
			}
			_, err = p.chat.JSON(gctx, req, rep, check)
			var se *kgqa.SchemaError
			if errors.As(err, &se) {
				failed[i] = true
				return nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	labels := NewLabels(n)
	for i, pr := range ask {
		rep := replies[i]
		switch {
		case failed[i]:
			ti.FailedPairs++
		case rep.Relation == "sibling":
			labels.SetSibling(pr.a, pr.b)
		case rep.Relation == "parent_child" && rep.Parent == "A":
			labels.SetParent(pr.a, pr.b)
		case rep.Relation == "parent_child":
			labels.SetParent(pr.b, pr.a)
		default:
			p.cache.AddUnrelated(shown[pr.a], shown[pr.b])
		}
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			ti.Labels[labels.Relation(a, b).String()]++
		}
	}
	return labels, nil
}

func atomID(i int) string { return "s" + strconv.Itoa(i+1) }

// refs are the query numbers a text refers to with "#k".
func refs(text string) []int {
	var out []int
	for i := 0; i < len(text); i++ {
		if text[i] != '#' {
			continue
		}
		j := i + 1
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		if k, err := strconv.Atoi(text[i+1 : j]); err == nil && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// ToPlan turns the tree into the engine's plan: query i is subgoal
// "s<i+1>" (so that "#k" keeps naming subgoal sk) and needs its children
// in the tree. The subgoals are listed children first, so the engine runs
// the tree bottom-up, independent subtrees in parallel. A query that
// names "#k" while k is not below it in the tree also needs k, unless that
// would make a cycle: its text cannot be answered without k's result.
// The answer is the subgoal that no other needs and that rests on the most
// others (the root of the largest tree), the last one on a tie.
//
// It also returns how many needs the references added.
func ToPlan(atoms []Atom, t Tree) (*kgqa.Plan, int, error) {
	n := len(atoms)
	if len(t.Parent) != n {
		return nil, 0, fmt.Errorf("lqt: a tree of %d queries for %d atomic queries", len(t.Parent), n)
	}
	needs := make(needGraph, n)
	for c, p := range t.Parent {
		if p >= 0 {
			needs[p] = append(needs[p], c)
		}
	}
	added := 0
	for i, a := range atoms {
		for _, k := range refs(a.Text) {
			if j := k - 1; j >= 0 && j < n && j != i && !needs.dependsOn(i, j) && !needs.dependsOn(j, i) {
				needs[i] = append(needs[i], j)
				added++
			}
		}
	}
	order, err := needs.childrenFirst()
	if err != nil {
		return nil, 0, err
	}
	plan := &kgqa.Plan{Version: kgqa.PlanVersion, Answer: atomID(needs.answer())}
	for _, i := range order {
		s := kgqa.Subgoal{ID: atomID(i), Text: atoms[i].Text, Op: atoms[i].Op, Args: atoms[i].Args}
		slices.Sort(needs[i])
		for _, j := range needs[i] {
			s.Needs = append(s.Needs, atomID(j))
		}
		plan.Subgoals = append(plan.Subgoals, s)
	}
	if err := plan.Validate(); err != nil {
		return nil, 0, err
	}
	return plan, added, nil
}

// needGraph lists, for each atomic query, the queries it needs.
type needGraph [][]int

// dependsOn reports whether a needs b, directly or not.
func (g needGraph) dependsOn(a, b int) bool {
	seen := make([]bool, len(g))
	stack := []int{a}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == b {
			return true
		}
		if !seen[x] {
			seen[x] = true
			stack = append(stack, g[x]...)
		}
	}
	return false
}

// childrenFirst orders the queries so that each comes after those it
// needs (Kahn's order, lowest index first).
func (g needGraph) childrenFirst() ([]int, error) {
	n := len(g)
	indeg := make([]int, n)
	for i := range g {
		indeg[i] = len(g[i])
	}
	var order []int
	done := make([]bool, n)
	for len(order) < n {
		next := -1
		for i := 0; i < n; i++ {
			if !done[i] && indeg[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, errors.New("lqt: the plan's dependencies have a cycle")
		}
		done[next] = true
		order = append(order, next)
		for i := range g {
			if slices.Contains(g[i], next) {
				indeg[i]--
			}
		}
	}
	return order, nil
}

// answer is the plan's answer: of the queries no other needs, the one
// resting on the most others (the root of the largest tree, references
// counted), the last on a tie.
func (g needGraph) answer() int {
	n := len(g)
	needed := make([]bool, n)
	for i := range g {
		for _, j := range g[i] {
			needed[j] = true
		}
	}
	answer, best := -1, -1
	for i := 0; i < n; i++ {
		if needed[i] {
			continue
		}
		below := 0
		for j := 0; j < n; j++ {
			if j != i && g.dependsOn(i, j) {
				below++
			}
		}
		if below >= best {
			answer, best = i, below
		}
	}
	return answer
}

// joinNote appends note to the notes in notes.
func joinNote(notes, note string) string {
	if notes == "" {
		return note
	}
	return notes + "; " + note
}
