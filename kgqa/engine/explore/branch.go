package explore

import (
	"context"

	"github.com/parog/parog-go/kgqa"
)

// The first relation choice of a conjunction's branch, made before the
// branch runs (to estimate it) or in place of its exploration (to check
// another branch's candidates), and the retry of a subgoal's anchors.

// prePick is a first relation choice made before the subgoal ran.
type prePick struct {
	rd  *kgqa.Round
	has map[kgqa.Relation][]kgqa.Term
	end int
}

// Estimate makes the branch's first relation choice (kept for its first
// round) and sums the KG's count of facts along each chosen relation from
// each anchor that has it. It returns -1 when the model chose nothing. The
// KG's count errors are returned as they are.
func (x *Explorer) Estimate(ctx context.Context, anchors []kgqa.Term, d int) (int, *kgqa.Relation, error) {
	rd, has, end, err := x.pick(ctx, anchors, 0, d)
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
			n, err := x.env.Graph.Count(ctx, a.ID, rel)
			if err != nil {
				return 0, nil, err
			}
			total += n
		}
	}
	first := rd.Chosen[0]
	return total, &first, nil
}

// Reach has the model choose the anchors' relations as a first round
// would, and asks the KG which of the entities ids those relations reach
// from the anchors that have them: a branch's check of the candidates of
// the branch that ran first, with no neighbour list. It returns the
// round (its facts empty) and the LLM depth it ended at.
func (x *Explorer) Reach(ctx context.Context, anchors []kgqa.Term, ids []string, d int) (*kgqa.Round, map[string]bool, int, error) {
	rd, has, end, err := x.pick(ctx, anchors, 0, d)
	if err != nil {
		return rd, nil, end, err
	}
	reached := map[string]bool{}
	for _, rel := range rd.Chosen {
		for _, a := range has[rel] {
			got, err := x.env.Graph.Linked(ctx, a.ID, rel, ids)
			if err != nil {
				return rd, nil, end, x.fail(err)
			}
			for _, id := range got {
				reached[id] = true
			}
		}
	}
	return rd, reached, end, nil
}

// Retry runs one more round from anchors along the relations not in
// tried, the relations already chosen from them; the relations it
// chooses count as tried afterwards, with those tried before. It returns
// a nil round when the anchors have no other relation.
func (x *Explorer) Retry(ctx context.Context, anchors []kgqa.Term, tried map[kgqa.Relation]bool, d int) (*kgqa.Round, int, error) {
	x.mu.Lock()
	saved := x.tried
	x.tried = tried
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		for r := range x.tried {
			saved[r] = true
		}
		x.tried = saved
		x.mu.Unlock()
	}()
	if !x.untried(anchors) {
		return nil, d, nil
	}
	return x.Round(ctx, anchors, 0, d)
}
