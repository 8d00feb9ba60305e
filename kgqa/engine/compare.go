package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/refine"
)

// exactConstraint applies a comparison or an argmax/argmin to the members'
// parsed values. ok is false when the constraint or the values do not
// parse, so that the model must decide.
func exactConstraint(members []kgqa.Term, facts []kgqa.Fact, a kgqa.Args, rec *kgqa.SetOpRecord) ([]kgqa.Term, bool) {
	if a.Cmp == "" && a.Order == "" {
		return nil, false
	}
	vals := memberValues(members, facts, rec)
	if len(vals) == 0 {
		return nil, false
	}
	if a.Order != "" {
		return argBest(members, vals, a.Order == "max")
	}
	ref, ok := parseRef(a.Value, vals)
	if !ok {
		return nil, false
	}
	return compareWith(members, vals, a.Cmp, []value{ref})
}

// memberValues parses each member's values: a literal member is its own
// value, an entity's are the tails of its facts. It records the first
// value of each member and counts those without one.
func memberValues(members []kgqa.Term, facts []kgqa.Fact, rec *kgqa.SetOpRecord) map[string][]value {
	vals := map[string][]value{}
	rec.Values = map[string]string{}
	for _, m := range members {
		if !m.IsEntity() {
			if v, ok := parseValue(m); ok {
				vals[m.Key()] = append(vals[m.Key()], v)
			}
			continue
		}
		for _, f := range facts {
			if f.Head.ID == m.ID {
				if v, ok := parseValue(f.Tail); ok {
					vals[m.Key()] = append(vals[m.Key()], v)
				}
			}
		}
	}
	for _, m := range members {
		if vs := vals[m.Key()]; len(vs) > 0 {
			rec.Values[m.Key()] = vs[0].String()
		} else {
			rec.Unparsed++
		}
	}
	return vals
}

// compareWith keeps the members with a value that compares as op says
// with one of refs. ok is false when no value was of a reference's kind:
// exact logic cannot decide.
func compareWith(members []kgqa.Term, vals map[string][]value, op string, refs []value) ([]kgqa.Term, bool) {
	var out []kgqa.Term
	compared := false
	for _, m := range members {
		kept := false
		for _, v := range vals[m.Key()] {
			for _, ref := range refs {
				c, ok := v.cmp(ref)
				compared = compared || ok
				if ok && holds(c, op) {
					kept = true
					break
				}
			}
			if kept {
				break
			}
		}
		if kept {
			out = append(out, m)
		}
	}
	return out, compared
}

// boundedConstraint applies a comparison with another subgoal's values
// (bounds). ok is false when the operator, the bounds or the members'
// values do not parse, so that the model must decide.
func boundedConstraint(members []kgqa.Term, facts []kgqa.Fact, a kgqa.Args, bounds []value, rec *kgqa.SetOpRecord) ([]kgqa.Term, bool) {
	if a.Cmp == "" {
		return nil, false
	}
	vals := memberValues(members, facts, rec)
	if len(vals) == 0 || len(bounds) == 0 {
		return nil, false
	}
	return compareWith(members, vals, a.Cmp, bounds)
}

// parseRef reads a comparison's reference value in the kind of the
// members' values: "4600" is a year against dates but a number against
// elevations (parseText alone reads a bare four-digit number as a year).
func parseRef(s string, vals map[string][]value) (value, bool) {
	times, nums := 0, 0
	for _, vs := range vals {
		for _, v := range vs {
			if v.isTime {
				times++
			} else {
				nums++
			}
		}
	}
	if nums > times {
		if f, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(s, ",", "")), 64); err == nil {
			return value{num: f}, true
		}
	}
	return parseText(s)
}

// argBest keeps the member(s) with the largest (or smallest) value; a
// member with several values counts by its best one.
func argBest(members []kgqa.Term, vals map[string][]value, isMax bool) ([]kgqa.Term, bool) {
	sign := 1
	if !isMax {
		sign = -1
	}
	var best *value
	var out []kgqa.Term
	for _, m := range members {
		for _, v := range vals[m.Key()] {
			if best == nil {
				b := v
				best, out = &b, []kgqa.Term{m}
				continue
			}
			c, ok := v.cmp(*best)
			if !ok {
				return nil, false // mixed kinds: let the model decide
			}
			switch c * sign {
			case 1:
				b := v
				best, out = &b, []kgqa.Term{m}
			case 0:
				if !contains(out, m) {
					out = append(out, m)
				}
			}
		}
	}
	return out, best != nil
}

func holds(c int, op string) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "=":
		return c == 0
	}
	return false
}

type selectReply struct {
	Entities  []string `json:"entities"`
	UsedFacts []int    `json:"used_facts"`
	Reason    string   `json:"reason"`
}

// selectMembers asks the model which members satisfy the subgoal; it may
// only name members.
func selectMembers(ctx context.Context, sg *subgoalRun, text string, members []kgqa.Term, facts []kgqa.Fact) ([]kgqa.Term, error) {
	d := sg.e.g.Dialect()
	facts = promptFacts(d, text, facts, sg.b.MaxEntitiesPerRelation, sg.pack().FactsPerPrompt)
	data := prompts.SelectData{Plan: sg.view(), Subgoal: text}
	for _, m := range members {
		data.Members = append(data.Members, prompts.Term(m))
	}
	for _, f := range facts {
		data.Facts = append(data.Facts, prompts.Fact(d, f))
	}
	req, err := sg.e.tmpl.Request(kgqa.Reasoner, prompts.Select, data)
	if err != nil {
		return nil, stepErr("set_op", sg.s.ID, err)
	}
	pseudo := make([]kgqa.Fact, len(members)) // members as resolvable terms
	for i, m := range members {
		pseudo[i] = kgqa.Fact{Head: m, Tail: m}
	}
	var rep selectReply
	var out []kgqa.Term
	check := func() error {
		var rej []string
		out, rej = refine.Resolve(pseudo, rep.Entities)
		if len(rej) > 0 {
			return fmt.Errorf("%q is not one of the candidates", rej[0])
		}
		for _, n := range rep.UsedFacts {
			if n < 1 || n > len(facts) {
				return fmt.Errorf("used_facts: %d is not a fact number (1..%d)", n, len(facts))
			}
		}
		return nil
	}
	if _, err := sg.e.chat.JSON(ctx, req, &rep, check); err != nil {
		return nil, stepErr("set_op", sg.s.ID, err)
	}
	sg.rec.SetOp.Note = joinNotes(sg.rec.SetOp.Note, strings.TrimSpace(rep.Reason))
	return out, nil
}
