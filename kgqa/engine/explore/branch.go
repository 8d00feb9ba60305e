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

// maxLinkRelations bounds the relations Link asks the KG about: each
// costs a query per anchor and no model call.
const maxLinkRelations = 3

// Link looks for the relation that joins the anchors to some of the
// entities ids: it ranks the anchors' relations against the subgoal
// without a model call (word overlap, the prior when one is loaded),
// keeps those that share a word with the subgoal, and asks the KG, best
// first and at most maxLinkRelations of them, which of ids each reaches
// from the anchors that have it. For the first relation that reaches any
// it returns those it reaches and a round along it (chosen_by "link")
// whose facts are the relation's from the anchors to them; ok is false
// when no relation reaches any. Relations explored before are ranked
// with the rest: the model may have followed the right one and answered
// from the wrong facts. A branch of an intersect that came back empty is
// reopened this way, along the relation that meets the other branches.
func (x *Explorer) Link(ctx context.Context, anchors []kgqa.Term, ids []string) (rd *kgqa.Round, reached []string, ok bool, err error) {
	if len(ids) == 0 {
		return nil, nil, false, nil
	}
	rels, err := x.Relations(ctx, anchors)
	if err != nil {
		return nil, nil, false, err
	}
	d := x.env.Graph.Dialect()
	q := Tokens(x.RelationQuery(anchors))
	has := map[kgqa.Relation][]kgqa.Term{}
	var offer []kgqa.Relation
	for _, a := range anchors {
		for _, r := range rels[a.ID] {
			if Overlap(q, Tokens(d.Readable(r.ID))) == 0 {
				continue
			}
			if _, seen := has[r]; !seen {
				offer = append(offer, r)
			}
			has[r] = append(has[r], a)
		}
	}
	score, _, err := x.scores(ctx, anchors, offer, nil) // no embeddings call
	if err != nil {
		return nil, nil, false, err
	}
	ranked := sortByScore(offer, score)
	for _, r := range ranked[:min(len(ranked), maxLinkRelations)] {
		seen := map[string]bool{}
		for _, a := range has[r] {
			got, err := x.env.Graph.Linked(ctx, a.ID, r, ids)
			if err != nil {
				return nil, nil, false, x.fail(err)
			}
			for _, id := range got {
				if !seen[id] {
					seen[id] = true
					reached = append(reached, id)
				}
			}
		}
		if len(reached) == 0 {
			continue
		}
		rd = &kgqa.Round{Anchors: has[r], Chosen: []kgqa.Relation{r}, ChosenBy: "link", Facts: []kgqa.Fact{}}
		facts, err := x.Neighbors(ctx, rd, rd.Chosen, has)
		if err != nil {
			return nil, nil, false, err
		}
		for _, f := range facts {
			if seen[f.Tail.ID] {
				rd.Facts = append(rd.Facts, f)
			}
		}
		return rd, reached, true, nil
	}
	return nil, nil, false, nil
}
