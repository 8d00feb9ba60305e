package engine

import (
	"sort"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/kg"
)

// Budgets on the evidence shown to the model are not budgets on the sets
// the engine computes. Exploration keeps every fact a neighbour query
// returns, up to the KG's neighbour limit; a prompt shows at most
// MaxEntitiesPerRelation of them per (anchor, relation) pair and
// WithMaxFacts in all (promptFacts). A find result the model took as a
// relation's whole neighbour set is completed with the neighbours the
// prompt had no room for (expand), and a set that may lack members
// because a query hit the KG's limit is marked Capped.

// pairKey identifies the (anchor, relation) pair a fact was fetched by.
func pairKey(f kgqa.Fact) string {
	first := ""
	if len(f.Path) > 0 {
		first = f.Path[0]
	}
	return f.Head.Key() + "\x00" + first + "\x00" + string(f.Dir)
}

// relationKey identifies the relation (path and directions) of a fact,
// whatever its anchor.
func relationKey(f kgqa.Fact) string {
	k := strings.Join(f.Path, " / ") + " (" + string(f.Dir)
	if len(f.Path) > 1 {
		k += ", " + string(f.SecondDir())
	}
	return k + ")"
}

// promptFacts chooses the facts a prompt shows: the perPair most relevant
// of each (anchor, relation) pair (capPairs), then the max most lexically
// relevant to text.
func promptFacts(d kg.Dialect, text string, facts []kgqa.Fact, perPair, max int) []kgqa.Fact {
	if perPair > 0 {
		facts = capPairs(d, text, facts, perPair)
	}
	return rankFacts(d, text, facts, max)
}

// capPairs keeps at most perPair facts of each (anchor, relation) pair,
// ranked before they are cut: by the words and dates the fact shares with
// text, plus those its mediator's other edges share (the mediator of
// "president in 1980" wins on its dates and title, not on its id). A
// mediator's facts stay together. It caps facts, not mediators, and keeps
// the facts' original order among those kept; ties go to the smaller
// mediator id, then by path and tail, so the choice does not depend on the
// order the KG returned them in.
func capPairs(d kg.Dialect, text string, facts []kgqa.Fact, perPair int) []kgqa.Fact {
	byPair := map[string][]int{}
	for i, f := range facts {
		k := pairKey(f)
		byPair[k] = append(byPair[k], i)
	}
	q := explore.Tokens(text)
	drop := make([]bool, len(facts))
	for _, idx := range byPair {
		if len(idx) <= perPair {
			continue
		}
		words := make(map[int]map[string]bool, len(idx))
		medWords := map[string]map[string]bool{}
		for _, i := range idx {
			words[i] = explore.FactWords(d, facts[i])
			if m := facts[i].Mediator; m != "" {
				if medWords[m] == nil {
					medWords[m] = map[string]bool{}
				}
				for w := range words[i] {
					medWords[m][w] = true
				}
			}
		}
		// A mediator's facts rank together, by what the mediator as a
		// whole shares with text, then each by its own words.
		group, own := make(map[int]float64, len(idx)), make(map[int]float64, len(idx))
		for _, i := range idx {
			own[i] = explore.Overlap(q, words[i])
			group[i] = own[i]
			if m := facts[i].Mediator; m != "" {
				group[i] = explore.Overlap(q, medWords[m])
			}
		}
		ranked := append([]int(nil), idx...)
		sort.SliceStable(ranked, func(a, b int) bool {
			ia, ib := ranked[a], ranked[b]
			switch {
			case group[ia] != group[ib]:
				return group[ia] > group[ib]
			case facts[ia].Mediator != facts[ib].Mediator:
				return facts[ia].Mediator < facts[ib].Mediator
			case own[ia] != own[ib]:
				return own[ia] > own[ib]
			}
			return factOrder(facts[ia]) < factOrder(facts[ib])
		})
		for _, i := range ranked[perPair:] {
			drop[i] = true
		}
	}
	kept := make([]kgqa.Fact, 0, len(facts))
	for i, f := range facts {
		if !drop[i] {
			kept = append(kept, f)
		}
	}
	return kept
}

// factOrder is a fact's place among equals: its path and tail, so that a
// tie does not depend on the order the KG returned the facts in.
func factOrder(f kgqa.Fact) string {
	return strings.Join(f.Path, " ") + "\x00" + f.Tail.Key()
}

// expand completes res with the neighbours the model was not shown along
// every relation whose shown neighbours all are in res: the model chose
// that relation's neighbours, not some of them. It returns the completed
// result and what was added, nil when nothing was.
func expand(res kgqa.Result, all, shown []kgqa.Fact) (kgqa.Result, *kgqa.Expansion) {
	if len(all) == len(shown) {
		return res, nil
	}
	in := map[string]bool{}
	for _, t := range res.Entities {
		in[t.Key()] = true
	}
	whole := map[string]bool{} // relations whose shown tails are all in res
	for _, f := range shown {
		k := relationKey(f)
		if v, ok := whole[k]; !ok || v {
			whole[k] = in[f.Tail.Key()]
		}
	}
	var x kgqa.Expansion
	var rels []string
	seenRel := map[string]bool{}
	for _, f := range all {
		k := relationKey(f)
		if !whole[k] || in[f.Tail.Key()] {
			continue
		}
		in[f.Tail.Key()] = true
		res.Entities = append(res.Entities, f.Tail)
		x.Added++
		if !seenRel[k] {
			seenRel[k] = true
			rels = append(rels, k)
		}
	}
	if x.Added == 0 {
		return res, nil
	}
	x.Relations = rels
	res.Text = names(res.Entities)
	return res, &x
}

// cappedFrom reports whether a member of ts was reached by a neighbour
// query that hit its limit (a pair in some round's Capped).
func cappedFrom(rounds []*kgqa.Round, ts []kgqa.Term) bool {
	in := map[string]bool{}
	for _, t := range ts {
		in[t.Key()] = true
	}
	for _, rd := range rounds {
		if rd == nil || len(rd.Capped) == 0 {
			continue
		}
		capped := map[string]bool{}
		for _, c := range rd.Capped {
			capped[kgqa.Term{ID: c.Entity}.Key()+"\x00"+c.Relation.ID+"\x00"+string(c.Relation.Dir)] = true
		}
		for _, f := range rd.Facts {
			if capped[pairKey(f)] && in[f.Tail.Key()] {
				return true
			}
		}
	}
	return false
}

// rankFacts keeps the n facts most lexically relevant to text, in their
// original order among equals.
func rankFacts(d kg.Dialect, text string, facts []kgqa.Fact, n int) []kgqa.Fact {
	if len(facts) <= n {
		return facts
	}
	q := explore.Tokens(text)
	idx := make([]int, len(facts))
	score := make([]float64, len(facts))
	for i, f := range facts {
		idx[i] = i
		score[i] = explore.Overlap(q, explore.FactWords(d, f))
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	out := make([]kgqa.Fact, 0, n)
	for _, i := range idx[:n] {
		out = append(out, facts[i])
	}
	return out
}
