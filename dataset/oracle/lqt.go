package oracle

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// The planner mode lqt (kgqa/lqt) asks for atomic queries and then how
// each pair relates. The oracle answers both from the gold plan: its
// subgoals are the atomic queries, in plan order, and a pair's relation
// is read from the gold dependencies.

var (
	queryLine = regexp.MustCompile(`(?m)^Query ([AB]): (.*)$`)
	mergeLine = regexp.MustCompile(`(?m)^(Parent|Child) query: (.*)$`)
	refNumber = regexp.MustCompile(`#(\d+)`)
)

// goldAtoms are the gold plan's subgoals as atomic queries, "#k"
// renumbered to positions in the list (the gold ids are s1, s2, ... in
// order, so this changes nothing unless they are not), with what each
// needs by position.
func (t *turn) goldAtoms() ([]map[string]any, []string, [][]int) {
	var p kgqa.Plan
	if err := json.Unmarshal(t.q.plan, &p); err != nil {
		return nil, nil, nil
	}
	pos := map[string]int{}
	for i, s := range p.Subgoals {
		pos[s.ID] = i
	}
	var atoms []map[string]any
	var texts []string
	needs := make([][]int, len(p.Subgoals))
	for i, s := range p.Subgoals {
		text := refNumber.ReplaceAllStringFunc(s.Text, func(m string) string {
			if j, ok := pos["s"+m[1:]]; ok {
				return "#" + strconv.Itoa(j+1)
			}
			return m
		})
		a := map[string]any{"text": text, "op": string(s.Op)}
		if s.Args != nil {
			a["args"] = s.Args
		}
		atoms = append(atoms, a)
		texts = append(texts, text)
		for _, n := range s.Needs {
			needs[i] = append(needs[i], pos[n])
		}
	}
	return atoms, texts, needs
}

func (t *turn) lqtAtoms() map[string]any {
	atoms, _, _ := t.goldAtoms()
	return map[string]any{"reason": "oracle", "queries": atoms}
}

// lqtRelation relates the two queries shown as the gold plan does: the
// one that needs the other is the parent; two needed by one later query
// are siblings; anything else is unrelated. A query that is not one of
// the gold subgoals (as the planner shows them, references spelled out)
// relates to nothing, and the oracle notes it.
func (t *turn) lqtRelation() map[string]any {
	needs, a, b := t.shownPair(queryLine, "A")
	rel := map[string]any{"reason": "oracle", "relation": "unrelated", "parent": ""}
	switch {
	case a < 0 || b < 0:
	case slices.Contains(needs[a], b):
		rel["relation"], rel["parent"] = "parent_child", "A"
	case slices.Contains(needs[b], a):
		rel["relation"], rel["parent"] = "parent_child", "B"
	default:
		for _, ns := range needs {
			if slices.Contains(ns, a) && slices.Contains(ns, b) {
				rel["relation"] = "sibling"
			}
		}
	}
	return rel
}

// lqtMerge judges a merge as the gold plan does: the child joins the
// parent when the parent's gold subgoal needs the child's. A query that is
// not one of the gold subgoals joins nothing, and the oracle notes it.
func (t *turn) lqtMerge() map[string]any {
	needs, p, c := t.shownPair(mergeLine, "Parent")
	merge := p >= 0 && c >= 0 && slices.Contains(needs[p], c)
	return map[string]any{"reason": "oracle", "merge": merge}
}

// shownPair finds the two queries the user message shows on lines matched
// by line (label, text): it returns the gold needs and the gold subgoal
// index of the query labelled first and of the other one, -1 for a query
// that is not one of the gold subgoals (as the planner shows them,
// references spelled out), which the oracle notes.
func (t *turn) shownPair(line *regexp.Regexp, first string) (needs [][]int, x, y int) {
	_, texts, needs := t.goldAtoms()
	shown := map[string]int{}
	for i := range texts {
		k := textKey(prompts.ExpandRefs(texts, i))
		if _, dup := shown[k]; !dup {
			shown[k] = i
		}
	}
	x, y = -1, -1
	for _, m := range line.FindAllStringSubmatch(t.user, 2) {
		i, ok := shown[textKey(m[2])]
		if !ok {
			t.m.note(t.q, "lqt: a query not in the gold plan: "+clip(m[2], 80))
			i = -1
		}
		if m[1] == first {
			x = i
		} else {
			y = i
		}
	}
	return needs, x, y
}
