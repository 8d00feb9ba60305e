package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/parog/parog-go/internal/fanout"
	"github.com/parog/parog-go/kgqa"
	"golang.org/x/sync/errgroup"
)

// Subgoal statuses recorded in SubgoalRecord.Status.
const (
	statusPending = "pending"
	statusRunning = "running"
	statusDone    = "done"
	statusFailed  = "failed"
	statusSkipped = "skipped"
)

// execute runs the subgoals the answer depends on, at most Parallelism at
// once, in waves (see determinism.go): each subgoal once the subgoals it
// needs and every earlier wave are done. An early stop (the question judged
// answerable) lets its wave finish and skips the rest without error.
func execute(ctx context.Context, r *run, plan *kgqa.Plan) error {
	r.results = map[string]*kgqa.Result{}
	r.depth = map[string]int{}
	r.records = map[string]*kgqa.SubgoalRecord{}
	for _, rec := range r.ans.Subgoals {
		r.records[rec.ID] = rec
	}
	needed := plan.Ancestors(plan.AnswerID())
	for _, rec := range r.ans.Subgoals {
		if !needed[rec.ID] {
			rec.Status, rec.Error = statusSkipped, "not needed by the answer subgoal"
		}
	}
	if err := orderBranches(ctx, r, plan); err != nil {
		return err
	}
	if err := rankSubgoals(r, plan); err != nil {
		return err
	}
	if r.b.Parallelism <= 1 {
		return executeInOrder(ctx, r, plan, needed)
	}
	done := make(map[string]chan struct{}, len(plan.Subgoals))
	for _, s := range plan.Subgoals {
		done[s.ID] = make(chan struct{})
	}
	sem := make(chan struct{}, r.b.Parallelism)
	g, gctx := errgroup.WithContext(ctx)
	var tasks []func() error
	for _, s := range plan.Subgoals {
		if !needed[s.ID] {
			continue
		}
		tasks = append(tasks, func() error {
			for _, n := range waveWait(r, plan, s, needed) {
				select {
				case <-done[n]:
				case <-gctx.Done():
					return r.quiet(gctx.Err())
				}
			}
			select {
			case sem <- struct{}{}:
			case <-gctx.Done():
				return r.quiet(gctx.Err())
			}
			defer func() { <-sem }()
			if gctx.Err() != nil {
				return r.quiet(gctx.Err())
			}
			// An early stop comes from an earlier wave, all of which has
			// finished: it skips this subgoal on every run alike.
			if r.isStopped() {
				close(done[s.ID])
				return nil
			}
			// The stop, if this subgoal makes one, is recorded before done
			// releases the next wave.
			if _, err := runSubgoal(gctx, r, plan, s); err != nil {
				return r.quiet(err)
			}
			close(done[s.ID])
			return nil
		})
	}
	if err := fanout.Run(g, tasks); err != nil {
		return err
	}
	if r.isStopped() {
		skipAfterStop(r)
		return nil
	}
	// Every needed subgoal finished: concluding from their results is
	// computation, and the final-answer call, when one is needed, fails on
	// its own if the deadline has passed.
	return backtrackAndConclude(ctx, r, plan)
}

// executeInOrder runs the needed subgoals one at a time in a fixed order,
// Plan.Order's: each subgoal after those it needs (and a verified branch
// after the branch it checks), ties in plan order. With
// one subgoal at a time the order is then the same on every run; the
// prompts are the same at any parallelism (see determinism.go), which a
// replayed or sharded eval relies on.
func executeInOrder(ctx context.Context, r *run, plan *kgqa.Plan, needed map[string]bool) error {
	order, err := executionOrder(r, plan)
	if err != nil {
		return err
	}
	for _, i := range order {
		s := plan.Subgoals[i]
		if !needed[s.ID] {
			continue
		}
		sufficient, err := runSubgoal(ctx, r, plan, s)
		if err != nil {
			return err
		}
		if sufficient {
			skipAfterStop(r)
			return nil
		}
	}
	return backtrackAndConclude(ctx, r, plan)
}

// skipAfterStop marks the subgoals an early stop left undone.
func skipAfterStop(r *run) {
	for _, rec := range r.ans.Subgoals {
		if rec.Status == statusPending || rec.Status == statusRunning {
			rec.Status, rec.Error = statusSkipped, "question answered early"
		}
	}
}

// runSubgoal runs one subgoal, records its result and reports whether the
// question was judged answerable after it.
func runSubgoal(ctx context.Context, r *run, plan *kgqa.Plan, s kgqa.Subgoal) (bool, error) {
	start := time.Now()
	rec := r.records[s.ID]
	r.mu.Lock()
	rec.Status = statusRunning
	d0 := r.base
	for _, n := range r.waitsFor(s) {
		d0 = max(d0, r.depth[n])
	}
	r.mu.Unlock()
	sg := &subgoalRun{run: r, plan: plan, s: s, rec: rec, d0: d0, b: withPack(r.b, rec.Retrieval)}
	res, end, err := sg.execute(kgqa.WithStep(ctx, kgqa.Step{Subgoal: s.ID}))
	r.mu.Lock()
	rec.ElapsedMS = time.Since(start).Milliseconds()
	if err != nil {
		rec.Status, rec.Error = statusFailed, err.Error()
		if r.stopped && errors.Is(err, context.Canceled) {
			rec.Status, rec.Error = statusSkipped, "question answered early"
		}
		r.mu.Unlock()
		return false, err
	}
	rec.Status, rec.Result = statusDone, res
	r.results[s.ID] = &res
	r.depth[s.ID] = end
	r.mu.Unlock()
	r.recordActual(s.ID, res)
	r.reach(end)
	resCopy := res
	r.emit.send(kgqa.Event{Type: kgqa.EventSubgoalDone, Subgoal: s.ID, Result: &resCopy, SetOp: rec.SetOp})
	if s.ID == plan.AnswerID() || !mayStopEarly(r, plan, s.ID) {
		return false, nil
	}
	return sufficiency(ctx, sg)
}

// mayStopEarly reports whether asking if the question can be answered
// after finished is worth it and safe: a needed subgoal other than
// finished has not finished and will ask the model (a find), and none of
// the needed subgoals left is a set or constraint step. An early answer
// is the model's free text: it must never stand in for an intersection,
// a count, a comparison or a superlative that exact logic is still to
// compute, so those steps always run.
func mayStopEarly(r *run, plan *kgqa.Plan, finished string) bool {
	needed := plan.Ancestors(plan.AnswerID())
	r.mu.Lock()
	defer r.mu.Unlock()
	finds := false
	for _, s := range plan.Subgoals {
		if !needed[s.ID] || r.rank[s.ID] <= r.rank[finished] {
			continue
		}
		if s.Op != kgqa.OpFind {
			return false
		}
		finds = true
	}
	return finds
}

// conclude sets the answer from the answer subgoal's result, or from a
// final-answer call when that result is empty. When exploration found no
// fact for any subgoal the answer rests on the model's own knowledge (its
// tentative answers, composed by the plan), as when no topic entity
// links: it is flagged AnsweredWithoutKG so that evaluations count it
// apart.
func conclude(ctx context.Context, r *run, plan *kgqa.Plan) error {
	r.mu.Lock()
	res := r.results[plan.AnswerID()]
	noFacts := len(r.facts) == 0
	r.mu.Unlock()
	if res != nil && (len(res.Entities) > 0 || strings.TrimSpace(res.Text) != "") {
		r.ans.Text, r.ans.Entities = res.Text, nonNil(res.Entities)
		if r.ans.Text == "" {
			r.ans.Text = names(res.Entities)
		}
		r.ans.Stop = kgqa.StopPlanComplete
		if noFacts {
			r.ans.AnsweredWithoutKG = true
			r.ans.Final = &kgqa.FinalRecord{Source: "model_knowledge", Reason: noFactsReason}
		}
		return nil
	}
	return finalAnswer(ctx, r, plan)
}

// noFactsReason is the trace's note on a question whose topic entities
// linked but whose exploration found no fact.
const noFactsReason = "exploration found no fact in the KG for any subgoal: the answer is the model's own knowledge"

func nonNil(ts []kgqa.Term) []kgqa.Term {
	if ts == nil {
		return []kgqa.Term{}
	}
	return ts
}

// names joins the names (or ids) of terms for an answer text.
func names(ts []kgqa.Term) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		switch {
		case t.Name != "":
			parts = append(parts, t.Name)
		default:
			parts = append(parts, t.ID)
		}
	}
	return strings.Join(parts, "; ")
}

// executionOrder returns the subgoal indexes in an order where each
// subgoal follows those it needs and those it waits for (r.after), ties in
// Plan.Order's order.
func executionOrder(r *run, plan *kgqa.Plan) ([]int, error) {
	order, err := plan.Order()
	if err != nil || len(r.after) == 0 {
		return order, err
	}
	done := map[string]bool{}
	out := make([]int, 0, len(order))
	for len(out) < len(order) {
		progressed := false
		for _, i := range order {
			s := plan.Subgoals[i]
			if done[s.ID] || !allDone(done, s.Needs) || !allDone(done, r.after[s.ID]) {
				continue
			}
			done[s.ID], progressed = true, true
			out = append(out, i)
			break
		}
		if !progressed { // cannot happen: a branch waits only for a root find
			return order, nil
		}
	}
	return out, nil
}

func allDone(done map[string]bool, ids []string) bool {
	for _, id := range ids {
		if !done[id] {
			return false
		}
	}
	return true
}
