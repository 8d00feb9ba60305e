package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
)

func normName(t kgqa.Term) string { return naming.Fold(t.Name) }

// exactSet runs intersect, union and count on the needed results, exactly
// and without the model.
func exactSet(sg *subgoalRun) (kgqa.Result, int, error) {
	sg.emit.send(kgqa.Event{Type: kgqa.EventSubgoalStarted, Subgoal: sg.s.ID})
	sg.mu.Lock()
	sets := make([][]kgqa.Term, 0, len(sg.s.Needs))
	var known [][]kgqa.Term // the intersect's branches that found or believe something
	var unknown []string
	for _, n := range sg.s.Needs {
		var ts []kgqa.Term
		res := sg.results[n]
		if res != nil {
			ts = res.Entities
		}
		sets = append(sets, ts)
		if res != nil && res.Source == "tentative" && len(ts) == 0 {
			unknown = append(unknown, n)
		} else {
			known = append(known, ts)
		}
	}
	sg.mu.Unlock()
	capped := neededCapped(sg)
	rec := &kgqa.SetOpRecord{Method: "exact"}
	for _, s := range sets {
		rec.Inputs = append(rec.Inputs, len(s))
	}
	sg.rec.SetOp = rec
	var out []kgqa.Term
	switch sg.s.Op {
	case kgqa.OpIntersect:
		// A branch that found no evidence and whose tentative answer
		// names nothing is unknown, not empty: the conjunction is what
		// the other branches found, as when a question's constraint
		// cannot be checked.
		if len(unknown) > 0 && len(known) > 0 {
			sets = known
			rec.Note = "left out of the intersection, having found and believed nothing: " + strings.Join(unknown, ", ")
		}
		out = intersect(sets)
	case kgqa.OpUnion:
		out = union(sets)
	case kgqa.OpCount:
		n := len(union(sets))
		c := kgqa.Term{Name: strconv.Itoa(n), Datatype: xsd + "integer"}
		if capped {
			rec.Note = "a lower bound: a counted set was capped by the KG's neighbour limit"
		}
		return kgqa.Result{Text: c.Name, Entities: []kgqa.Term{c}, Source: "exact", Capped: capped}, sg.d0, nil
	default:
		return kgqa.Result{}, sg.d0, stepErr("set_op", sg.s.ID, fmt.Errorf("op %q is not a set operation", sg.s.Op))
	}
	out = nonNil(out)
	return kgqa.Result{Text: names(out), Entities: out, Source: "exact", Capped: capped}, sg.d0, nil
}

// neededCapped reports whether a result s needs is capped.
func neededCapped(sg *subgoalRun) bool {
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
func intersect(sets [][]kgqa.Term) []kgqa.Term {
	if len(sets) == 0 {
		return nil
	}
	var out []kgqa.Term
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
func union(sets [][]kgqa.Term) []kgqa.Term {
	var out []kgqa.Term
	for _, s := range sets {
		for _, t := range s {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func contains(s []kgqa.Term, t kgqa.Term) bool {
	for _, u := range s {
		if sameMember(u, t) {
			return true
		}
	}
	return false
}
