package explore

import (
	"context"
	"slices"

	"github.com/parog/parog-go/kgqa"
)

// maxNextRelations bounds the next-best relations a round follows when
// its chosen ones yield nothing the subgoal can use: each costs KG
// queries and no model call.
const maxNextRelations = 2

// barren reports whether a round's facts give the subgoal nothing: no
// fact at all, or, when a later step explores from the subgoal's answer
// (Subgoal.WantsEntity), no fact that reaches an entity.
func (x *Explorer) barren(facts []kgqa.Fact) bool {
	if len(facts) == 0 {
		return true
	}
	if !x.sub.WantsEntity {
		return false
	}
	return !slices.ContainsFunc(facts, func(f kgqa.Fact) bool { return f.Tail.IsEntity() })
}

// followNext follows the next-best offered relations of round rd, one at
// a time, while its facts give the subgoal nothing (see barren): the
// model's choice stands as the first, and the offer, ranked, names the
// next. The relations followed join the round's chosen ones, so that
// refinement sees their facts; each is reported to Subgoal.Followed. It
// costs no model call: an offer that is not ranked yet is ranked by word
// overlap and the prior (never by an embeddings call).
func (x *Explorer) followNext(ctx context.Context, rd *kgqa.Round, has map[kgqa.Relation][]kgqa.Term) error {
	if !x.barren(rd.Facts) || len(rd.Chosen) == 0 {
		return nil
	}
	next := x.nextBest(ctx, rd)
	for _, r := range next[:min(len(next), maxNextRelations)] {
		from := slices.Clone(rd.Chosen)
		facts, err := x.Neighbors(ctx, rd, []kgqa.Relation{r}, has)
		if err != nil {
			return err
		}
		x.mu.Lock()
		x.tried[r] = true
		x.mu.Unlock()
		rd.Chosen = append(rd.Chosen, r)
		rd.Facts = append(rd.Facts, facts...)
		if x.sub.Followed != nil {
			x.sub.Followed(from, r, len(facts))
		}
		if !x.barren(rd.Facts) {
			return nil
		}
	}
	return nil
}

// nextBest lists the relations the round offered and did not choose,
// most relevant first: in the offer's order when it was ranked (by a cut,
// pages or the prior), else ranked here without an embeddings call.
func (x *Explorer) nextBest(ctx context.Context, rd *kgqa.Round) []kgqa.Relation {
	x.mu.Lock()
	var rest []kgqa.Relation
	for _, r := range rd.OfferedRelations {
		if !x.tried[r] && !slices.Contains(rd.Chosen, r) {
			rest = append(rest, r)
		}
	}
	x.mu.Unlock()
	if len(rest) < 2 || rd.Ranking != "" || rd.PageRanking != "" || x.preRanked() {
		return rest
	}
	score, _, err := x.scores(ctx, rd.Anchors, rest, nil) // word overlap and the prior: no embeddings call
	if err != nil {
		return rest
	}
	return sortByScore(rest, score)
}
