package engine

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/retrieval"
	"golang.org/x/sync/errgroup"
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
// branches of every intersect. When one branch follows an earlier
// subgoal, that one runs first (checkAgainstFollowing). When two or more
// are finds from topic entities that nothing else needs, the model
// chooses each branch's relations first (the choice its exploration or
// check reuses, so it costs no call of its own), the KG counts the facts
// along them, the branch with the smallest count runs first, and each
// other branch waits for it and checks its candidates. It records the
// decision in the intersect's trace.
func orderBranches(ctx context.Context, r *run, plan *kgqa.Plan) error {
	r.verifyAgainst, r.after, r.branchOf = map[string]string{}, map[string][]string{}, map[string]*kgqa.BranchOrder{}
	r.picks, r.tentativeBefore = map[string]*explore.Explorer{}, map[string]bool{}
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
		var branches, following []kgqa.Subgoal
		for _, n := range s.Needs {
			b := byID[n]
			switch {
			case b.Op == kgqa.OpFind && len(b.Needs) == 0 && consumers[n] == 1 && n != plan.AnswerID():
				branches = append(branches, b)
			case len(b.Needs) > 0:
				following = append(following, b)
			}
		}
		if len(following) > 0 && len(branches) > 0 {
			checkAgainstFollowing(r, s.ID, following[0].ID, branches)
			continue
		}
		if len(branches) < 2 {
			continue
		}
		ord, err := estimateBranches(ctx, r, plan, branches)
		if err != nil {
			return err
		}
		// Unknown estimates go last; ties keep plan order.
		slices.SortStableFunc(ord.Branches, func(a, b kgqa.BranchOrder) int {
			return cmp.Compare(unknownLast(a.Estimated), unknownLast(b.Estimated))
		})
		if ord.Branches[0].Estimated < 0 {
			ord.Method, ord.Note = OrderingPlan, "the model chose no relation of any branch's anchors: nothing to estimate"
			for i := range ord.Branches {
				ord.Branches[i].Role = roleExplored
			}
			r.records[s.ID].Ordering = ord
			continue
		}
		ord.Branches[0].Role = roleExplored
		r.setOrder(s.ID, ord, "most_selective_branch_first")
	}
	return nil
}

// checkAgainstFollowing orders an intersect one of whose branches follows
// an earlier subgoal (first): that branch runs first, as the plan has it,
// and the branches from topic entities alone (constant) check its
// candidates. A chain's end has narrowed to a few entities by then, where
// a constant branch from a hub ("the competitors whose competitions
// include Turkey") would list hundreds and cost a refinement of its own.
// The ordering costs no call: nothing is estimated.
func checkAgainstFollowing(r *run, intersect, first string, constant []kgqa.Subgoal) {
	ord := &kgqa.Ordering{Method: OrderingCost, Note: first + " follows an earlier subgoal: it runs first and the branches from topic entities check its candidates",
		Branches: []kgqa.BranchOrder{{Subgoal: first, Estimated: -1, Actual: -1, Role: roleExplored}}}
	for _, b := range constant {
		ord.Branches = append(ord.Branches, kgqa.BranchOrder{Subgoal: b.ID, Estimated: -1, Actual: -1, Role: roleVerified})
	}
	r.setOrder(intersect, ord, "following_branch_first")
}

// setOrder records ord, whose first branch runs first, on the
// intersect's trace and makes each other branch wait for the first and
// check its candidates.
func (r *run) setOrder(intersect string, ord *kgqa.Ordering, reason string) {
	first := ord.Branches[0].Subgoal
	for _, b := range ord.Branches[1:] {
		r.verifyAgainst[b.Subgoal] = first
		r.after[b.Subgoal] = append(r.after[b.Subgoal], first)
		if p := r.records[b.Subgoal].Retrieval; p != nil {
			// The check needs no parametric guess; a branch whose
			// check settles nothing is explored with one.
			r.tentativeBefore[b.Subgoal] = p.Tentative
			p.Tentative, p.Reasons[retrieval.ParamTentative] = false, "verified_branch"
		}
	}
	for i := range ord.Branches {
		r.branchOf[ord.Branches[i].Subgoal] = &ord.Branches[i]
	}
	r.records[intersect].Ordering = ord
	if r.ans.RetrievalPlan != nil {
		r.ans.RetrievalPlan.Reasons["ordering"] = reason
	}
}

// estimateBranches has the model choose each branch's relations, as its
// first round would, and estimates each branch by the KG's count of facts
// along the chosen relations from its anchors (-1 when it chose none). The
// choices are kept in r.picks for the branches' first rounds.
func estimateBranches(ctx context.Context, r *run, plan *kgqa.Plan, branches []kgqa.Subgoal) (*kgqa.Ordering, error) {
	ord := &kgqa.Ordering{Method: OrderingCost, Branches: make([]kgqa.BranchOrder, len(branches))}
	xs := make([]*explore.Explorer, len(branches))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, r.b.Parallelism))
	for i, b := range branches {
		rec := r.records[b.ID]
		sg := &subgoalRun{run: r, plan: plan, s: b, rec: rec, d0: r.base, b: withPack(r.b, rec.Retrieval)}
		g.Go(func() error {
			x := sg.newExplorer(sg.text())
			est, rel, err := x.Estimate(gctx, sg.anchors(), sg.d0)
			if err != nil {
				return stepErr("plan", b.ID, err)
			}
			xs[i] = x
			ord.Branches[i] = kgqa.BranchOrder{Subgoal: b.ID, Relation: rel, Estimated: est, Actual: -1, Role: roleVerified}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, b := range branches {
		r.picks[b.ID] = xs[i]
	}
	return ord, nil
}

func unknownLast(n int) int {
	if n < 0 {
		return math.MaxInt
	}
	return n
}
