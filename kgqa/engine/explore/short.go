package explore

import (
	"context"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// The adaptive offer (engine.relation_offer: adaptive): an offer of more
// than engine.short_offer relations whose ranking has a clear top is shown
// a short page first, the best-ranked relations alone, and the others
// only when the model keeps none of them; one whose top has more
// contenders than that page holds, but at most half the offer, is shown
// those contenders first (shortPage). Any other offer is shown whole. At Freebase's density most of an
// anchor's hundreds of relations share no word with the subgoal, and the
// relations prompts were most of a question's tokens.

// adaptive reports whether an offer of n relations may be shown a short
// page first.
func (x *Explorer) adaptive(n int) bool {
	return x.env.RelationOffer == "adaptive" && x.env.ShortOffer > 0 && n > x.env.ShortOffer
}

// clearTop returns the first n relations of ranked (sorted by score, most
// first) when the ranking's top is clear, else nil. The top is clear when
// the scores are not all equal and every contender, a relation scoring at
// least halfway between the lowest score and the highest, is among the
// first n: the relations left off the page are those the subgoal's words
// (and the prior, or the embeddings) say least about. A ranking with more
// contenders than the page holds, or none at all, is not clear.
func clearTop(ranked []kgqa.Relation, score map[kgqa.Relation]float64, n int) []kgqa.Relation {
	if n <= 0 || len(ranked) <= n {
		return nil
	}
	top, low := score[ranked[0]], score[ranked[len(ranked)-1]]
	if top <= low {
		return nil
	}
	if score[ranked[n]] >= low+(top-low)/2 {
		return nil
	}
	return ranked[:n]
}

// shortPage is the short first page of a ranked offer: its clear top of
// n relations (clearTop) or, when more than n relations contend for the
// top, the contenders alone, as long as they are at most half the offer.
// A hub's offer of hundreds of relations, a few dozen of which share the
// subgoal's words (the measurement system's forty "... units" for "the
// thermal conductivity units of #1"), is then shown those first, not
// whole; the others follow only when the model keeps none of them.
func shortPage(ranked []kgqa.Relation, score map[kgqa.Relation]float64, n int) []kgqa.Relation {
	if top := clearTop(ranked, score, n); top != nil || n <= 0 || len(ranked) <= n {
		return top
	}
	top, low := score[ranked[0]], score[ranked[len(ranked)-1]]
	if top <= low {
		return nil
	}
	c := n
	for c < len(ranked) && score[ranked[c]] >= low+(top-low)/2 {
		c++
	}
	if 2*c > len(ranked) {
		return nil
	}
	return ranked[:c]
}

// rememberScores keeps the scores of the offer ranked for query, so that
// choosing among it does not rank it again (an embeddings call).
func (x *Explorer) rememberScores(query string, score map[kgqa.Relation]float64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.scored = scoredOffer{query: query, score: score}
}

// scoredOffer is the scores of the last offer ranked, and what they were
// ranked against.
type scoredOffer struct {
	query string
	score map[kgqa.Relation]float64
}

// ranked orders offered as rank does, with the scores Offer kept when it
// ranked these relations for these anchors already. It returns the
// ranking method when it ranked them itself, "" when it reused the scores.
func (x *Explorer) ranked(ctx context.Context, anchors []kgqa.Term, offered []kgqa.Relation) ([]kgqa.Relation, map[kgqa.Relation]float64, string, error) {
	query := x.RelationQuery(anchors)
	x.mu.Lock()
	memo := x.scored
	x.mu.Unlock()
	if memo.query == query && memo.score != nil {
		known := true
		for _, r := range offered {
			if _, ok := memo.score[r]; !ok {
				known = false
				break
			}
		}
		if known {
			return sortByScore(offered, memo.score), memo.score, "", nil
		}
	}
	out, score, how, err := x.rank(ctx, anchors, offered)
	if err != nil {
		return nil, nil, "", err
	}
	return out, score, how.Method, nil
}

// chooseShort has the model choose among the short first page of a
// ranked offer and, when it keeps none, among the others, offered as a
// whole offer is (one prompt, or pages within the budget). The pages
// after the short one are marked AfterNone. It returns the model calls
// made.
func (x *Explorer) chooseShort(ctx context.Context, rd *kgqa.Round, ranked, short []kgqa.Relation, max int) (int, error) {
	var req kgqa.ChatRequest
	for {
		data := x.relationsData(rd, short, max)
		data.More = len(ranked) - len(short)
		var err error
		if req, err = x.env.Prompts.Request(kgqa.Reasoner, prompts.Relations, data); err != nil {
			return 0, x.fail(err)
		}
		if len(short) == 1 || promptTokens(req) <= x.env.RelationsBudget {
			break
		}
		short = short[:len(short)/2] // a budget too small for the page
	}
	tokens, err := x.chooseRendered(ctx, rd, short, max, req)
	rd.Pages = append(rd.Pages, kgqa.OfferPage{Relations: len(short), PromptTokens: tokens, Chosen: len(rd.Chosen), Short: true})
	if err != nil || len(rd.Chosen) > 0 {
		return 1, err
	}
	// None fits: the others, most relevant first.
	rejected, first := rd.Rejected, len(rd.Pages)
	rd.Fallback = ""
	calls, err := x.choosePages(ctx, rd, ranked[len(short):], max, true)
	for i := first; i < len(rd.Pages); i++ {
		rd.Pages[i].AfterNone = true
	}
	rd.Rejected = append(rejected, rd.Rejected...)
	return 1 + calls, err
}
