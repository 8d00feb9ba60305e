package kgqa

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/naming"
)

func normName(t kg.Term) string { return naming.Fold(t.Name) }

// exactSet runs intersect, union and count on the needed results, exactly
// and without the model.
func (sg *subgoalRun) exactSet() (Result, int, error) {
	sg.emit.send(Event{Type: EventSubgoalStarted, Subgoal: sg.s.ID})
	sg.mu.Lock()
	sets := make([][]kg.Term, 0, len(sg.s.Needs))
	for _, n := range sg.s.Needs {
		var ts []kg.Term
		if res := sg.results[n]; res != nil {
			ts = res.Entities
		}
		sets = append(sets, ts)
	}
	sg.mu.Unlock()
	capped := sg.neededCapped()
	rec := &SetOpRecord{Method: "exact"}
	for _, s := range sets {
		rec.Inputs = append(rec.Inputs, len(s))
	}
	sg.rec.SetOp = rec
	var out []kg.Term
	switch sg.s.Op {
	case OpIntersect:
		out = intersect(sets)
	case OpUnion:
		out = union(sets)
	case OpCount:
		n := len(union(sets))
		c := kg.Term{Name: strconv.Itoa(n), Datatype: xsd + "integer"}
		if capped {
			rec.Note = "a lower bound: a counted set was capped by the KG's neighbour limit"
		}
		return Result{Text: c.Name, Entities: []kg.Term{c}, Source: "exact", Capped: capped}, sg.d0, nil
	default:
		return Result{}, sg.d0, stepErr("set_op", sg.s.ID, fmt.Errorf("op %q is not a set operation", sg.s.Op))
	}
	out = nonNil(out)
	return Result{Text: names(out), Entities: out, Source: "exact", Capped: capped}, sg.d0, nil
}

// neededCapped reports whether a result s needs is capped.
func (sg *subgoalRun) neededCapped() bool {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	for _, n := range sg.s.Needs {
		if res := sg.results[n]; res != nil && res.Capped {
			return true
		}
	}
	return false
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// intersect keeps the members of the first set found in every other set,
// in the first set's order.
func intersect(sets [][]kg.Term) []kg.Term {
	if len(sets) == 0 {
		return nil
	}
	var out []kg.Term
	for _, t := range union(sets[:1]) {
		all := true
		for _, s := range sets[1:] {
			if !contains(s, t) {
				all = false
				break
			}
		}
		if all {
			out = append(out, t)
		}
	}
	return out
}

// union merges the sets, keeping the first occurrence of each member.
func union(sets [][]kg.Term) []kg.Term {
	var out []kg.Term
	for _, s := range sets {
		for _, t := range s {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func contains(s []kg.Term, t kg.Term) bool {
	for _, u := range s {
		if sameMember(u, t) {
			return true
		}
	}
	return false
}
