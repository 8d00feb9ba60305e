package engine

import (
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
)

// An "aligned" verdict is doubtful when its answer follows a relation
// whose name says less of the subgoal than another relation offered from
// the same anchors: the model chose (or read) the poorer match, as it
// does when it takes "partially contains" for "contains" or a boxer's
// stance for "the boxers with this stance". The relations are compared by
// their property's words alone ("contains" in "location.location.
// contains"): the type's words name the subject, which every relation of
// an anchor shares. Asked again, a model that was right says so again;
// one that was wrong judges the facts misaligned, and the subgoal
// explores on.

// outranked reports whether every answer entity of aligned verdict v is
// reached from the subgoal's anchors only along relations that another
// offered relation outranks by the subgoal's words: one whose property's
// name matches them better (explore.Overlap: more of them, or as many in
// fewer words, as "contains" beats "partially contains") and that was
// either not tried or whose facts were shown. got and better name the two relations.
func outranked(sg *subgoalRun, text string, v kgqa.Verdict, shown []kgqa.Fact, anchors []kgqa.Term) (got, better string, ok bool) {
	order, tried := anchorOffer(sg)
	if len(order) == 0 {
		return "", "", false
	}
	at := map[string]bool{}
	for _, a := range anchors {
		at[a.Key()] = true
	}
	offered := map[kgqa.Relation]bool{}
	for _, r := range order {
		offered[r] = true
	}
	along := map[kgqa.Relation]bool{} // relations reaching an answer entity
	var alongOrder []kgqa.Relation
	withFacts := map[kgqa.Relation]bool{}
	for _, f := range shown {
		withFacts[firstRelation(f)] = true
	}
	for _, e := range v.Entities {
		reached := false
		for _, facts := range [][]kgqa.Fact{v.UsedFacts, shown} {
			for _, f := range facts {
				if len(f.Path) > 1 && f.Tail.Key() == e.Key() {
					// Through a mediator: the subgoal names both of its
					// relations, which its first one's name alone does
					// not say (as in typeOf).
					return "", "", false
				}
				if len(f.Path) > 0 && f.Tail.Key() == e.Key() && at[f.Head.Key()] {
					if r := firstRelation(f); !along[r] {
						along[r] = true
						alongOrder = append(alongOrder, r)
					}
					reached = true
				}
			}
			if reached {
				break
			}
		}
		if !reached {
			return "", "", false
		}
	}
	d := sg.e.g.Dialect()
	q := explore.Tokens(explore.WithoutNames(text, anchors))
	words := func(r kgqa.Relation) float64 {
		return explore.Overlap(q, explore.Tokens(property(d.Readable(r.ID))))
	}
	top := -1.0
	for _, r := range alongOrder {
		if !offered[r] {
			return "", "", false // reached past the anchors' offer
		}
		if n := words(r); n > top {
			top, got = n, d.Readable(r.ID)
		}
	}
	most := top
	for _, r := range order {
		if along[r] || (tried[r] && !withFacts[r]) {
			continue
		}
		if n := words(r); n > most {
			most, better = n, d.Readable(r.ID)
		}
	}
	return got, better, most > top
}

// anchorOffer is the relations the subgoal's rounds offered from its own
// anchors (depth 0), in the order first offered, and those chosen.
func anchorOffer(sg *subgoalRun) (offered []kgqa.Relation, chosen map[kgqa.Relation]bool) {
	chosen = map[kgqa.Relation]bool{}
	seen := map[kgqa.Relation]bool{}
	for _, rd := range sg.rec.Rounds {
		if rd == nil || rd.Depth > 0 {
			continue
		}
		for _, r := range rd.OfferedRelations {
			if !seen[r] {
				seen[r] = true
				offered = append(offered, r)
			}
		}
		for _, r := range rd.Chosen {
			chosen[r] = true
		}
	}
	return offered, chosen
}
