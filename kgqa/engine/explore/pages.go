package explore

import (
	"context"

	"github.com/parog/parog-go/kgqa"
)

// relationCost is about what one relation adds to the prompt, in bytes:
// its name and a separator, and its type's header when it opens a group.
func relationCost(r kgqa.Relation, seenType map[string]bool) int {
	typ, name := RelationType(r.ID)
	n := len(name) + 2
	k := string(r.Dir) + " " + typ
	if !seenType[k] {
		seenType[k] = true
		n += len(typ) + 6
	}
	return n
}

// room is the bytes one relations prompt leaves for the relations: the
// budget less the prompt without relations, measured once per offer.
func (x *Explorer) room(rd *kgqa.Round, max int) (int, error) {
	req, err := x.relationsRequest(rd, nil, max)
	if err != nil {
		return 0, err
	}
	return x.env.RelationsBudget*4 - promptTokens(req)*4, nil
}

// offerCost is the estimated bytes of offered in one prompt.
func offerCost(offered []kgqa.Relation) int {
	n, seen := 0, map[string]bool{}
	for _, r := range offered {
		n += relationCost(r, seen)
	}
	return n
}

// onePage tells whether offered fits one prompt as pages would split it
// (one relation, or an estimate within the room and a rendered prompt
// within the budget), and returns that prompt when it does, so the usual
// offer is rendered once. The whole offer's prompt is rendered first: the
// prompt without relations is no longer than it, so when the estimate
// fits the room that this prompt leaves, it fits the true room too, and
// the prompt without relations is rendered only otherwise; its room is
// returned for pages.
func (x *Explorer) onePage(rd *kgqa.Round, offered []kgqa.Relation, max int) (req kgqa.ChatRequest, one bool, room int, err error) {
	if len(offered) == 0 {
		room, err = x.room(rd, max)
		return kgqa.ChatRequest{}, false, room, err
	}
	if req, err = x.relationsRequest(rd, offered, max); err != nil {
		return kgqa.ChatRequest{}, false, 0, err
	}
	if len(offered) == 1 {
		return req, true, 0, nil
	}
	budget, tokens, cost := x.env.RelationsBudget, promptTokens(req), offerCost(offered)
	if tokens <= budget && cost <= budget*4-tokens*4 {
		return req, true, 0, nil
	}
	if room, err = x.room(rd, max); err != nil {
		return kgqa.ChatRequest{}, false, 0, err
	}
	if tokens <= budget && cost <= room {
		return req, true, room, nil
	}
	return kgqa.ChatRequest{}, false, room, nil
}

// pages splits the offered relations, in order, into pages whose prompt
// fits the budget: room is what the prompt without relations leaves
// (see room), and each relation's share is estimated. A page holds one
// relation at least.
func (x *Explorer) pages(rd *kgqa.Round, offered []kgqa.Relation, max, room int) ([][]kgqa.Relation, error) {
	var out [][]kgqa.Relation
	var page []kgqa.Relation
	used, seen := 0, map[string]bool{}
	for _, r := range offered {
		c := relationCost(r, seen)
		if len(page) > 0 && used+c > room {
			out = append(out, page)
			page, used, seen = nil, 0, map[string]bool{}
			c = relationCost(r, seen)
		}
		page = append(page, r)
		used += c
	}
	if len(page) > 0 {
		out = append(out, page)
	}
	// The estimate is rough: a page whose rendered prompt still passes
	// the budget is halved until it fits or holds one relation.
	var fit [][]kgqa.Relation
	for _, p := range out {
		ps, err := x.fit(rd, p, max)
		if err != nil {
			return nil, err
		}
		fit = append(fit, ps...)
	}
	return fit, nil
}

// fit splits page in halves until each half's prompt fits the budget.
func (x *Explorer) fit(rd *kgqa.Round, page []kgqa.Relation, max int) ([][]kgqa.Relation, error) {
	req, err := x.relationsRequest(rd, page, max)
	if err != nil {
		return nil, err
	}
	if len(page) == 1 || promptTokens(req) <= x.env.RelationsBudget {
		return [][]kgqa.Relation{page}, nil
	}
	a, err := x.fit(rd, page[:len(page)/2], max)
	if err != nil {
		return nil, err
	}
	b, err := x.fit(rd, page[len(page)/2:], max)
	return append(a, b...), err
}

// ChoosePaged has the model choose among the offered relations. Under
// the adaptive offer (short.go), an offer of more than engine.short_offer
// relations whose ranking has a clear top is shown its best-ranked
// relations first, and the others only when the model keeps none of
// them. Otherwise an offer that fits one prompt is one choice, as before
// paging. A larger one is offered page by page, most relevant first; the
// model keeps up to max relations of each page, and, when the pages kept
// more than max between them, chooses among those in a last prompt: every
// relation is seen, and the best of one page does not win only because it
// came first. It returns the number of model calls made.
func (x *Explorer) ChoosePaged(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int) (int, error) {
	if !x.adaptive(len(offered)) {
		return x.choosePages(ctx, rd, offered, max, rd.Cut != nil || x.preRanked())
	}
	ranked, score, how, err := x.ranked(ctx, rd.Anchors, offered)
	if err != nil {
		return 0, err
	}
	if how != "" {
		rd.PageRanking = how
	}
	if short := shortPage(ranked, score, x.env.ShortOffer); short != nil {
		return x.chooseShort(ctx, rd, ranked, short, max)
	}
	return x.choosePages(ctx, rd, ranked, max, true)
}

// choosePages is ChoosePaged's choice among a whole offer: one prompt
// when it fits, else pages within the budget, most relevant first (ranked
// says the offer is in that order already).
func (x *Explorer) choosePages(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int, ranked bool) (int, error) {
	req, one, room, err := x.onePage(rd, offered, max)
	if err != nil {
		return 0, err
	}
	if one {
		tokens, err := x.chooseRendered(ctx, rd, offered, max, req)
		rd.Pages = append(rd.Pages, kgqa.OfferPage{Relations: len(offered), PromptTokens: tokens, Chosen: len(rd.Chosen)})
		return 1, err
	}
	if !ranked {
		// Pages go most relevant first: rank the offer (a cut offer is
		// ranked already).
		ranked, _, how, err := x.rank(ctx, rd.Anchors, offered)
		if err != nil {
			return 0, err
		}
		rd.PageRanking = how.Method
		offered = ranked
	}
	pages, err := x.pages(rd, offered, max, room)
	if err != nil {
		return 0, err
	}
	calls := 0
	var finalists []kgqa.Relation
	var rejected []kgqa.RejectedRelation
	by := "llm"
	for _, page := range pages {
		tokens, err := x.choose(ctx, rd, page, max)
		calls++
		if err != nil {
			return calls, err
		}
		rd.Pages = append(rd.Pages, kgqa.OfferPage{Relations: len(page), PromptTokens: tokens, Chosen: len(rd.Chosen)})
		finalists = append(finalists, rd.Chosen...)
		rejected = append(rejected, rd.Rejected...)
		if rd.ChosenBy != "llm" {
			by = rd.ChosenBy
		}
	}
	rd.Chosen, rd.ChosenBy, rd.Rejected = finalists, by, rejected
	if len(finalists) <= max {
		return calls, nil
	}
	tokens, err := x.choose(ctx, rd, finalists, max)
	calls++
	rd.Pages = append(rd.Pages, kgqa.OfferPage{Relations: len(finalists), PromptTokens: tokens, Chosen: len(rd.Chosen), Final: true})
	rd.Rejected = append(rejected, rd.Rejected...)
	return calls, err
}
