package engine

import (
	"slices"

	"github.com/parog/parog-go/kgqa"
)

// A prompt is a function of the question, the plan and the results of the
// subgoals it depends on, never of what a sibling running beside it happens
// to have finished: a recorded run then replays request for request, and a
// rerun at temperature 0 sends the same prompts whatever the timing.
//
// Three things make that hold. A prompt shows only the results and facts of
// the subgoals the current one depends on (prerequisites). Whether a
// subgoal's refine call also judges sufficiency, and whether a separate
// judgement is asked, depends on which subgoals start after it (rank), not
// on which have finished. And an early stop cuts the run at the same place
// every time: with parallelism above 1 the subgoals run in waves (a
// subgoal's wave is the length of its longest chain of prerequisites), a
// wave starts once the one before it has finished and been judged, and an
// early stop skips the later waves while its own wave finishes; when
// several subgoals of a wave judge the question answerable, the first in
// plan order answers.

// prerequisites returns the subgoals id depends on, transitively: those it
// needs and those the cost-based ordering makes it wait for (a verified
// branch checks the other branch's candidates). id itself is not included.
func prerequisites(r *run, plan *kgqa.Plan, id string) map[string]bool {
	byID := make(map[string]kgqa.Subgoal, len(plan.Subgoals))
	for _, s := range plan.Subgoals {
		byID[s.ID] = s
	}
	out := map[string]bool{}
	var walk func(string)
	walk = func(id string) {
		for _, n := range r.waitsFor(byID[id]) {
			if !out[n] {
				out[n] = true
				walk(n)
			}
		}
	}
	walk(id)
	return out
}

// judgedAfter returns what a judgement made after subgoal id may see: its
// prerequisites and id itself.
func judgedAfter(r *run, plan *kgqa.Plan, id string) map[string]bool {
	known := prerequisites(r, plan, id)
	known[id] = true
	return known
}

// rankSubgoals fixes, before execution, the rank of every subgoal: its
// position in the one-at-a-time order, or its wave when subgoals run in
// parallel. A subgoal of higher rank than another starts after it has
// finished, on every run.
func rankSubgoals(r *run, plan *kgqa.Plan) error {
	r.rank = make(map[string]int, len(plan.Subgoals))
	r.pos = make(map[string]int, len(plan.Subgoals))
	for i, s := range plan.Subgoals {
		r.pos[s.ID] = i
	}
	order, err := executionOrder(r, plan)
	if err != nil {
		return err
	}
	for k, i := range order {
		s := plan.Subgoals[i]
		if r.b.Parallelism <= 1 {
			r.rank[s.ID] = k
			continue
		}
		// order puts every subgoal after those it waits for.
		wave := 0
		for _, n := range r.waitsFor(s) {
			wave = max(wave, r.rank[n]+1)
		}
		r.rank[s.ID] = wave
	}
	return nil
}

// waveWait lists what subgoal s waits for when subgoals run in parallel:
// the subgoals it waits for and every needed subgoal of an earlier wave.
func waveWait(r *run, plan *kgqa.Plan, s kgqa.Subgoal, needed map[string]bool) []string {
	wait := r.waitsFor(s)
	for _, t := range plan.Subgoals {
		if needed[t.ID] && r.rank[t.ID] < r.rank[s.ID] && !slices.Contains(wait, t.ID) {
			wait = append(wait, t.ID)
		}
	}
	return wait
}

// factsOf copies the facts gathered by the subgoals in known (all of them
// when known is nil), in plan order of the subgoal that found them, so the
// list does not depend on which subgoal finished first.
func factsOf(r *run, known map[string]bool) []kgqa.Fact {
	r.mu.Lock()
	refs := make([]factRef, 0, len(r.facts))
	for _, f := range r.facts {
		if known == nil || known[f.subgoal] {
			refs = append(refs, f)
		}
	}
	r.mu.Unlock()
	slices.SortStableFunc(refs, func(a, b factRef) int { return r.pos[a.subgoal] - r.pos[b.subgoal] })
	out := make([]kgqa.Fact, len(refs))
	for i, f := range refs {
		out[i] = f.fact
	}
	return out
}
