package engine

import (
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine/explore"
)

// A verdict's answer of values is doubtful when the subgoal did not ask
// for them (see doubt): a mediator's date or number, reached along a
// relation the subgoal's words do not name.

// unasked reports whether every value of verdict v's answer is reached
// only through a mediator (a marriage, a membership, a filming) along a
// second relation that shares no word with the subgoal (its text without
// the anchors' names): a date or number of the node, its "from" or "end",
// that the subgoal does not ask for. attr names the first such relation.
func unasked(sg *subgoalRun, text string, v kgqa.Verdict, shown []kgqa.Fact, anchors []kgqa.Term) (attr string, ok bool) {
	d := sg.e.g.Dialect()
	q := explore.Tokens(explore.WithoutNames(text, anchors))
	for _, e := range v.Entities {
		reached := false
		for _, f := range shown {
			if f.Tail.Key() != e.Key() {
				continue
			}
			if len(f.Path) != 2 {
				return "", false
			}
			last := d.Readable(f.Path[1])
			if explore.Overlap(q, explore.Tokens(property(last))) > 0 {
				return "", false
			}
			reached = true
			if attr == "" {
				attr = last
			}
		}
		if !reached {
			return "", false
		}
	}
	return attr, attr != ""
}
