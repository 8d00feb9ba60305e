package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
)

// tentativeAnswer composes the question's tentative answer from the
// subgoal records of plan. It returns nil when there is no plan.
func tentativeAnswer(plan *kgqa.Plan, recs []*kgqa.SubgoalRecord) *kgqa.TentativeAnswer {
	if plan == nil || len(plan.Subgoals) == 0 {
		return nil
	}
	c := &tentComposer{subgoals: map[string]kgqa.Subgoal{}, recs: map[string]*kgqa.SubgoalRecord{}, done: map[string]tentValue{}}
	for _, s := range plan.Subgoals {
		c.subgoals[s.ID] = s
	}
	for _, r := range recs {
		c.recs[r.ID] = r
	}
	v := c.eval(plan.AnswerID())
	if v.reason != "" {
		return &kgqa.TentativeAnswer{Names: []string{}, Reason: v.reason}
	}
	return &kgqa.TentativeAnswer{Derivable: true, Names: v.names}
}

// tentValue is a subgoal's composed tentative answer: names, or the reason
// it has none.
type tentValue struct {
	names  []string
	reason string
	blank  string // a find it rests on whose tentative answer names nothing
}

type tentComposer struct {
	subgoals map[string]kgqa.Subgoal
	recs     map[string]*kgqa.SubgoalRecord
	done     map[string]tentValue
}

func (c *tentComposer) eval(id string) tentValue {
	if v, ok := c.done[id]; ok {
		return v
	}
	// A validated plan is acyclic; the placeholder guards a trace that
	// is not.
	c.done[id] = tentValue{reason: fmt.Sprintf("subgoal %s depends on itself", id)}
	v := c.compute(id)
	c.done[id] = v
	return v
}

func (c *tentComposer) compute(id string) tentValue {
	s, ok := c.subgoals[id]
	if !ok {
		return tentValue{reason: fmt.Sprintf("subgoal %s is not in the plan", id)}
	}
	switch s.Op {
	case kgqa.OpFind, kgqa.OpFilter, kgqa.OpCompare, kgqa.OpSuperlative:
		rec := c.recs[id]
		if rec == nil || rec.Tentative == nil {
			status := "no record"
			if rec != nil {
				status = rec.Status
			}
			return tentValue{reason: fmt.Sprintf("subgoal %s (%s) has no tentative answer (%s)", id, s.Op, status)}
		}
		v := tentValue{names: unionNames([][]string{rec.Tentative.Names})}
		if len(v.names) == 0 {
			v.blank = id
		}
		return v
	case kgqa.OpIntersect, kgqa.OpUnion, kgqa.OpCount:
		sets := make([][]string, 0, len(s.Needs))
		blank := ""
		for _, n := range s.Needs {
			v := c.eval(n)
			if v.reason != "" {
				return v
			}
			sets = append(sets, v.names)
			if blank == "" {
				blank = v.blank
			}
		}
		switch s.Op {
		case kgqa.OpIntersect:
			return tentValue{names: intersectNames(sets), blank: blank}
		case kgqa.OpUnion:
			return tentValue{names: unionNames(sets), blank: blank}
		}
		if blank != "" {
			return tentValue{reason: fmt.Sprintf("subgoal %s (count) rests on subgoal %s, whose tentative answer names no entity", id, blank)}
		}
		return tentValue{names: []string{strconv.Itoa(len(unionNames(sets)))}}
	}
	return tentValue{reason: fmt.Sprintf("subgoal %s has unknown op %q", id, s.Op)}
}

// unionNames merges name sets, keeping the first spelling of each
// normalised name and dropping blank ones.
func unionNames(sets [][]string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range sets {
		for _, n := range s {
			n = strings.TrimSpace(n)
			k := naming.Fold(n)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, n)
		}
	}
	return out
}

// intersectNames keeps the names of the first set whose normalised form
// is in every other set.
func intersectNames(sets [][]string) []string {
	if len(sets) == 0 {
		return []string{}
	}
	out := []string{}
	for _, n := range unionNames(sets[:1]) {
		k := naming.Fold(n)
		all := true
		for _, s := range sets[1:] {
			found := false
			for _, m := range s {
				if naming.Fold(m) == k {
					found = true
					break
				}
			}
			if !found {
				all = false
				break
			}
		}
		if all {
			out = append(out, n)
		}
	}
	return out
}
