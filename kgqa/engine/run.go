package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/prompts"
)

// finish sets the stop reason and error text.
func (r *run) finish(err error) {
	switch {
	case err == nil:
		if r.ans.Stop == "" {
			r.ans.Stop = kgqa.StopPlanComplete
		}
		return
	case errors.Is(err, context.DeadlineExceeded):
		r.ans.Stop = kgqa.StopDeadline
	case errors.Is(err, context.Canceled):
		r.ans.Stop = kgqa.StopCanceled
	default:
		r.ans.Stop = kgqa.StopError
	}
	r.ans.Error = err.Error()
	for _, s := range r.ans.Subgoals {
		if s.Status == statusPending || s.Status == statusRunning {
			s.Status = statusSkipped
		}
	}
}

// run is the state of one Ask.
type run struct {
	e     *Engine
	b     config.Engine
	ans   *kgqa.Answer
	pre   int // LLM calls on the critical path before planning (the follow-up classifier)
	start time.Time
	emit  *emitter

	mu      sync.Mutex // guards the fields below and the records in ans
	results map[string]*kgqa.Result
	depth   map[string]int // critical-path LLM depth at the end of each subgoal
	base    int            // LLM depth before the executor starts
	maxSeen int
	facts   []factRef // all evidence, for sufficiency and final prompts
	stopped bool      // early stop: the question was judged answerable
	stopPos int       // plan index of the subgoal whose judgement stopped the run

	// Fixed before execution (see determinism.go).
	rank map[string]int // subgoal -> its place in the one-at-a-time order, or its wave
	pos  map[string]int // subgoal -> its index in the plan

	topicList []kgqa.Topic
	records   map[string]*kgqa.SubgoalRecord

	// Cost-based ordering (see orderBranches), fixed before execution.
	verifyAgainst map[string]string            // branch -> the branch whose candidates it checks
	after         map[string][]string          // subgoal -> subgoals it waits for beyond its needs
	branchOf      map[string]*kgqa.BranchOrder // branch -> its entry in the intersect's Ordering
	// picks are the relation choices made to estimate the branches,
	// reused by the branches' first round so that no choice is asked
	// twice; tentativeBefore is each verified branch's pack setting before the
	// check turned it off, restored when the check settles nothing.
	picks           map[string]*explore.Explorer
	tentativeBefore map[string]bool
}

type factRef struct {
	subgoal string
	fact    kgqa.Fact
}

func (r *run) do(ctx context.Context, req Request) error {
	if strings.TrimSpace(req.Question) == "" {
		return ErrEmptyQuestion
	}
	if err := kg.CheckText(req.Question); err != nil {
		// Refused before any model call: text a model would copy into a
		// lookup that no lookup can take.
		return fmt.Errorf("question: %w", err)
	}
	q, refused, err := classify(ctx, r, req.Question, req.History, req.Screen)
	if err != nil || refused {
		return err
	}
	req.Question = q
	if r.ans.Rewrite != nil {
		r.pre = 1
		r.reach(1)
	}
	if req.Plan == nil && len(req.TopicEntities) == 0 && answerDirect(r, req.Question) {
		return nil
	}
	// Planning and linking depend only on the question: run them at once.
	var (
		plan     *kgqa.Plan
		info     kgqa.PlanInfo
		topics   []kgqa.Topic
		mentions []kgqa.Mention
		linkLLM  bool
	)
	err = both(ctx, func(gctx context.Context) error {
		var err error
		if len(req.TopicEntities) > 0 {
			topics, err = requestedTopics(gctx, r, req.TopicEntities)
			return err
		}
		linkLLM = true
		topics, mentions, err = linkTopics(gctx, r, req.Question)
		return err
	}, func(gctx context.Context) error {
		var err error
		plan, info, err = planFor(gctx, r, req)
		if err == nil {
			pi := info
			r.emit.send(kgqa.Event{Type: kgqa.EventPlan, Plan: plan, PlanInfo: &pi})
		}
		return err
	})
	if err == nil && req.Plan == nil && r.e.planner == nil {
		var called bool
		if plan, info, called = r.e.replanForTopics(ctx, req.Question, plan, info, topics, r.b.PlanTentatives); called {
			r.base++
		}
	}
	r.ans.PlanInfo, r.ans.Mentions = info, mentions
	if topics != nil {
		r.ans.Topics = topics
	}
	if plan != nil {
		r.ans.Plan = plan
		for _, s := range plan.Subgoals {
			r.ans.Subgoals = append(r.ans.Subgoals, &kgqa.SubgoalRecord{ID: s.ID, Text: s.Text, Op: s.Op, Needs: s.Needs, Status: statusPending})
		}
	}
	if err != nil {
		return err
	}
	planRetrieval(r, plan, topics)
	if len(topics) == 0 && !literalAnchored(plan) {
		if r.b.OutsideKG == "notice" {
			answerOutsideKG(r)
			return nil
		}
		return answerWithoutKG(ctx, r, plan)
	}
	if linkLLM && r.base < 1 {
		r.base = 1
	}
	r.base += r.pre
	r.reach(r.base)
	r.topicList = topics
	if err := execute(ctx, r, plan); err != nil {
		return err
	}
	propertyBoundary(r, plan)
	return nil
}

// criticalPath returns the longest chain of dependent LLM calls.
func (r *run) criticalPath() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxSeen
}

// reach records that a chain of d dependent LLM calls has completed.
func (r *run) reach(d int) {
	r.mu.Lock()
	if d > r.maxSeen {
		r.maxSeen = d
	}
	r.mu.Unlock()
}

// waitsFor lists the subgoals s starts after: those it needs and those
// the cost-based ordering makes it wait for (r.after).
func (r *run) waitsFor(s kgqa.Subgoal) []string {
	return append(slices.Clone(s.Needs), r.after[s.ID]...)
}

// quiet turns the cancellation caused by an early stop into success.
func (r *run) quiet(err error) error {
	if r.isStopped() && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func (r *run) isStopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// view renders the plan for a prompt, marking current and listing the
// results of the subgoals in known (all results when known is nil).
func (r *run) view(plan *kgqa.Plan, current string, known map[string]bool) prompts.PlanView {
	v := prompts.PlanView{Question: r.ans.Question, Current: current}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range plan.Subgoals {
		v.Subgoals = append(v.Subgoals, prompts.SubgoalLine{ID: s.ID, Text: s.Text, Op: string(s.Op), Needs: strings.Join(s.Needs, ", ")})
		if known != nil && !known[s.ID] {
			continue
		}
		if res := r.results[s.ID]; res != nil {
			v.Known = append(v.Known, s.ID+": "+clip(summary(*res), 300))
		}
	}
	return v
}

// recordActual sets a branch's actual cardinality once it has run.
func (r *run) recordActual(id string, res kgqa.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.branchOf[id]; b != nil {
		b.Actual = len(res.Entities)
	}
}

// planningCriticalCalls is the chain of dependent model calls planning
// took: one, or with a logical query tree the atomic queries, then the
// pair calls, which run at once.
func planningCriticalCalls(i kgqa.PlanInfo) int {
	if i.Tree != nil && i.Tree.PairCalls > 0 {
		return 2
	}
	return 1
}

// recovered records a judgement the engine revisited (see kgqa.Recovery).
func (r *run) recovered(kind kgqa.RecoveryKind, subgoal, from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ans.Recoveries = append(r.ans.Recoveries, kgqa.Recovery{Kind: kind, Subgoal: subgoal, From: from, To: to})
}

// settleRecovery sets to as the outcome of subgoal's last recovery of
// kind when that recovery changed nothing (its To is empty): the engine
// acted on it after the model.
func (r *run) settleRecovery(kind kgqa.RecoveryKind, subgoal, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.ans.Recoveries) - 1; i >= 0; i-- {
		if rc := &r.ans.Recoveries[i]; rc.Kind == kind && rc.Subgoal == subgoal {
			if rc.To == "" {
				rc.To = to
			}
			return
		}
	}
}
