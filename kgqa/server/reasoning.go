package server

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parog/parog-go/kgqa"
)

// Bounds that keep a reasoning line short: a chat client shows it as it
// comes, and the full records are on /v1/ask.
const (
	maxReasonText  = 160 // runes of an answer or subgoal text
	maxReasonNames = 5   // entities or relations listed before "and N more"
)

// narrator turns engine events into the human-readable lines sent as
// reasoning_content on /v1/chat/completions. It remembers the plan so that
// later lines can name a subgoal by its text. Calls must be serialised, as
// the engine serialises its events.
type narrator struct {
	subgoals map[string]string
}

// line is the text for ev, ending in a newline, or "" for an event that
// has none (the final answer is the content, not reasoning).
func (n *narrator) line(ev kgqa.Event) string {
	var s string
	switch ev.Type {
	case kgqa.EventRewrite:
		s = rewrite(ev.Rewrite)
	case kgqa.EventPlan:
		s = n.plan(ev.Plan, ev.PlanInfo)
	case kgqa.EventSubgoalStarted:
		s = ev.Subgoal + ": " + clip(n.subgoals[ev.Subgoal])
		if len(ev.Anchors) > 0 {
			terms := make([]kgqa.Term, len(ev.Anchors))
			for i, a := range ev.Anchors {
				terms[i] = kgqa.Term{ID: a.ID, Name: a.Name}
			}
			s += " Starting from " + names(terms) + "."
		}
	case kgqa.EventTentative:
		if ev.Tentative != nil {
			s = fmt.Sprintf("%s: tentative answer from the model: %q", ev.Subgoal, clip(ev.Tentative.Answer))
		}
	case kgqa.EventExploration:
		if ev.Round != nil {
			s = ev.Subgoal + ": " + exploration(ev.Round)
		}
	case kgqa.EventRefinement:
		if ev.Verdict != nil {
			v := ev.Verdict
			switch {
			case v.KeptTentative:
				s = fmt.Sprintf("%s: the facts do not settle it; keeping the tentative answer %q", ev.Subgoal, clip(v.Answer))
			case strings.TrimSpace(v.Answer) == "":
				s = ev.Subgoal + ": the facts give no answer yet"
			default:
				s = fmt.Sprintf("%s: checked against the facts: %q", ev.Subgoal, clip(v.Answer))
			}
			if len(v.Rejected) > 0 {
				s += fmt.Sprintf("; dropped %d not in the facts", len(v.Rejected))
			}
		}
	case kgqa.EventSufficiency:
		if ev.Sufficiency != nil {
			if ev.Sufficiency.Sufficient {
				s = fmt.Sprintf("After %s: enough to answer: %q", ev.Subgoal, clip(ev.Sufficiency.Answer))
			} else {
				s = fmt.Sprintf("After %s: not enough to answer yet.", ev.Subgoal)
			}
		}
	case kgqa.EventSubgoalDone:
		if ev.Result != nil {
			s = ev.Subgoal + " done: " + result(ev.Result)
		}
	}
	if s == "" {
		return ""
	}
	return s + "\n"
}

func (n *narrator) plan(p *kgqa.Plan, info *kgqa.PlanInfo) string {
	if p == nil {
		return "Plan ready."
	}
	n.subgoals = make(map[string]string, len(p.Subgoals))
	var b strings.Builder
	fmt.Fprintf(&b, "Plan: %d subgoal%s", len(p.Subgoals), plural(len(p.Subgoals)))
	if info != nil {
		switch info.Source {
		case "planner":
			b.WriteString(", by the planner")
		case "reasoner_few_shot":
			b.WriteString(", by the reasoner from examples")
		case "given":
			b.WriteString(", as given")
		}
	}
	b.WriteString(".")
	for _, sg := range p.Subgoals {
		n.subgoals[sg.ID] = sg.Text
		fmt.Fprintf(&b, "\n  %s: %s", sg.ID, clip(sg.Text))
		if len(sg.Needs) > 0 {
			fmt.Fprintf(&b, " (needs %s)", strings.Join(sg.Needs, ", "))
		}
	}
	return b.String()
}

func exploration(r *kgqa.Round) string {
	s := "hop " + strconv.Itoa(r.Depth+1)
	if len(r.Anchors) > 0 {
		s += " from " + names(r.Anchors)
	}
	if len(r.Chosen) == 0 {
		return fmt.Sprintf("%s: none of %d relation%s fits.", s, r.Offered, plural(r.Offered))
	}
	rels := make([]string, len(r.Chosen))
	for i, rel := range r.Chosen {
		rels[i] = rel.ID
		if rel.Dir == kgqa.In {
			rels[i] = "inverse of " + rel.ID
		}
	}
	return fmt.Sprintf("%s: followed %s (of %d relation%s), %d fact%s.",
		s, list(rels), r.Offered, plural(r.Offered), len(r.Facts), plural(len(r.Facts)))
}

func result(r *kgqa.Result) string {
	s := names(r.Entities)
	if s == "" {
		s = clip(r.Text)
	}
	if s == "" {
		s = "no answer"
	}
	switch r.Source {
	case "evidence":
		s += " (from the facts)"
	case "tentative":
		s += " (from the tentative answer)"
	case "exact":
		s += " (by set logic)"
	case "llm":
		s += " (by the model)"
	}
	if r.Capped {
		s += ", may be incomplete"
	}
	return s + "."
}

// names lists terms by name (the id when unnamed), at most maxReasonNames.
func names(ts []kgqa.Term) string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		n := clip(t.Name)
		if n == "" {
			n = t.ID
		}
		out = append(out, n)
	}
	return list(out)
}

// list joins items, naming how many are left out past maxReasonNames.
func list(items []string) string {
	if len(items) <= maxReasonNames {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxReasonNames], ", ") + fmt.Sprintf(" and %d more", len(items)-maxReasonNames)
}

// clip puts s on one line and cuts it at maxReasonText runes: model
// output may hold newlines, which would break the line structure.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxReasonText {
		return s
	}
	r := []rune(s)
	return string(r[:maxReasonText]) + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// rewrite is the line of a chat message's classification: the standalone
// question a follow-up was read as, or the refusal's reason tag.
func rewrite(rw *kgqa.Rewrite) string {
	if rw == nil {
		return ""
	}
	switch rw.Verdict {
	case kgqa.VerdictFollowUp:
		return fmt.Sprintf("Follow-up read as: %q", clip(rw.Question))
	case kgqa.VerdictUnsafe:
		return "Refused (" + rw.Verdict + ")."
	}
	return ""
}
