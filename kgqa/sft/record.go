// Package sft is the planner's supervised fine-tuning record: the one JSONL
// line that sparql2plan writes and finetune reads, with the checks that
// training needs. Writer and reader import this type so the two ends of the
// file cannot drift apart.
package sft

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// The splits a record may belong to (Record.Split): a hash of the id puts
// each question in one of them.
const (
	SplitTrain      = "train"
	SplitValidation = "validation"
)

// The benchmark splits a question may come from (Record.SourceSplit): only
// train questions may become training data.
const (
	SourceTrain = "train"
	SourceDev   = "dev"
	SourceTest  = "test"
)

// The chat roles of a single-turn planner example, in the order Llama-3.1's
// chat template expects them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// How the subgoal texts of the assistant plan were written
// (Record.Rendering).
const (
	RenderingTemplate = "template"
	RenderingTeacher  = "teacher"
)

// Which question the user message holds (Record.QuestionUsed).
const (
	QuestionOriginal      = "original"
	QuestionBackTranslate = "back_translated"
)

// ErrInvalidRecord is wrapped by every validation error of a record.
var ErrInvalidRecord = errors.New("sft: invalid record")

// Renderings keeps every rendering of a record's subgoals.
type Renderings struct {
	// Template are the deterministic texts, one per subgoal.
	Template []string `json:"template"`
	// Teacher are the teacher LLM's texts, when teacher mode ran.
	Teacher []string `json:"teacher,omitempty"`
	// BackTranslated is the teacher's question rebuilt from its subgoals.
	BackTranslated string `json:"back_translated,omitempty"`
	// TeacherError says why teacher rendering failed, when it did.
	TeacherError string `json:"teacher_error,omitempty"`
}

// Record is one planner SFT example (one chat JSONL line). Readers ignore
// fields they do not know, so the writer may add more; records written
// before a field existed leave it zero.
type Record struct {
	// ID is the question id, unique within a file.
	ID string `json:"id"`
	// Source names the benchmark format the question came from (cwq,
	// webqsp, grailqa).
	Source string `json:"source"`
	// Split is SplitTrain or SplitValidation, by a hash of ID.
	Split string `json:"split"`
	// SourceSplit is the benchmark split the question comes from
	// (SourceTrain, SourceDev or SourceTest; "" when unknown).
	SourceSplit string `json:"source_split,omitempty"`
	// Messages are system (optional), user (the question) and assistant
	// (the compact Plan JSON).
	Messages []kgqa.Message `json:"messages"`
	// Kinds are the plan's operation kinds.
	Kinds []kgqa.Kind `json:"kinds"`
	// Label is the dataset's own question-type label, when it has one.
	Label string `json:"label,omitempty"`
	// LabelAgrees tells whether Label agrees with Kinds; absent when the
	// source has no comparable label.
	LabelAgrees *bool `json:"label_agrees,omitempty"`
	// Rendering is the rendering used in the assistant plan
	// (RenderingTemplate or RenderingTeacher).
	Rendering string `json:"rendering"`
	// QuestionUsed says whether the user message is the original or the
	// back-translated question (QuestionOriginal, QuestionBackTranslate).
	QuestionUsed string `json:"question_used"`
	// Plan is the assistant plan, structured; when present it must equal
	// the plan in the assistant message.
	Plan *kgqa.Plan `json:"plan"`
	// Renderings keeps all renderings.
	Renderings Renderings `json:"renderings"`
	// Consistency is the token F1 between the back-translated and the
	// original question; absent without a teacher rendering.
	Consistency *float64 `json:"consistency,omitempty"`
	// Question is the original question text (the user message may hold
	// the back-translated one).
	Question string `json:"question"`
	// SubgoalRelations are the KG relations of the gold query that each
	// subgoal uses (its path and mediator conditions), by subgoal id:
	// what the relation prior learns from (kgqa/relprior). Records
	// written before the field existed have none.
	SubgoalRelations map[string][]string `json:"subgoal_relations,omitempty"`

	// gold is the parsed assistant plan, set by Validate.
	gold *kgqa.Plan
}

// Gold returns the plan of the assistant message (nil before Validate).
func (r *Record) Gold() *kgqa.Plan { return r.gold }

// System returns the system prompt, or "" when the record has none.
func (r *Record) System() string {
	if len(r.Messages) > 0 && r.Messages[0].Role == RoleSystem {
		return r.Messages[0].Content
	}
	return ""
}

// UserText returns the user message: the question the planner is asked,
// which is Question or its back-translation.
func (r *Record) UserText() string {
	for _, m := range r.Messages {
		if m.Role == RoleUser {
			return m.Content
		}
	}
	return ""
}

// Prompt returns the messages sent to a planner: everything before the
// assistant's reply.
func (r *Record) Prompt() []kgqa.Message {
	if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == RoleAssistant {
		return r.Messages[:n-1]
	}
	return r.Messages
}

// Validate checks what training needs: an id, a known split, the roles
// system (optional), user, assistant in that order with non-empty content,
// and an assistant reply that is a valid Plan. When the record carries a
// plan object too, it must be the same plan.
func (r *Record) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidRecord, fmt.Sprintf(format, a...))
	}
	if strings.TrimSpace(r.ID) == "" {
		return bad("missing id")
	}
	if r.Split != SplitTrain && r.Split != SplitValidation {
		return bad("record %s: split %q is not %s or %s", r.ID, r.Split, SplitTrain, SplitValidation)
	}
	want := []string{RoleSystem, RoleUser, RoleAssistant}
	if len(r.Messages) == 2 {
		want = want[1:]
	}
	if len(r.Messages) != len(want) {
		return bad("record %s: %d messages, want system, user, assistant", r.ID, len(r.Messages))
	}
	for i, m := range r.Messages {
		if m.Role != want[i] {
			return bad("record %s: message %d has role %q, want %q", r.ID, i+1, m.Role, want[i])
		}
		if strings.TrimSpace(m.Content) == "" {
			return bad("record %s: message %d (%s) is empty", r.ID, i+1, m.Role)
		}
	}
	plan, err := kgqa.ParsePlan([]byte(r.Messages[len(r.Messages)-1].Content))
	if err != nil {
		return bad("record %s: assistant message: %v", r.ID, err)
	}
	if r.Plan != nil {
		if err := r.Plan.Validate(); err != nil {
			return bad("record %s: plan field: %v", r.ID, err)
		}
		if !reflect.DeepEqual(normalise(r.Plan), normalise(plan)) {
			return bad("record %s: plan field differs from the assistant message", r.ID)
		}
	}
	r.gold = plan
	return nil
}

// normalise makes nil and empty needs, and a missing version and the
// lowest that holds the plan, compare equal.
func normalise(p *kgqa.Plan) kgqa.Plan {
	q := *p
	if q.Version == 0 {
		q.Version = p.NeededVersion()
	}
	q.Subgoals = make([]kgqa.Subgoal, len(p.Subgoals))
	for i, s := range p.Subgoals {
		if len(s.Needs) == 0 {
			s.Needs = nil
		}
		q.Subgoals[i] = s
	}
	return q
}
