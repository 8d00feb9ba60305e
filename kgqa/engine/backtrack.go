package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// Backtracking across subgoals: a find whose result leaves a later step
// with nothing is not taken as final. Once every needed subgoal has run,
// a step that came back with nothing (a find with no entity to start
// from, no relation chosen or no fact aligned; an intersect that comes
// back empty; a compare or superlative left with no member, or whose
// members are no find's evidence) reopens one find it needs: that find
// takes its next-best entities, those its own facts
// reached along another relation, or, when its facts reached no other,
// those of one more round along the relations it has not tried; then
// the steps that depend on it run again from the new result. When they
// still find nothing, the first results stand. Each find is reopened at
// most once, so a run always ends, and a run in which no step comes back
// with nothing costs nothing more.

// backtrackAndConclude backtracks (see backtrack), then concludes the
// run unless a step run again judged the question answered.
func backtrackAndConclude(ctx context.Context, r *run, plan *kgqa.Plan) error {
	stopped, err := backtrack(ctx, r, plan)
	if err != nil || stopped {
		return err
	}
	return conclude(ctx, r, plan)
}

// backtrack reopens finds whose results left a later step with nothing
// (see above). stopped reports that a step run again judged the question
// answered, as an early stop does.
func backtrack(ctx context.Context, r *run, plan *kgqa.Plan) (stopped bool, err error) {
	if r.isStopped() {
		return false, nil
	}
	order, err := executionOrder(r, plan)
	if err != nil {
		return false, err
	}
	needed := plan.Ancestors(plan.AnswerID())
	reopened := map[string]bool{}
	for {
		step, p := starvedStep(r, plan, order, needed, reopened)
		if step == "" {
			return false, nil
		}
		reopened[p] = true
		if stopped, err := reopen(ctx, r, plan, order, needed, p, step); err != nil || stopped {
			return stopped, err
		}
	}
}

// starvedStep returns the first step, in execution order, that came back
// with nothing from a find it needs that is still to reopen, and that
// find: one whose own verdict rejected its facts first, else the last.
func starvedStep(r *run, plan *kgqa.Plan, order []int, needed, reopened map[string]bool) (step, prereq string) {
	for _, i := range order {
		s := plan.Subgoals[i]
		if !needed[s.ID] || !starved(r, s) {
			continue
		}
		var cands []string
		for _, n := range s.Needs {
			if rec := r.records[n]; rec != nil && !reopened[n] && rec.Op == kgqa.OpFind && rec.Status == statusDone && len(rec.Rounds) > 0 {
				cands = append(cands, n)
			}
		}
		if len(cands) == 0 {
			continue
		}
		for _, n := range cands {
			if r.records[n].Result.Source != "evidence" {
				return s.ID, n
			}
		}
		return s.ID, cands[len(cands)-1]
	}
	return "", ""
}

// starved reports whether step s, done, came back with nothing from what
// the steps it needs gave it: a find with no anchor, no relation chosen
// or no aligned fact, an empty intersect, a compare or superlative with
// no member left or whose members no find's evidence gave.
func starved(r *run, s kgqa.Subgoal) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.records[s.ID]
	if rec == nil || rec.Status != statusDone || len(s.Needs) == 0 {
		return false
	}
	switch s.Op {
	case kgqa.OpFind:
		if len(rec.Anchors) == 0 || rec.Result.Source == "verified" {
			return len(rec.Anchors) == 0
		}
		chose := slices.ContainsFunc(rec.Rounds, func(rd *kgqa.Round) bool { return rd != nil && len(rd.Chosen) > 0 })
		return !chose || rec.Result.Source != "evidence"
	case kgqa.OpIntersect:
		return len(rec.Result.Entities) == 0
	case kgqa.OpCompare, kgqa.OpSuperlative:
		if len(rec.Result.Entities) == 0 {
			return true
		}
		for _, n := range s.Needs {
			if res := r.results[n]; res != nil && (res.Source == "evidence" || res.Source == "verified") {
				return false
			}
		}
		return true // its members are no find's evidence
	}
	return false
}

// maxAlternatives bounds the next-best entity sets a reopened find
// tries, each running again the steps that depend on it.
const maxAlternatives = 2

// reopen gives find p its next-best entities and runs again the steps
// that depend on it, in order, until step finds something or the
// alternatives run out; the first results are then restored.
func reopen(ctx context.Context, r *run, plan *kgqa.Plan, order []int, needed map[string]bool, p, step string) (bool, error) {
	sg := r.subgoal(plan, plan.Subgoals[r.pos[p]])
	from := clip(summary(sg.rec.Result), 200)
	alts, err := linkAlternative(ctx, r, plan, sg, step)
	if err == nil && len(alts) == 0 {
		alts, err = nextBest(ctx, sg)
	}
	if err != nil {
		return false, err
	}
	saved := r.save(plan, order, needed, p)
	for _, alt := range alts[:min(len(alts), maxAlternatives)] {
		to := alt.path + ": " + clip(names(alt.entities), 200)
		r.mu.Lock()
		for n := range alt.others {
			if _, ok := saved[n]; !ok {
				saved[n] = savedStep{*r.records[n], r.results[n], r.depth[n]}
			}
		}
		r.mu.Unlock()
		sufficient, err := rerun(ctx, r, plan, order, saved, p, alt.entities, sg.rec.Rounds, alt.others)
		if err != nil {
			return false, err
		}
		if sufficient {
			r.recovered(kgqa.RecoveryBacktrack, p, from, to)
			skipAfterStop(r)
			return true, nil
		}
		if !starved(r, plan.Subgoals[r.pos[step]]) {
			r.recovered(kgqa.RecoveryBacktrack, p, from, to)
			return false, nil
		}
	}
	r.restore(saved)
	r.recovered(kgqa.RecoveryBacktrack, p, from, "")
	return false, nil
}

// rerun sets find p's result to ents, and each find in set to its
// entities, and runs again, in order, the other steps save kept that
// depend on p. It reports whether one judged the question answered.
func rerun(ctx context.Context, r *run, plan *kgqa.Plan, order []int, saved saved, p string, ents []kgqa.Term, rounds []*kgqa.Round, set map[string][]kgqa.Term) (bool, error) {
	r.mu.Lock()
	r.setResult(p, ents, rounds)
	for n, ents := range set {
		r.setResult(n, ents, r.records[n].Rounds)
	}
	r.mu.Unlock()
	for _, i := range order {
		d := plan.Subgoals[i]
		if _, again := saved[d.ID]; !again || d.ID == p || set[d.ID] != nil {
			continue
		}
		r.mu.Lock()
		rec := r.records[d.ID]
		*rec = kgqa.SubgoalRecord{ID: rec.ID, Text: rec.Text, Op: rec.Op, Needs: rec.Needs, Retrieval: rec.Retrieval, Boundary: rec.Boundary, Ordering: rec.Ordering, Status: statusPending}
		r.mu.Unlock()
		sufficient, err := runSubgoal(ctx, r, plan, d)
		if err != nil || sufficient {
			return sufficient, err
		}
	}
	return false, nil
}

// setResult sets find id's result to ents, which its rounds reached:
// evidence, as a verdict would have it. r.mu is held.
func (r *run) setResult(id string, ents []kgqa.Term, rounds []*kgqa.Round) {
	res := kgqa.Result{Text: names(ents), Entities: ents, Source: "evidence", Capped: cappedFrom(rounds, ents)}
	r.records[id].Result, r.results[id] = res, &res
}

// subgoal is the state of a subgoal that has run, to run a step of it again.
func (r *run) subgoal(plan *kgqa.Plan, s kgqa.Subgoal) *subgoalRun {
	rec := r.records[s.ID]
	r.mu.Lock()
	d0 := r.depth[s.ID]
	r.mu.Unlock()
	return &subgoalRun{run: r, plan: plan, s: s, rec: rec, d0: d0, b: withPack(r.b, rec.Retrieval)}
}

// alternative is a next-best result of a reopened find: the entities
// its facts reached along one path, and that path in words.
type alternative struct {
	entities []kgqa.Term
	path     string
	others   map[string][]kgqa.Term // sibling branches' results it sets too
}

// nextBest returns the entity sets find sg's facts reached from its own
// anchors along paths that reach an entity outside its result, in the
// order its rounds chose them; when there is none, those of one more
// round from its anchors along the relations it has not tried (a
// relations call).
func nextBest(ctx context.Context, sg *subgoalRun) ([]alternative, error) {
	anchors := sg.rec.Anchors
	if alts := otherReach(sg.rec.Rounds, anchors, sg.rec.Result.Entities); len(alts) > 0 || len(anchors) == 0 {
		return alts, nil
	}
	x := sg.newExplorer(sg.text())
	if _, err := x.Relations(ctx, anchors); err != nil {
		return nil, err
	}
	rd, end, err := x.Retry(sg.inRound(ctx, len(sg.rec.Rounds)+1), anchors, triedFrom(sg, anchors), sg.d0)
	if rd == nil || err != nil {
		return nil, err
	}
	rd.Retry = retryBacktrack
	sg.rec.Rounds = append(sg.rec.Rounds, rd)
	sg.addFacts(rd.Facts)
	sg.mu.Lock()
	sg.depth[sg.s.ID] = max(sg.depth[sg.s.ID], end)
	sg.mu.Unlock()
	sg.reach(end)
	return otherReach([]*kgqa.Round{rd}, anchors, sg.rec.Result.Entities), nil
}

// retryBacktrack marks the round a reopened find explored.
const retryBacktrack = "backtrack"

// otherReach groups the facts of rounds from anchors by their path and
// returns, in order, the groups that reach an entity outside result.
func otherReach(rounds []*kgqa.Round, anchors, result []kgqa.Term) []alternative {
	at, in := map[string]bool{}, map[string]bool{}
	for _, a := range anchors {
		at[a.Key()] = true
	}
	for _, t := range result {
		in[t.Key()] = true
	}
	var keys []string
	groups := map[string][]kgqa.Term{}
	fresh := map[string]bool{}
	for _, rd := range rounds {
		if rd == nil || rd.Depth != 0 {
			continue
		}
		for _, f := range rd.Facts {
			if !at[f.Head.Key()] || !f.Tail.IsEntity() || at[f.Tail.Key()] {
				continue
			}
			k := fmt.Sprintf("%s (%s)", strings.Join(f.Path, " / "), f.Dir)
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			if !slices.ContainsFunc(groups[k], func(t kgqa.Term) bool { return t.Key() == f.Tail.Key() }) {
				groups[k] = append(groups[k], f.Tail)
			}
			fresh[k] = fresh[k] || !in[f.Tail.Key()]
		}
	}
	var out []alternative
	for _, k := range keys {
		if fresh[k] {
			out = append(out, alternative{entities: groups[k], path: k})
		}
	}
	return out
}

// saved is what a reopened find and the steps run again from it held.
type saved map[string]savedStep

type savedStep struct {
	rec   kgqa.SubgoalRecord
	res   *kgqa.Result
	depth int
}

// save keeps the records and results of find p and of every needed step
// that depends on it.
func (r *run) save(plan *kgqa.Plan, order []int, needed map[string]bool, p string) saved {
	out := saved{}
	r.mu.Lock()
	defer r.mu.Unlock()
	out[p] = savedStep{*r.records[p], r.results[p], r.depth[p]}
	for _, i := range order {
		s := plan.Subgoals[i]
		if !needed[s.ID] || s.ID == p {
			continue
		}
		for _, n := range s.Needs {
			if _, ok := out[n]; ok {
				out[s.ID] = savedStep{*r.records[s.ID], r.results[s.ID], r.depth[s.ID]}
				break
			}
		}
	}
	return out
}

// restore puts back what save kept.
func (r *run) restore(s saved) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, st := range s {
		*r.records[id] = st.rec
		r.results[id] = st.res
		r.depth[id] = st.depth
	}
}
