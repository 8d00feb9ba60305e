package oracle

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// The plan errors the oracle makes on purpose: the planner's reply stays a
// valid plan (the plan schema, kgqa's validation) and asks the wrong
// thing. Each takes the first place in the plan where it applies, so an
// error is the same for the same plan.
const (
	// NoisePlanDroppedConstraint drops a narrowing step (a filter,
	// compare, superlative or intersect) and the branch only it used: the
	// answer is its input, unconstrained.
	NoisePlanDroppedConstraint = "plan_dropped_constraint"
	// NoisePlanMergedSubgoals merges a composition's two hops, or a
	// conjunction's two branches, into one find.
	NoisePlanMergedSubgoals = "plan_merged_subgoals"
	// NoisePlanReversedDirection flips a superlative's order or a
	// comparison, else turns a dependency around (the later hop first).
	NoisePlanReversedDirection = "plan_reversed_direction"
	// NoisePlanMissingDependency leaves out a dependency a subgoal has.
	NoisePlanMissingDependency = "plan_missing_dependency"
)

var planTable = map[string]noiseKind{
	NoisePlanDroppedConstraint: planKind(dropConstraint),
	NoisePlanMergedSubgoals:    planKind(mergeSubgoals),
	NoisePlanReversedDirection: planKind(reverseDirection),
	NoisePlanMissingDependency: planKind(missingDependency),
}

// planKind makes a noise kind of a plan mutation, which changes the plan
// in place and reports whether it applied; the result must validate.
func planKind(mutate func(p *kgqa.Plan) bool) noiseKind {
	run := func(d *draft) (string, bool) {
		if !strings.HasPrefix(d.stage, "plan") || d.obj != nil {
			return "", false
		}
		var p kgqa.Plan
		if json.Unmarshal([]byte(d.content), &p) != nil || !mutate(&p) || p.Validate() != nil {
			return "", false
		}
		b, err := json.Marshal(p)
		return string(b), err == nil
	}
	return noiseKind{
		applies: func(d *draft) bool { _, ok := run(d); return ok },
		apply: func(_ *rand.Rand, d *draft) (string, string) {
			s, _ := run(d)
			return s, "stop"
		},
	}
}

var stepRef = regexp.MustCompile(`#(\d+)`)

// answerOf is the plan's answer subgoal id.
func answerOf(p *kgqa.Plan) string {
	if p.Answer != "" {
		return p.Answer
	}
	return p.Subgoals[len(p.Subgoals)-1].ID
}

// redirect makes every use of subgoal from a use of to: needs, "#k"
// references in texts, the answer; then removes from.
func redirect(p *kgqa.Plan, from, to string) {
	ans := answerOf(p)
	fromRef, toRef := "#"+strings.TrimPrefix(from, "s"), "#"+strings.TrimPrefix(to, "s")
	var out []kgqa.Subgoal
	for _, s := range p.Subgoals {
		if s.ID == from {
			continue
		}
		var needs []string
		for _, n := range s.Needs {
			if n == from {
				n = to
			}
			if n != s.ID && !slices.Contains(needs, n) {
				needs = append(needs, n)
			}
		}
		s.Needs = needs
		s.Text = stepRef.ReplaceAllStringFunc(s.Text, func(m string) string {
			if m == fromRef {
				return toRef
			}
			return m
		})
		out = append(out, s)
	}
	p.Subgoals = out
	if ans == from {
		ans = to
	}
	p.Answer = ans
}

// prune removes the subgoals the answer no longer depends on.
func prune(p *kgqa.Plan) {
	by := map[string]kgqa.Subgoal{}
	for _, s := range p.Subgoals {
		by[s.ID] = s
	}
	keep := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if keep[id] {
			return
		}
		keep[id] = true
		for _, n := range by[id].Needs {
			walk(n)
		}
	}
	walk(answerOf(p))
	p.Subgoals = slices.DeleteFunc(p.Subgoals, func(s kgqa.Subgoal) bool { return !keep[s.ID] })
}

func dropConstraint(p *kgqa.Plan) bool {
	for i := len(p.Subgoals) - 1; i >= 0; i-- {
		s := p.Subgoals[i]
		switch s.Op {
		case kgqa.OpFilter, kgqa.OpCompare, kgqa.OpSuperlative, kgqa.OpIntersect:
		default:
			continue
		}
		bound, _ := s.Args.BoundRef()
		for _, n := range s.Needs {
			if n != bound {
				redirect(p, s.ID, n)
				prune(p)
				return true
			}
		}
	}
	return false
}

// firstLower lowers the first letter of s and drops a final full stop.
func firstLower(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func mergeSubgoals(p *kgqa.Plan) bool {
	by := map[string]int{}
	for i, s := range p.Subgoals {
		by[s.ID] = i
	}
	for _, b := range p.Subgoals {
		if b.Op != kgqa.OpFind || len(b.Needs) != 1 {
			continue
		}
		ai, ok := by[b.Needs[0]]
		if !ok || p.Subgoals[ai].Op != kgqa.OpFind {
			continue
		}
		a := &p.Subgoals[ai]
		a.Text = strings.TrimSuffix(strings.TrimSpace(a.Text), ".") + ", then " + firstLower(stepRef.ReplaceAllString(b.Text, "them")) + "."
		redirect(p, b.ID, a.ID)
		return true
	}
	for _, n := range p.Subgoals {
		if n.Op != kgqa.OpIntersect || len(n.Needs) != 2 {
			continue
		}
		ai, aok := by[n.Needs[0]]
		bi, bok := by[n.Needs[1]]
		if !aok || !bok || p.Subgoals[ai].Op != kgqa.OpFind || p.Subgoals[bi].Op != kgqa.OpFind {
			continue
		}
		a, b := &p.Subgoals[ai], p.Subgoals[bi]
		a.Text = strings.TrimSuffix(strings.TrimSpace(a.Text), ".") + " and " + firstLower(b.Text) + "."
		for _, x := range b.Needs {
			if !slices.Contains(a.Needs, x) {
				a.Needs = append(a.Needs, x)
			}
		}
		id, bid := a.ID, b.ID
		redirect(p, n.ID, id)
		redirect(p, bid, id)
		return true
	}
	return false
}

// opposite word pairs, for a flipped superlative or comparison's text.
var opposite = strings.NewReplacer("largest", "smallest", "smallest", "largest", "most", "least", "least", "most",
	"highest", "lowest", "lowest", "highest", "earliest", "latest", "latest", "earliest", "first", "last", "last", "first",
	"longest", "shortest", "shortest", "longest", "before", "after", "after", "before", "more", "less", "less", "more",
	"above", "below", "below", "above", "greater", "smaller", "smaller", "greater")

var flippedCmp = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}

func reverseDirection(p *kgqa.Plan) bool {
	for i := range p.Subgoals {
		s := &p.Subgoals[i]
		if s.Args == nil {
			continue
		}
		a := *s.Args
		switch {
		case s.Op == kgqa.OpSuperlative && a.Order != "":
			a.Order = map[string]string{"max": "min", "min": "max"}[a.Order]
		case s.Op == kgqa.OpCompare && a.Cmp != "" && a.Cmp != "=":
			a.Cmp = flippedCmp[a.Cmp]
		default:
			continue
		}
		s.Args, s.Text = &a, opposite.Replace(s.Text)
		return true
	}
	// No order to flip: the later hop of a composition goes first.
	for bi, b := range p.Subgoals {
		if b.Op != kgqa.OpFind || len(b.Needs) != 1 {
			continue
		}
		ai := slices.IndexFunc(p.Subgoals, func(s kgqa.Subgoal) bool { return s.ID == b.Needs[0] })
		if ai < 0 || p.Subgoals[ai].Op != kgqa.OpFind || len(p.Subgoals[ai].Needs) != 0 {
			continue
		}
		a := p.Subgoals[ai]
		p.Subgoals[bi].Needs = nil
		a.Needs = []string{b.ID}
		p.Subgoals[ai] = p.Subgoals[bi]
		p.Subgoals[bi] = a
		return true
	}
	return false
}

func missingDependency(p *kgqa.Plan) bool {
	for i := len(p.Subgoals) - 1; i >= 0; i-- {
		s := p.Subgoals[i]
		for j := range s.Needs {
			c := p.Subgoals[i]
			c.Needs = slices.Delete(slices.Clone(s.Needs), j, j+1)
			if len(c.Needs) == 0 {
				c.Needs = nil
			}
			trial := kgqa.Plan{Version: p.Version, Answer: p.Answer, Subgoals: slices.Clone(p.Subgoals)}
			trial.Subgoals[i] = c
			if trial.Validate() == nil {
				*p = trial
				return true
			}
		}
	}
	return false
}
