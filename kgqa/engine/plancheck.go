package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// The plan check's last resort. A plan the check questions goes back to
// the planner once (see Engine.plan); when the repair contradicts the
// question too, the faults the check can name exactly are mended from
// the plan's own words, at no call:
//
//   - a find whose text uses "#k" but whose needs say otherwise (the
//     hops of a composition put the wrong way round, a dependency left
//     out) needs what its text uses;
//   - a comparison or superlative that goes the other way than the
//     question's plain words say is turned around.
//
// The mended plan runs only when it is valid and the check passes it.

// extremeLint is the reason a plan drops the superlative the question
// asks for, or "": the question's words ask plainly for the largest (or
// the smallest) of something, no subgoal takes one, and no subgoal's
// text carries the word (a find of "the largest city", an attribute
// named "minimum age").
func (d direction) extremeLint(p *kgqa.Plan) string {
	if d.hi == d.lo || slices.ContainsFunc(p.Subgoals, func(s kgqa.Subgoal) bool { return s.Op == kgqa.OpSuperlative }) {
		return ""
	}
	var b strings.Builder
	for _, s := range p.Subgoals {
		b.WriteString(s.Text + " ")
	}
	if text := b.String(); maxWords.in(text, strings.ToLower(text)) || minWords.in(text, strings.ToLower(text)) {
		return ""
	}
	end := "smallest"
	if d.hi {
		end = "largest"
	}
	return fmt.Sprintf("the question asks for the %s of something but no subgoal is a superlative: a constraint of the question is missing", end)
}

// mendFirst mends the first of plans that mending makes pass the check,
// and says how.
func mendFirst(question string, plans []kgqa.Plan) (*kgqa.Plan, string) {
	for _, p := range plans {
		if m, how := mendPlan(question, p); m != nil {
			return m, how
		}
	}
	return nil, ""
}

// mendPlan returns p mended (see above) and how, or nil when mending
// changes nothing or does not give a plan the check passes.
func mendPlan(question string, p kgqa.Plan) (*kgqa.Plan, string) {
	m := kgqa.Plan{Version: p.Version, Answer: p.Answer, Subgoals: slices.Clone(p.Subgoals)}
	var how []string
	if mendNeeds(&m) {
		how = append(how, "needs from the subgoals' #references")
	}
	dir := readDirection(question)
	for i := range m.Subgoals {
		if dir.lint(m.Subgoals[i]) == "" {
			continue
		}
		s := &m.Subgoals[i]
		a := *s.Args
		if s.Op == kgqa.OpCompare {
			a.Cmp = flippedCmp[a.Cmp]
		} else {
			a.Order = map[string]string{"max": "min", "min": "max"}[a.Order]
		}
		s.Args, s.Text = &a, oppositeWords.Replace(s.Text)
		how = append(how, "direction of "+s.ID+" turned around")
	}
	if len(how) == 0 || m.Validate() != nil || lintPlan(question, &m) != nil {
		return nil, ""
	}
	return &m, strings.Join(how, "; ")
}

// mendNeeds makes each find need the subgoals its text uses ("#k"),
// orders the subgoals so that each comes after what it needs, and makes
// the answer the one subgoal no other needs. It reports whether it
// changed anything.
func mendNeeds(p *kgqa.Plan) bool {
	ids := map[string]bool{}
	for _, s := range p.Subgoals {
		ids[s.ID] = true
	}
	changed := false
	for i, s := range p.Subgoals {
		if s.Op != kgqa.OpFind {
			continue
		}
		var refs []string
		for _, m := range refPattern.FindAllStringSubmatch(s.Text, -1) {
			if id := "s" + m[1]; id != s.ID && ids[id] && !slices.Contains(refs, id) {
				refs = append(refs, id)
			}
		}
		if !sameSet(refs, s.Needs) {
			p.Subgoals[i].Needs, changed = refs, true
		}
	}
	if !changed {
		return false
	}
	order, err := p.Order()
	if err != nil {
		return true // Validate rejects it
	}
	subs := make([]kgqa.Subgoal, len(order))
	needed := map[string]bool{}
	for k, i := range order {
		subs[k] = p.Subgoals[i]
		for _, n := range subs[k].Needs {
			needed[n] = true
		}
	}
	p.Subgoals = subs
	var sinks []string
	for _, s := range subs {
		if !needed[s.ID] {
			sinks = append(sinks, s.ID)
		}
	}
	if len(sinks) == 1 {
		p.Answer = sinks[0]
	}
	return true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

var (
	flippedCmp = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}
	// oppositeWords turns a comparison's or superlative's text around.
	oppositeWords = strings.NewReplacer("largest", "smallest", "smallest", "largest", "most", "least", "least", "most",
		"highest", "lowest", "lowest", "highest", "earliest", "latest", "latest", "earliest",
		"longest", "shortest", "shortest", "longest", "before", "after", "after", "before", "more", "less", "less", "more",
		"above", "below", "below", "above", "greater", "smaller", "smaller", "greater", "later", "earlier", "earlier", "later")
)
