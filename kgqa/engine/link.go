package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// A branch of an intersect that came back empty is reopened first along
// the relation that meets the other branches (see reopen): the KG says
// which of their candidates its anchors reach, with no model call.

// linkAlternative reopens find sg, a branch from topic entities of the
// intersect step that came back empty, along the relation that meets the
// other branches: among its anchors' relations, the best by the
// subgoal's words whose KG facts reach some of the candidates the other
// branches share (explore.Explorer.Link). When none reaches their
// answers, which may be wrong too, the candidates are what the other
// branches' own facts reached (their first rounds' tails): the
// alternative then sets those branches' results as well, to the
// candidates met. It is found with KG queries and no model call; there
// is none when step is not an intersect or nothing meets.
func linkAlternative(ctx context.Context, r *run, plan *kgqa.Plan, sg *subgoalRun, step string) ([]alternative, error) {
	s := plan.Subgoals[r.pos[step]]
	anchors := sg.rec.Anchors
	if s.Op != kgqa.OpIntersect || len(sg.s.Needs) > 0 || len(anchors) == 0 {
		return nil, nil
	}
	var others []string
	var answers, pools [][]kgqa.Term
	r.mu.Lock()
	for _, n := range s.Needs {
		if res, rec := r.results[n], r.records[n]; n != sg.s.ID && res != nil && rec != nil {
			others = append(others, n)
			answers = append(answers, res.Entities)
			pools = append(pools, union([][]kgqa.Term{res.Entities, reachedFrom(rec)}))
		}
	}
	r.mu.Unlock()
	if len(others) != len(s.Needs)-1 {
		return nil, nil
	}
	x := sg.newExplorer(sg.text())
	for i, sets := range [][][]kgqa.Term{answers, pools} {
		cands := entitiesOf(intersect(sets))
		rd, reached, ok, err := x.Link(ctx, anchors, termIDs(cands))
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		rd.Retry = retryBacktrack
		sg.rec.Rounds = append(sg.rec.Rounds, rd)
		sg.addFacts(rd.Facts)
		rel := rd.Chosen[0]
		met := keepIDs(cands, reached)
		alt := alternative{entities: met, path: fmt.Sprintf("%s (%s), meeting %s", rel.ID, rel.Dir, step)}
		if i == 1 {
			alt.others = map[string][]kgqa.Term{}
			for _, n := range others {
				alt.others[n] = met
			}
			alt.path += " along the facts of " + strings.Join(others, ", ")
		}
		return []alternative{alt}, nil
	}
	return nil, nil
}

// reachedFrom is the entities the first rounds of find rec reached from
// its anchors.
func reachedFrom(rec *kgqa.SubgoalRecord) []kgqa.Term {
	var out []kgqa.Term
	seen := map[string]bool{}
	for _, rd := range rec.Rounds {
		if rd == nil || rd.Depth != 0 {
			continue
		}
		for _, f := range rd.Facts {
			if k := f.Tail.Key(); f.Tail.IsEntity() && !seen[k] {
				seen[k] = true
				out = append(out, f.Tail)
			}
		}
	}
	return out
}

// entitiesOf keeps the entities of ts.
func entitiesOf(ts []kgqa.Term) []kgqa.Term {
	var out []kgqa.Term
	for _, t := range ts {
		if t.IsEntity() {
			out = append(out, t)
		}
	}
	return out
}

// termIDs is the ids of ts.
func termIDs(ts []kgqa.Term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// keepIDs keeps the members of ts whose id is in ids, in ts's order.
func keepIDs(ts []kgqa.Term, ids []string) []kgqa.Term {
	var out []kgqa.Term
	for _, t := range ts {
		if slices.Contains(ids, t.ID) {
			out = append(out, t)
		}
	}
	return out
}
