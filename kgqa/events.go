package kgqa

import (
	"sync"
	"time"

	"github.com/parog/parog-go/refine"
)

// EventType names a step reported to Request.OnEvent.
type EventType string

// The event types, in the order a question usually produces them.
const (
	// EventPlan carries the plan (Plan, PlanInfo).
	EventPlan EventType = "plan"
	// EventSubgoalStarted names a subgoal that starts (Subgoal, Anchors).
	EventSubgoalStarted EventType = "subgoal_started"
	// EventTentative carries a parametric answer (Subgoal, Tentative).
	EventTentative EventType = "tentative_answer"
	// EventExploration carries one exploration round (Subgoal, Round).
	EventExploration EventType = "exploration"
	// EventRefinement carries a refinement verdict (Subgoal, Verdict).
	EventRefinement EventType = "refinement"
	// EventSufficiency carries a sufficiency judgement (Subgoal,
	// Sufficiency).
	EventSufficiency EventType = "sufficiency"
	// EventSubgoalDone carries a subgoal's result (Subgoal, Result,
	// SetOp).
	EventSubgoalDone EventType = "subgoal_done"
	// EventFinal carries the whole Answer; it is the last event of a
	// question that succeeded.
	EventFinal EventType = "final"
)

// Event is one step of the engine, for streaming. Only the fields of its
// type are set.
type Event struct {
	// Type of the step.
	Type EventType `json:"type"`
	// Seq numbers the events of a question from 1.
	Seq int `json:"seq"`
	// ElapsedMS is the time since the question started.
	ElapsedMS int64 `json:"elapsed_ms"`
	// Subgoal is the subgoal id of subgoal events.
	Subgoal string `json:"subgoal,omitempty"`
	// Plan and PlanInfo are set on EventPlan.
	Plan     *Plan     `json:"plan,omitempty"`
	PlanInfo *PlanInfo `json:"plan_info,omitempty"`
	// Anchors are set on EventSubgoalStarted.
	Anchors []Topic `json:"anchors,omitempty"`
	// Tentative is set on EventTentative.
	Tentative *Tentative `json:"tentative,omitempty"`
	// Round is set on EventExploration.
	Round *Round `json:"round,omitempty"`
	// Verdict is set on EventRefinement.
	Verdict *refine.Verdict `json:"verdict,omitempty"`
	// Sufficiency is set on EventSufficiency.
	Sufficiency *Sufficiency `json:"sufficiency,omitempty"`
	// Result and SetOp are set on EventSubgoalDone.
	Result *Result      `json:"result,omitempty"`
	SetOp  *SetOpRecord `json:"set_op,omitempty"`
	// Answer is set on EventFinal.
	Answer *Answer `json:"answer,omitempty"`
}

// emitter serialises calls of the callback and numbers the events.
type emitter struct {
	mu    sync.Mutex
	fn    func(Event)
	seq   int
	start time.Time
}

func newEmitter(fn func(Event), start time.Time) *emitter {
	return &emitter{fn: fn, start: start}
}

func (m *emitter) send(ev Event) {
	if m.fn == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	ev.Seq = m.seq
	ev.ElapsedMS = time.Since(m.start).Milliseconds()
	m.fn(ev)
}
