package kgqa

import (
	"github.com/parog/parog-go/kgqa/answer"
	"github.com/parog/parog-go/kgqa/plan"
)

// The plan contract is defined in package plan and the record of a
// question in package answer, so that the server and the API's Go client
// carry them without linking the engine; the engine names them as its
// own.

// Types of the plan contract (package plan).
type (
	// Op is the kind of operation a subgoal performs.
	Op = plan.Op
	// Args carries the structured part of a compare or superlative subgoal, so
	// that set logic can run exactly instead of through the LLM.
	Args = plan.Args
	// Subgoal is one step of a Plan.
	Subgoal = plan.Subgoal
	// Plan is a non-linear decomposition of a question into subgoals.
	Plan = plan.Plan
	// Kind is a question-structure label derived from a plan, comparable with
	// the benchmarks' own labels.
	Kind = plan.Kind
)

// PlanVersion is the version of the Plan JSON shape written by this code.
const PlanVersion = plan.PlanVersion

// MaxSubgoals bounds the size of a plan accepted from a model.
const MaxSubgoals = plan.MaxSubgoals

// The operation kinds a subgoal may have, and the plan kinds.
const (
	// OpFind follows relations from topic entities or earlier results
	// (a hop, possibly through a mediator node).
	OpFind = plan.OpFind
	// OpFilter keeps the members of a needed set that satisfy a constraint
	// stated in the text (a type, a fixed value, a time).
	OpFilter = plan.OpFilter
	// OpIntersect keeps what all needed sets share (conjunction).
	OpIntersect = plan.OpIntersect
	// OpUnion merges the needed sets.
	OpUnion = plan.OpUnion
	// OpCompare keeps members whose attribute compares with a value
	// (comparative: <, <=, >, >=, =).
	OpCompare = plan.OpCompare
	// OpSuperlative keeps the member with the largest or smallest attribute
	// (argmax/argmin).
	OpSuperlative = plan.OpSuperlative
	// OpCount counts the members of the needed set.
	OpCount = plan.OpCount

	// The plan kinds, as the paper counts them.
	KindComposition = plan.KindComposition
	KindConjunction = plan.KindConjunction
	KindComparative = plan.KindComparative
	KindSuperlative = plan.KindSuperlative
	KindCount       = plan.KindCount
	KindLinear      = plan.KindLinear
)

// Ops lists every known Op, in documentation order.
var Ops = plan.Ops

// ErrInvalidPlan is wrapped by every error Validate returns.
var ErrInvalidPlan = plan.ErrInvalidPlan

// ParsePlan decodes a plan strictly (unknown fields are an error) and
// validates it. A missing version is taken as PlanVersion.
func ParsePlan(data []byte) (*Plan, error) { return plan.Parse(data) }

// Types of the record of a question (package answer).
type (
	// StopReason says why the engine stopped working on a question.
	StopReason = answer.StopReason
	// Answer is the engine's result for one question: the answer and the trace
	// of how it was reached. It serialises to JSON with stable snake_case keys.
	Answer = answer.Answer
	// PlanInfo says how the plan was obtained.
	PlanInfo = answer.PlanInfo
	// TreeInfo is how the logical-query-tree planner built a plan.
	TreeInfo = answer.TreeInfo
	// Topic is a topic entity the plan starts from.
	Topic = answer.Topic
	// Mention is the linking outcome of one entity mention.
	Mention = answer.Mention
	// SubgoalRecord is the trace of one subgoal.
	SubgoalRecord = answer.SubgoalRecord
	// Tentative is a parametric answer.
	Tentative = answer.Tentative
	// Result is what a subgoal produced.
	Result = answer.Result
	// Round is one exploration round of a subgoal.
	Round = answer.Round
	// CappedPair is a neighbour query that returned as many facts as its
	// limit.
	CappedPair = answer.CappedPair
	// HubPair is an (anchor, relation) pair with more neighbours than the
	// hub threshold.
	HubPair = answer.HubPair
	// Expansion records how a find result was completed beyond the facts the
	// model was shown. A prompt shows at most MaxEntitiesPerRelation facts
	// per (anchor, relation) pair and at most WithMaxFacts in all; when the
	// model's answer holds every neighbour it was shown along a relation, it
	// chose that relation's neighbours as the answer, and the ones it was not
	// shown join the result, so that counts, intersections and orderings see
	// the whole set.
	Expansion = answer.Expansion
	// RejectedRelation is a relation a model named and the engine refused.
	RejectedRelation = answer.RejectedRelation
	// RelationCut records that the relations offered were cut to the
	// most relevant.
	RelationCut = answer.RelationCut
	// Pruning records how candidates were cut to the width budget.
	Pruning = answer.Pruning
	// SetOpRecord records a set operation.
	SetOpRecord = answer.SetOpRecord
	// Sufficiency is a judgement of whether the question can be answered.
	Sufficiency = answer.Sufficiency
	// FinalRecord is how the final answer was composed when it did not come
	// straight from the answer subgoal.
	FinalRecord = answer.FinalRecord
	// Usage is the cost of one question.
	Usage = answer.Usage
	// CallSpan is one LLM call on the timeline of its question.
	CallSpan = answer.CallSpan
	// TentativeAnswer is the question's parametric answer: the plan's set
	// logic over the subgoals' tentative answers alone (see
	// answer.TentativeAnswer for how each op composes).
	TentativeAnswer = answer.TentativeAnswer
	// EventType names a step reported to Request.OnEvent.
	EventType = answer.EventType
	// Event is one step of the engine, for streaming. Only the fields of its
	// type are set.
	Event = answer.Event
	// Verdict is the outcome of a refinement.
	Verdict = answer.Verdict
)

// The stop reasons and the event types.
const (
	// StopPlanComplete: every subgoal the answer depends on ran.
	StopPlanComplete = answer.StopPlanComplete
	// StopSufficient: the question was judged answerable early and the
	// remaining subgoals were skipped.
	StopSufficient = answer.StopSufficient
	// StopDeadline: the overall deadline passed.
	StopDeadline = answer.StopDeadline
	// StopCanceled: the caller canceled.
	StopCanceled = answer.StopCanceled
	// StopError: a step failed; Answer.Error says how.
	StopError = answer.StopError
	// EventPlan carries the plan (Plan, PlanInfo).
	EventPlan = answer.EventPlan
	// EventSubgoalStarted names a subgoal that starts (Subgoal, Anchors).
	EventSubgoalStarted = answer.EventSubgoalStarted
	// EventTentative carries a parametric answer (Subgoal, Tentative).
	EventTentative = answer.EventTentative
	// EventExploration carries one exploration round (Subgoal, Round).
	EventExploration = answer.EventExploration
	// EventRefinement carries a refinement verdict (Subgoal, Verdict).
	EventRefinement = answer.EventRefinement
	// EventSufficiency carries a sufficiency judgement (Subgoal,
	// Sufficiency).
	EventSufficiency = answer.EventSufficiency
	// EventSubgoalDone carries a subgoal's result (Subgoal, Result,
	// SetOp).
	EventSubgoalDone = answer.EventSubgoalDone
	// EventFinal carries the whole Answer; it is the last event of a
	// question that succeeded.
	EventFinal = answer.EventFinal
)
