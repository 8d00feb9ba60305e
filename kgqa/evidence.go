package kgqa

import (
	"strings"

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
func pairKey(f kg.Fact) string {
	first := ""
	if len(f.Path) > 0 {
		first = f.Path[0]
	}
	return f.Head.Key() + "\x00" + first + "\x00" + string(f.Dir)
}

// relationKey identifies the relation (path and directions) of a fact,
// whatever its anchor.
func relationKey(f kg.Fact) string {
	k := strings.Join(f.Path, " / ") + " (" + string(f.Dir)
	if len(f.Path) > 1 {
		k += ", " + string(f.SecondDir())
	}
	return k + ")"
}

// promptFacts chooses the facts a prompt shows: the first perPair of each
// (anchor, relation) pair, then the max most lexically relevant to text.
func promptFacts(d kg.Dialect, text string, facts []kg.Fact, perPair, max int) []kg.Fact {
	if perPair > 0 {
		n := map[string]int{}
		kept := make([]kg.Fact, 0, len(facts))
		for _, f := range facts {
			k := pairKey(f)
			if n[k] < perPair {
				n[k]++
				kept = append(kept, f)
			}
		}
		facts = kept
	}
	return rankFacts(d, text, facts, max)
}

// expand completes res with the neighbours the model was not shown along
// every relation whose shown neighbours all are in res: the model chose
// that relation's neighbours, not some of them. It returns the completed
// result and what was added, nil when nothing was.
func expand(res Result, all, shown []kg.Fact) (Result, *Expansion) {
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
	var x Expansion
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
func cappedFrom(rounds []*Round, ts []kg.Term) bool {
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
			capped[kg.Term{ID: c.Entity}.Key()+"\x00"+c.Relation.ID+"\x00"+string(c.Relation.Dir)] = true
		}
		for _, f := range rd.Facts {
			if capped[pairKey(f)] && in[f.Tail.Key()] {
				return true
			}
		}
	}
	return false
}
