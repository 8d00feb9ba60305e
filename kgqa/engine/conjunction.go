package engine

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// Execution orders of a conjunction's branches (engine.ordering).
const (
	// OrderingCost runs the branch the KG's statistics estimate smallest
	// first and checks the other branches' relations against its
	// candidates instead of exploring them (Selinger's idea: the most
	// selective access path first, the rest as filters).
	OrderingCost = "cost"
	// OrderingPlan explores every branch in full, in plan order (in
	// parallel when the budgets allow).
	OrderingPlan = "plan"
)

// Branch roles.
const (
	roleExplored = "explored"
	roleVerified = "verified"
)

// orderBranches decides, with engine.ordering cost, the order of the
// branches of every intersect whose branches are finds from topic
// entities that nothing else needs: the branch with the smallest
// estimate runs first, and each other branch waits for it and checks its
// candidates. It records the decision in the intersect's trace.
func (r *run) orderBranches(ctx context.Context, plan *kgqa.Plan) error {
	r.verifyAgainst, r.after, r.branchOf = map[string]string{}, map[string][]string{}, map[string]*kgqa.BranchOrder{}
	if r.b.Ordering != OrderingCost {
		return nil
	}
	byID := map[string]kgqa.Subgoal{}
	consumers := map[string]int{}
	for _, s := range plan.Subgoals {
		byID[s.ID] = s
		for _, n := range s.Needs {
			consumers[n]++
		}
	}
	needed := plan.Ancestors(plan.AnswerID())
	for _, s := range plan.Subgoals {
		if s.Op != kgqa.OpIntersect || !needed[s.ID] {
			continue
		}
		var branches []kgqa.Subgoal
		for _, n := range s.Needs {
			b := byID[n]
			if b.Op == kgqa.OpFind && len(b.Needs) == 0 && consumers[n] == 1 && n != plan.AnswerID() {
				branches = append(branches, b)
			}
		}
		if len(branches) < 2 {
			continue
		}
		ord := &kgqa.Ordering{Method: OrderingCost}
		for _, b := range branches {
			est, rel, err := r.estimate(ctx, b)
			if err != nil {
				return stepErr("plan", b.ID, err)
			}
			ord.Branches = append(ord.Branches, kgqa.BranchOrder{Subgoal: b.ID, Relation: rel, Estimated: est, Actual: -1, Role: roleVerified})
		}
		// Unknown estimates go last; ties keep plan order.
		slices.SortStableFunc(ord.Branches, func(a, b kgqa.BranchOrder) int {
			return cmp.Compare(unknownLast(a.Estimated), unknownLast(b.Estimated))
		})
		if ord.Branches[0].Estimated < 0 {
			ord.Method, ord.Note = OrderingPlan, "no branch's words match a relation of its anchors: nothing to estimate"
			for i := range ord.Branches {
				ord.Branches[i].Role = roleExplored
			}
			r.records[s.ID].Ordering = ord
			continue
		}
		first := ord.Branches[0].Subgoal
		ord.Branches[0].Role = roleExplored
		for _, b := range ord.Branches[1:] {
			r.verifyAgainst[b.Subgoal] = first
			r.after[b.Subgoal] = append(r.after[b.Subgoal], first)
			if p := r.records[b.Subgoal].Retrieval; p != nil {
				// The check needs no parametric guess.
				p.Tentative, p.Reasons[retrieval.ParamTentative] = false, "verified_branch"
			}
		}
		for i := range ord.Branches {
			r.branchOf[ord.Branches[i].Subgoal] = &ord.Branches[i]
		}
		r.records[s.ID].Ordering = ord
		if r.ans.RetrievalPlan != nil {
			r.ans.RetrievalPlan.Reasons["ordering"] = "most_selective_branch_first"
		}
	}
	return nil
}

func unknownLast(n int) int {
	if n < 0 {
		return math.MaxInt
	}
	return n
}

// fewRelations is the most relations of an anchor whose counts are all
// read when none matches the subgoal's words.
const fewRelations = 4

// estimate sums, over the anchors of a root find, the KG's count of terms
// along the relations the branch is likely to follow: those whose readable
// form shares most words with the subgoal (the relations exploration
// offers first), or, when none shares a word and the anchor has at most
// fewRelations, all of them (an upper bound). It returns -1 when an anchor
// gives nothing to count.
func (r *run) estimate(ctx context.Context, s kgqa.Subgoal) (int, *kgqa.Relation, error) {
	d := r.e.g.Dialect()
	q := tokens(s.Text)
	total := 0
	var first *kgqa.Relation
	for _, a := range rootAnchors(s.Text, r.topicList) {
		rels, err := r.e.g.Relations(ctx, a.ID)
		if err != nil {
			return 0, nil, err
		}
		var likely []kgqa.Relation
		bestScore := 0.0
		for _, rel := range rels {
			switch sc := overlap(q, tokens(d.Readable(rel.ID))); {
			case sc > bestScore:
				likely, bestScore = []kgqa.Relation{rel}, sc
			case sc == bestScore && sc > 0:
				likely = append(likely, rel)
			}
		}
		if bestScore == 0 && len(rels) <= fewRelations {
			likely = rels
		}
		if len(likely) == 0 {
			return -1, nil, nil
		}
		for _, rel := range likely {
			n, err := r.e.g.Count(ctx, a.ID, rel)
			if err != nil {
				return 0, nil, err
			}
			total += n
		}
		if first == nil {
			first = &likely[0]
		}
	}
	if first == nil {
		return -1, nil, nil
	}
	return total, first, nil
}

// recordActual sets a branch's actual cardinality once it has run.
func (r *run) recordActual(id string, res kgqa.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.branchOf[id]; b != nil {
		b.Actual = len(res.Entities)
	}
}

// verify runs a branch of a conjunction as a check of the candidates of
// the branch that ran first: the model chooses the branch's relations as
// in exploration, and the KG answers which candidates they reach, with no
// tentative answer, neighbour list or refinement. ok is false when the
// check settles nothing (no relation to check, or no candidate passed), so
// the branch is explored in full instead.
func (sg *subgoalRun) verify(ctx context.Context, against string) (res kgqa.Result, end int, ok bool, err error) {
	sg.mu.Lock()
	first := sg.results[against]
	sg.mu.Unlock()
	v := &kgqa.Verification{Against: against}
	sg.rec.Verification = v
	var cands []kgqa.Term
	var ids []string
	capped := false
	if first != nil {
		capped = first.Capped
		for _, t := range first.Entities {
			if t.IsEntity() {
				cands, ids = append(cands, t), append(ids, t.ID)
			}
		}
	}
	v.Candidates = len(cands)
	text := sg.text()
	anchors := sg.anchors()
	sg.rec.Anchors = anchors
	sg.emit.send(kgqa.Event{Type: kgqa.EventSubgoalStarted, Subgoal: sg.s.ID, Anchors: topicsOf(anchors)})
	if len(cands) == 0 {
		// Nothing to intersect with: the conjunction is empty whatever
		// this branch holds.
		return kgqa.Result{Text: "", Entities: []kgqa.Term{}, Source: "verified", Capped: capped}, sg.d0, true, nil
	}
	x := newExplorer(sg, text)
	rd, has, end, err := x.pick(ctx, anchors, 0, sg.d0)
	sg.rec.Rounds = append(sg.rec.Rounds, rd)
	if err != nil {
		return kgqa.Result{}, end, false, err
	}
	v.Relations = rd.Chosen
	reached := map[string]bool{}
	for _, rel := range rd.Chosen {
		for _, a := range has[rel] {
			got, err := sg.e.g.Linked(ctx, a.ID, rel, ids)
			if err != nil {
				return kgqa.Result{}, end, false, stepErr("explore", sg.s.ID, err)
			}
			for _, id := range got {
				reached[id] = true
			}
		}
	}
	kept := []kgqa.Term{}
	for _, t := range cands {
		if reached[t.ID] {
			kept = append(kept, t)
		}
	}
	v.Kept = len(kept)
	if len(kept) == 0 {
		v.Fallback = true
		return kgqa.Result{}, end, false, nil
	}
	rc := *rd
	sg.emit.send(kgqa.Event{Type: kgqa.EventExploration, Subgoal: sg.s.ID, Round: &rc})
	return kgqa.Result{Text: names(kept), Entities: kept, Source: "verified", Capped: capped}, end, true, nil
}
