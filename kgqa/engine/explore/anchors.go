package explore

import (
	"context"
	"sort"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// anchorGroup is anchors with the same untried relations.
type anchorGroup struct {
	anchors []kgqa.Term
}

// groupAnchors splits the anchors by their untried relations, in the
// anchors' order: anchors with the same relations are offered them once,
// since the same offer gets the same choice.
func (x *Explorer) groupAnchors(anchors []kgqa.Term, rels map[string][]kgqa.Relation) []anchorGroup {
	var out []anchorGroup
	at := map[string]int{}
	for _, a := range anchors {
		keys := make([]string, 0, len(rels[a.ID]))
		for _, r := range rels[a.ID] {
			if !x.tried[r] {
				keys = append(keys, string(r.Dir)+" "+r.ID)
			}
		}
		if len(keys) == 0 {
			continue
		}
		sort.Strings(keys)
		k := strings.Join(keys, "\n")
		if i, ok := at[k]; ok {
			out[i].anchors = append(out[i].anchors, a)
			continue
		}
		at[k] = len(out)
		out = append(out, anchorGroup{anchors: []kgqa.Term{a}})
	}
	return out
}

// pickPerAnchor offers each group of anchors its own relations and lets
// the model choose for each, recording every offer in rd.AnchorOffers and
// summing them up in rd. It returns the relations each anchor chose (as
// offer's has map does for a shared choice) and the model calls made.
func (x *Explorer) pickPerAnchor(ctx context.Context, rd *kgqa.Round, groups []anchorGroup, rels map[string][]kgqa.Relation) (map[kgqa.Relation][]kgqa.Term, int, error) {
	has := map[kgqa.Relation][]kgqa.Term{}
	seen := map[kgqa.Relation]bool{}
	calls := 0
	for _, g := range groups {
		offered, _, cut, err := x.Offer(ctx, g.anchors, rels)
		if err != nil {
			return nil, calls, err
		}
		sub := &kgqa.Round{Depth: rd.Depth, Anchors: g.anchors, Cut: cut, Chosen: []kgqa.Relation{}}
		switch len(offered) {
		case 0:
			continue
		case 1:
			sub.Chosen, sub.ChosenBy = offered, "only_offered"
		default:
			n, err := x.ChoosePaged(ctx, sub, offered, x.sub.Budgets.MaxRelationsPerEntity)
			calls += n
			if err != nil {
				return nil, calls, err
			}
		}
		ao := kgqa.AnchorOffer{Anchors: g.anchors, Offered: len(offered), OfferedRelations: offered, Cut: cut, Pages: sub.Pages,
			Ranking: x.ranking(), Chosen: sub.Chosen, ChosenBy: sub.ChosenBy, Fallback: sub.Fallback}
		ao.Prior = x.priorRanks(g.anchors, x.untriedOf(g.anchors, rels), offered, sub.Chosen)
		rd.AnchorOffers = append(rd.AnchorOffers, ao)
		rd.Pages = append(rd.Pages, sub.Pages...)
		rd.Rejected = append(rd.Rejected, sub.Rejected...)
		for _, r := range offered {
			if !seen[r] {
				seen[r] = true
				rd.OfferedRelations = append(rd.OfferedRelations, r)
			}
		}
		for _, r := range sub.Chosen {
			if len(has[r]) == 0 {
				rd.Chosen = append(rd.Chosen, r)
			}
			has[r] = append(has[r], g.anchors...)
		}
		if rd.ChosenBy == "" || sub.ChosenBy != "llm" {
			rd.ChosenBy = sub.ChosenBy
		}
	}
	rd.Offered = len(rd.OfferedRelations)
	rd.Ranking = x.ranking()
	return has, calls, nil
}

// untriedOf is the anchors' untried relations, each once.
func (x *Explorer) untriedOf(anchors []kgqa.Term, rels map[string][]kgqa.Relation) []kgqa.Relation {
	seen := map[kgqa.Relation]bool{}
	var out []kgqa.Relation
	for _, a := range anchors {
		for _, r := range rels[a.ID] {
			if !x.tried[r] && !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}
