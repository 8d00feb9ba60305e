package engine

import (
	"errors"
	"fmt"

	"github.com/parog/parog-go/kgqa"
)

// Request is one question to answer.
type Request struct {
	// Question is the question text.
	Question string
	// TopicEntities are entity ids to start from; empty links them from
	// the question.
	TopicEntities []string
	// Plan, when set, is executed instead of asking the planner (it is
	// validated first).
	Plan *kgqa.Plan
	// Overrides changes the engine's budgets for this question; its nil
	// fields keep the configured values.
	Overrides Overrides
	// History is the conversation before Question, oldest first, when the
	// question is a chat's last user message. With an earlier user
	// message in it, the reasoner first classifies Question (new,
	// follow-up or unsafe) and a follow-up is rewritten into a standalone
	// question before planning; an unsafe one is refused (StopRefused).
	History []kgqa.Message
	// Screen makes the reasoner judge Question (new or unsafe) even when
	// History holds no earlier user message: a chat's single message is
	// screened for safety the way a follow-up is, and refused when
	// unsafe. It is never rewritten: there is nothing for it to follow.
	Screen bool
	// Seed is recorded in the trace for reproducible runs; the sampling
	// seed sent to the endpoints is the role's configured seed.
	Seed *int
	// OnEvent, when set, receives the steps as they happen. Calls are
	// serialised, in the order the steps happen; it must not block long.
	OnEvent func(kgqa.Event)
}

// Errors returned by Ask and Plan; test with errors.Is / errors.As. Errors
// of the LLM client (llm.ErrUnavailable, *llm.SchemaError, ...) and the KG
// (kg.ErrUnavailable, ...) are wrapped in a *StepError and stay
// recognisable with errors.Is.
var (
	// ErrEmptyQuestion means the request had no question.
	ErrEmptyQuestion = errors.New("engine: empty question")
	// ErrNoTopicEntities means no topic entity was given or could be
	// linked.
	ErrNoTopicEntities = errors.New("engine: no topic entity")
	// ErrBadTopic means a requested topic entity id is malformed.
	ErrBadTopic = errors.New("engine: malformed topic entity id")
)

// StepError reports which step of the engine failed.
type StepError struct {
	// Stage is the step: "plan", "link", "tentative", "explore",
	// "refine", "set_op", "sufficiency" or "final".
	Stage string
	// Subgoal is the subgoal id, when the step belongs to one.
	Subgoal string
	// Err is the cause.
	Err error
}

func (e *StepError) Error() string {
	if e.Subgoal != "" {
		return fmt.Sprintf("engine: %s %s: %v", e.Stage, e.Subgoal, e.Err)
	}
	return fmt.Sprintf("engine: %s: %v", e.Stage, e.Err)
}

// Unwrap returns the cause.
func (e *StepError) Unwrap() error { return e.Err }

func stepErr(stage, subgoal string, err error) error {
	var se *StepError
	if errors.As(err, &se) {
		return err
	}
	return &StepError{Stage: stage, Subgoal: subgoal, Err: err}
}
