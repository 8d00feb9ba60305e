package engine

import (
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// rechecked reports whether the subgoal already asked again for kind
// over the same facts, and notes that it does now: a later round that
// shows the model nothing new does not pay for the same doubt twice.
// An aligned verdict the re-ask rejected is the exception (see reopen):
// the model judging the same facts aligned again later is asked again,
// rather than let the first of its two disagreeing judgements stand.
func (sg *subgoalRun) rechecked(kind kgqa.RecoveryKind, shown []kgqa.Fact) bool {
	key := recheckKey(kind, shown)
	if sg.asked[key] {
		return true
	}
	if sg.asked == nil {
		sg.asked = map[string]bool{}
	}
	sg.asked[key] = true
	return false
}

// reopen notes that the re-ask for kind over the same facts rejected
// the verdict: the doubt is not settled.
func (sg *subgoalRun) reopen(kind kgqa.RecoveryKind, shown []kgqa.Fact) {
	sg.asked[recheckKey(kind, shown)] = false
}

// recheckKey identifies a doubt of kind over the facts shown.
func recheckKey(kind kgqa.RecoveryKind, shown []kgqa.Fact) string {
	var b strings.Builder
	b.WriteString(string(kind))
	for _, f := range shown {
		b.WriteString("|" + f.Head.Key() + " " + strings.Join(f.Path, " ") + " " + string(f.Dir) + " " + f.Tail.Key())
	}
	return b.String()
}
