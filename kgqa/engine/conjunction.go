package engine

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/parog/parog-go/kgqa"
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
// branches of every intersect whose branches are finds from topic
// entities that nothing else needs: the model chooses each branch's
// relations first (the choice its exploration or check reuses, so it costs
// no call of its own), the KG counts the facts along them, the branch
// with the smallest count runs first, and each other branch waits for it
// and checks its candidates. It records the decision in the intersect's
// trace.
func (r *run) orderBranches(ctx context.Context, plan *kgqa.Plan) error {
	r.verifyAgainst, r.after, r.branchOf = map[string]string{}, map[string][]string{}, map[string]*kgqa.BranchOrder{}
	r.picks, r.tentativeBefore = map[string]*explorer{}, map[string]bool{}
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
		ord, err := r.estimateBranches(ctx, plan, branches)
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
		first := ord.Branches[0].Subgoal
		ord.Branches[0].Role = roleExplored
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
		r.records[s.ID].Ordering = ord
		if r.ans.RetrievalPlan != nil {
			r.ans.RetrievalPlan.Reasons["ordering"] = "most_selective_branch_first"
		}
	}
	return nil
}

// estimateBranches has the model choose each branch's relations, as its
// first round would, and estimates each branch by the KG's count of facts
// along the chosen relations from its anchors (-1 when it chose none). The
// choices are kept in r.picks for the branches' first rounds.
func (r *run) estimateBranches(ctx context.Context, plan *kgqa.Plan, branches []kgqa.Subgoal) (*kgqa.Ordering, error) {
	ord := &kgqa.Ordering{Method: OrderingCost, Branches: make([]kgqa.BranchOrder, len(branches))}
	xs := make([]*explorer, len(branches))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, r.b.Parallelism))
	for i, b := range branches {
		rec := r.records[b.ID]
		sg := &subgoalRun{run: r, plan: plan, s: b, rec: rec, d0: r.base, b: withPack(r.b, rec.Retrieval)}
		g.Go(func() error {
			x := newExplorer(sg, sg.text())
			est, rel, err := x.estimate(gctx, sg.anchors())
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

// estimate makes the branch's first relation choice (kept for its first
// round) and sums the KG's count of facts along each chosen relation from
// each anchor that has it. It returns -1 when the model chose nothing.
func (x *explorer) estimate(ctx context.Context, anchors []kgqa.Term) (int, *kgqa.Relation, error) {
	rd, has, end, err := x.pick(ctx, anchors, 0, x.sg.d0)
	if err != nil {
		return 0, nil, err
	}
	x.pre = &prePick{rd: rd, has: has, end: end}
	if len(rd.Chosen) == 0 {
		return -1, nil, nil
	}
	total := 0
	for _, rel := range rd.Chosen {
		for _, a := range has[rel] {
			n, err := x.sg.e.g.Count(ctx, a.ID, rel)
			if err != nil {
				return 0, nil, err
			}
			total += n
		}
	}
	first := rd.Chosen[0]
	return total, &first, nil
}

// prePick is a first relation choice made before the subgoal ran.
type prePick struct {
	rd  *kgqa.Round
	has map[kgqa.Relation][]kgqa.Term
	end int
}

// explorerFor returns the explorer of the subgoal: the one that made its
// first relation choice during ordering, if any, else a new one.
func (sg *subgoalRun) explorerFor(text string) *explorer {
	sg.mu.Lock()
	x := sg.picks[sg.s.ID]
	delete(sg.picks, sg.s.ID)
	sg.mu.Unlock()
	if x == nil {
		return newExplorer(sg, text)
	}
	x.sg, x.text = sg, text
	return x
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
	x := sg.explorerFor(text)
	if len(cands) == 0 {
		// No entity to check (the first branch kept a tentative answer,
		// or the KG lacks its facts): explore this branch in full, with
		// its tentative answer and refinement, and let the intersection
		// decide, as when every branch is explored.
		v.Fallback, v.Note = true, "the branch checked against found no entity: explored in full"
		sg.mu.Lock()
		sg.picks[sg.s.ID] = x
		sg.mu.Unlock()
		return kgqa.Result{}, sg.d0, false, nil
	}
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
		v.Fallback, v.Note = true, "no candidate passed the check: explored in full"
		return kgqa.Result{}, end, false, nil
	}
	rc := *rd
	sg.emit.send(kgqa.Event{Type: kgqa.EventExploration, Subgoal: sg.s.ID, Round: &rc})
	return kgqa.Result{Text: names(kept), Entities: kept, Source: "verified", Capped: capped}, end, true, nil
}
