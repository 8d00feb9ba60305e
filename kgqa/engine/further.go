package engine

import (
	"context"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
)

// An "aligned" verdict is doubtful, too, when the subgoal's words go
// beyond the relation its answer was reached by and the answer itself
// has a relation those leftover words name: "the postal code in the
// street address of X" answered by X's street address, which has a postal
// code of its own. The answer is a step on the way, not the end the
// subgoal asks for. The check reads the answer's relations from the KG
// (no model call); only a doubt it finds costs the one re-ask.

// maxFurtherChecks bounds the answer entities whose relations are read.
const maxFurtherChecks = 3

// beyond reports whether every answer entity of aligned verdict v (at
// most maxFurtherChecks of them) is reached from the subgoal's anchors
// by one relation whose name leaves some of the subgoal's words unsaid,
// and has a relation of its own whose property's name says some of them.
// along and further name the relation that reached the first answer and
// the one it offers further.
func beyond(ctx context.Context, sg *subgoalRun, text string, v kgqa.Verdict, shown []kgqa.Fact, anchors []kgqa.Term) (along, further string, ok bool, err error) {
	if len(v.Entities) == 0 || len(v.Entities) > maxFurtherChecks {
		return "", "", false, nil
	}
	at := map[string]bool{}
	for _, a := range anchors {
		at[a.Key()] = true
	}
	d := sg.e.g.Dialect()
	q := explore.Tokens(explore.WithoutNames(text, anchors))
	for _, e := range v.Entities {
		if !e.IsEntity() || at[e.Key()] {
			return "", "", false, nil
		}
		r, reached := reachedBy(e, at, v.UsedFacts, shown)
		if !reached {
			return "", "", false, nil
		}
		left := map[string]bool{}
		said := explore.Tokens(d.Readable(r.ID))
		for w := range q {
			if !said[w] {
				left[w] = true
			}
		}
		if len(left) == 0 {
			return "", "", false, nil
		}
		rels, err := sg.e.g.Relations(ctx, e.ID)
		if err != nil {
			return "", "", false, stepErr("recheck", sg.s.ID, err)
		}
		next := ""
		for _, r2 := range rels {
			if r2.ID == r.ID {
				continue
			}
			name := d.Readable(r2.ID)
			if _, prop, found := strings.Cut(name, ": "); found {
				name = prop
			}
			if explore.Overlap(left, explore.Tokens(name)) > 0 {
				next = d.Readable(r2.ID)
				break
			}
		}
		if next == "" {
			return "", "", false, nil
		}
		if further == "" {
			along, further = d.Readable(r.ID), next
		}
	}
	return along, further, true, nil
}

// reachedBy is the relation of the first one-hop fact from an anchor to
// e, among the facts the model relied on first, else those shown; ok is
// false when no such fact reaches e (it was reached through a mediator,
// or from elsewhere).
func reachedBy(e kgqa.Term, at map[string]bool, used, shown []kgqa.Fact) (kgqa.Relation, bool) {
	for _, facts := range [][]kgqa.Fact{used, shown} {
		for _, f := range facts {
			if f.Tail.Key() != e.Key() || len(f.Path) == 0 {
				continue
			}
			if len(f.Path) > 1 || !at[f.Head.Key()] {
				return kgqa.Relation{}, false
			}
			return firstRelation(f), true
		}
	}
	return kgqa.Relation{}, false
}
