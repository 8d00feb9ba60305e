package explore

import (
	"context"
	"maps"
	"slices"

	"github.com/parog/parog-go/kgqa"
)

// Skipping the relation choice (engine.clear_top_facts): when the first
// round's offer has a ranking whose clear top (see clearTop) is a single
// relation, its facts are fetched without asking the model which
// to keep, and refinement, which reads the facts and keeps the entities
// that answer, judges them. A one-hop question is then a plan call and a
// refine call. When refinement finds them misaligned, or they give no
// fact, the engine runs the round again with the model's choice over the
// whole offer (Reoffer): nothing is lost but the refine call.

// maxClearTop bounds the relations whose facts a round fetches without a
// choice. At two, the dense world's WebQSP questions took fewer calls
// still (2.22 against 2.42 a question), but a demo question lost its
// answer: "How many countries border France?" had adjoin_s and
// adjoining_relationship.adjoins on top, and the second's facts brought
// France itself into the count.
const maxClearTop = 1

// SkipClearChoice lets the next round from the subgoal's start (depth 0)
// skip the relation choice when its offer's ranking has a clear top of
// at most maxClearTop relations. A round that runs a choice made before
// (Estimate) or offers per anchor group does not skip it.
func (x *Explorer) SkipClearChoice() { x.clearTop = true }

// skipChoice makes the round's choice the clear top of the offer's
// ranking, the fewest relations from one up to maxClearTop that make it
// clear, and marks the round ChoiceSkipped. ok is false when no top that
// short is clear; the ranking's scores are then kept for the choice.
func (x *Explorer) skipChoice(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation) (bool, error) {
	ranked, score, how, err := x.ranked(ctx, rd.Anchors, offered)
	if err != nil {
		return false, err
	}
	ranked = x.withoutMirrors(ranked, score)
	for n := 1; n <= maxClearTop; n++ {
		if top := clearTop(ranked, score, n); top != nil {
			rd.Chosen, rd.ChosenBy, rd.ChoiceSkipped = slices.Clone(top), "clear_top", true
			return true, nil
		}
	}
	if how != "" && x.adaptive(len(offered)) {
		rd.PageRanking = how // ChoosePaged reuses the scores
	}
	return false, nil
}

// Reoffer makes the relations a round fetched without a choice (rd,
// ChoiceSkipped) untried again, so that the next round from its anchors
// offers the whole offer, as the choice skipped would have had it.
func (x *Explorer) Reoffer(rd *kgqa.Round) {
	if !rd.ChoiceSkipped {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, r := range rd.Chosen {
		delete(x.tried, r)
	}
}

// withoutMirrors drops from ranked each relation that mirrors one ranked
// before it at the same score: the other direction of a relation whose
// readable form has the same words (Freebase's reverse properties,
// measurement_system.surface_density_units out and
// surface_density_unit.measurement_system in). Both give the same facts,
// so the pair is one contender for a clear top, not a tie.
func (x *Explorer) withoutMirrors(ranked []kgqa.Relation, score map[kgqa.Relation]float64) []kgqa.Relation {
	d := x.env.Graph.Dialect()
	out := make([]kgqa.Relation, 0, len(ranked))
	var kept []map[string]bool
	for _, r := range ranked {
		words := Tokens(d.Readable(r.ID))
		mirror := false
		for i, k := range out {
			if k.Dir != r.Dir && k.ID != r.ID && score[k] == score[r] && maps.Equal(kept[i], words) {
				mirror = true
				break
			}
		}
		if !mirror {
			out, kept = append(out, r), append(kept, words)
		}
	}
	return out
}
