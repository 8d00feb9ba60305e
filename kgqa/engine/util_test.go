package engine

import (
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// brief renders a trace compactly for test logs.
func brief(a *kgqa.Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "answer=%q stop=%s err=%q calls=%d cp=%d sparql=%d\n", a.Text, a.Stop, a.Error, a.Usage.LLM.Calls, a.Usage.CriticalPathCalls, a.Usage.SPARQLQueries)
	for _, s := range a.Subgoals {
		fmt.Fprintf(&b, "  %s [%s] %s: %q (%s)", s.ID, s.Op, s.Status, s.Result.Text, s.Result.Source)
		if s.Tentative != nil {
			fmt.Fprintf(&b, " tentative=%q", s.Tentative.Answer)
		}
		if s.Verdict != nil {
			fmt.Fprintf(&b, " aligned=%v", s.Verdict.Aligned)
		}
		b.WriteString("\n")
		for _, r := range s.Rounds {
			fmt.Fprintf(&b, "    round depth=%d offered=%d chosen=%v by=%s rejected=%v facts=%d\n", r.Depth, r.Offered, r.Chosen, r.ChosenBy, r.Rejected, len(r.Facts))
		}
		if s.SetOp != nil {
			fmt.Fprintf(&b, "    setop %+v\n", *s.SetOp)
		}
	}
	return b.String()
}
