// Package finetune turns sparql2plan's SFT records into the files that
// training tools read (LLaMA-Factory, OpenAI fine-tuning, Hugging Face
// datasets), and measures how well a served planner reproduces the gold
// plans of held-out questions.
package finetune

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// The splits a record may belong to.
const (
	SplitTrain      = "train"
	SplitValidation = "validation"
)

// The chat roles of a single-turn planner example, in the order Llama-3.1's
// chat template expects them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// maxLineBytes bounds one JSONL record; a plan of 16 subgoals with a long
// system prompt is far below it.
const maxLineBytes = 4 << 20

// ErrInvalidRecord is wrapped by every validation error of a record.
var ErrInvalidRecord = errors.New("finetune: invalid record")

// Message is one chat message of a record.
type Message struct {
	// Role is system, user or assistant.
	Role string `json:"role"`
	// Content is the message text; the assistant's is the compact Plan JSON.
	Content string `json:"content"`
}

// Record is one SFT example as sparql2plan writes it. Fields this package
// does not use are ignored, so the producer may add more.
type Record struct {
	// ID is unique within a file.
	ID string `json:"id"`
	// Source names the benchmark the question came from (cwq, webqsp, ...).
	Source string `json:"source,omitempty"`
	// Split is train or validation.
	Split string `json:"split"`
	// SourceSplit is the benchmark split the question came from: train,
	// dev or test ("" in records written before it was recorded).
	SourceSplit string `json:"source_split,omitempty"`
	// Messages is system, user (the question), assistant (the plan).
	Messages []Message `json:"messages"`
	// Kinds are the operation kinds the gold plan contains.
	Kinds []string `json:"kinds,omitempty"`
	// Label is the dataset's own question-type label, when it has one.
	Label string `json:"label,omitempty"`
	// Rendering says how subgoal texts were written: template or teacher.
	Rendering string `json:"rendering,omitempty"`
	// QuestionUsed is original or back_translated.
	QuestionUsed string `json:"question_used,omitempty"`
	// Plan, when present, must equal the plan in the assistant message.
	Plan json.RawMessage `json:"plan,omitempty"`

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

// Question returns the user message.
func (r *Record) Question() string {
	for _, m := range r.Messages {
		if m.Role == RoleUser {
			return m.Content
		}
	}
	return ""
}

// Prompt returns the messages sent to a planner: everything before the
// assistant's reply.
func (r *Record) Prompt() []Message {
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
	if len(r.Plan) > 0 && !bytes.Equal(bytes.TrimSpace(r.Plan), []byte("null")) {
		other, err := kgqa.ParsePlan(r.Plan)
		if err != nil {
			return bad("record %s: plan field: %v", r.ID, err)
		}
		if !reflect.DeepEqual(normalise(other), normalise(plan)) {
			return bad("record %s: plan field differs from the assistant message", r.ID)
		}
	}
	r.gold = plan
	return nil
}

// normalise makes nil and empty needs compare equal.
func normalise(p *kgqa.Plan) kgqa.Plan {
	q := *p
	q.Subgoals = make([]kgqa.Subgoal, len(p.Subgoals))
	for i, s := range p.Subgoals {
		if len(s.Needs) == 0 {
			s.Needs = nil
		}
		q.Subgoals[i] = s
	}
	return q
}

// LineError is a record that could not be read or validated.
type LineError struct {
	// Line is the 1-based line number in the input.
	Line int `json:"line"`
	// ID is the record id when it could be decoded.
	ID string `json:"id,omitempty"`
	// Reason says what was wrong.
	Reason string `json:"reason"`
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// ReadResult is what ReadRecords found.
type ReadResult struct {
	// Records are the valid records, in input order.
	Records []*Record
	// Invalid lists the records that were rejected, in input order.
	Invalid []LineError
}

// ReadRecords reads JSONL records, validating each. Blank lines are
// skipped. A malformed or invalid record, or a repeated id, is listed in
// Invalid and the read goes on; only an I/O error stops it.
func ReadRecords(r io.Reader) (*ReadResult, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	res := &ReadResult{}
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(text, &rec); err != nil {
			res.Invalid = append(res.Invalid, LineError{Line: line, Reason: "malformed JSON: " + err.Error()})
			continue
		}
		if err := rec.Validate(); err != nil {
			res.Invalid = append(res.Invalid, LineError{Line: line, ID: rec.ID, Reason: strings.TrimPrefix(err.Error(), ErrInvalidRecord.Error()+": ")})
			continue
		}
		if first, dup := seen[rec.ID]; dup {
			res.Invalid = append(res.Invalid, LineError{Line: line, ID: rec.ID, Reason: fmt.Sprintf("duplicate id %q (first on line %d)", rec.ID, first)})
			continue
		}
		seen[rec.ID] = line
		res.Records = append(res.Records, &rec)
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("finetune: read records: line %d: %w", line+1, err)
	}
	return res, nil
}
