package explore

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

type relationsReply struct {
	Relations []struct {
		ID  string `json:"id"`
		Dir string `json:"dir"`
	} `json:"relations"`
	Reason string `json:"reason"`
}

// choose asks the model which offered relations to keep (at most max).
// A reply names a relation by its full id or its name alone, in any case,
// and is resolved against the offered set only. Relations it names that
// were not offered are recorded and dropped; a reply naming only such
// relations is sent back once for repair. A model that still names no
// offered relation, or gives no reply in shape, does not fail the
// question: the offered relations that share words with the subgoal are
// kept instead, and the fallback recorded in the round.
// It returns the prompt's size in tokens.
func (x *Explorer) choose(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int) (int, error) {
	req, err := x.relationsRequest(rd, offered, max)
	if err != nil {
		return 0, err
	}
	return x.chooseRendered(ctx, rd, offered, max, req)
}

// chooseRendered is choose with the prompt of offered already rendered.
func (x *Explorer) chooseRendered(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int, req kgqa.ChatRequest) (int, error) {
	tokens := promptTokens(req)
	ix := newOfferedIndex(offered)
	var rep relationsReply
	var chosen []kgqa.Relation
	var rejected, hallucinated []kgqa.RejectedRelation // hallucinated spans the repair turn
	check := func() error {
		chosen, rejected = nil, nil
		dup := map[kgqa.Relation]bool{}
		var firstErr error
		for _, c := range rep.Relations {
			r, err := ix.resolve(c.ID, c.Dir)
			switch {
			case err != nil:
				reason := "not_offered"
				if errors.Is(err, errAmbiguousName) {
					reason = "ambiguous"
				} else {
					err = fmt.Errorf("%s (%s) was not offered", c.ID, c.Dir)
				}
				if firstErr == nil {
					firstErr = err
				}
				h := kgqa.RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: reason}
				rejected = append(rejected, h)
				hallucinated = append(hallucinated, h)
			case dup[r]:
			case len(chosen) >= max:
				rejected = append(rejected, kgqa.RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: "over_budget"})
			default:
				dup[r] = true
				chosen = append(chosen, r)
			}
		}
		if len(chosen) == 0 && firstErr != nil {
			return fmt.Errorf("none of the relations named was offered: %w; answer only with offered relations", firstErr)
		}
		return nil
	}
	_, err := x.env.Chat.JSON(ctx, req, &rep, check)
	rd.Rejected = hallucinated
	for _, r := range rejected {
		if r.Reason == "over_budget" {
			rd.Rejected = append(rd.Rejected, r)
		}
	}
	if errors.Is(err, kgqa.ErrSchema) {
		rd.Chosen, rd.ChosenBy = x.lexicalPick(rd.Anchors, offered, max), "lexical_fallback"
		rd.Fallback = "the model gave no offered relation in shape, repair included (" + err.Error() + "); kept the offered relations sharing most words with the subgoal"
		return tokens, nil
	}
	if err != nil {
		return tokens, x.fail(err)
	}
	rd.Chosen, rd.ChosenBy = chosen, "llm"
	return tokens, nil
}

// relationsData is the relations prompt's data for the round's anchors
// and the offered relations.
func (x *Explorer) relationsData(rd *kgqa.Round, offered []kgqa.Relation, max int) prompts.RelationsData {
	data := prompts.RelationsData{Plan: x.sub.View(), Subgoal: x.sub.Text, Max: max, Attribute: x.attrHint}
	for _, a := range rd.Anchors {
		data.Anchors = append(data.Anchors, prompts.Term(a))
	}
	if len(data.Anchors) > 20 {
		data.Anchors = append(data.Anchors[:20], fmt.Sprintf("and %d more", len(rd.Anchors)-20))
	}
	data.Out, data.In = groupRelations(x.env.Graph.Dialect(), offered)
	return data
}

// lexicalPick returns up to max offered relations that share words with
// the subgoal (see relationQuery), most first; none when no relation
// shares a word.
func (x *Explorer) lexicalPick(anchors []kgqa.Term, offered []kgqa.Relation, max int) []kgqa.Relation {
	d := x.env.Graph.Dialect()
	q := Tokens(x.RelationQuery(anchors))
	type scored struct {
		r kgqa.Relation
		s float64
	}
	var cands []scored
	for _, r := range offered {
		if s := Overlap(q, Tokens(d.Readable(r.ID))); s > 0 {
			cands = append(cands, scored{r, s})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].s > cands[j].s })
	out := []kgqa.Relation{}
	for _, c := range cands[:min(len(cands), max)] {
		out = append(out, c.r)
	}
	return out
}
