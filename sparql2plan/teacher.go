package sparql2plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// Teacher stages, recorded in LLM accounting.
const (
	StageTeacherSubgoals  kgqa.Stage = "teacher_subgoals"
	StageTeacherBackTrans kgqa.Stage = "teacher_back_translate"
)

// TeacherRendering is a teacher LLM's rendering of one plan.
type TeacherRendering struct {
	// Subgoals are the fluent subgoal texts, one per step.
	Subgoals []string
	// BackTranslated is the question rebuilt from Subgoals alone.
	BackTranslated string
	// Consistency is TokenF1(BackTranslated, original question).
	Consistency float64
	// Err is the reason the rendering failed ("" on success).
	Err string
}

// Teacher rewrites atomic operations as fluent subgoals with an LLM and
// checks them by back-translation.
type Teacher struct {
	// Chat is the client; calls use the llm.Teacher role.
	Chat kgqa.Chatter
}

var subgoalsSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["subgoals"],"properties":{"subgoals":{"type":"array","items":{"type":"string","minLength":1}}}}`)

var backSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["question"],"properties":{"question":{"type":"string","minLength":1}}}`)

const teacherSystem = `You rewrite the steps of a knowledge-graph query plan as fluent English subgoals. ` +
	`Each step becomes exactly one short imperative subgoal that keeps its meaning, its entities and its "#N" references to earlier results (#N is the result of step N). ` +
	`Use the names given for entities; never add facts. Reply with JSON only: {"subgoals": ["...", ...]} with one string per step, in order.`

const backSystem = `Given the subgoals of a plan ("#N" is the result of subgoal N), write the single natural question they answer. Reply with JSON only: {"question": "..."}.`

// Render asks for fluent subgoals, then for the question they answer. A
// failure is returned as an error and also recorded in the rendering's
// Err, so callers can keep the template rendering and say why.
func (t *Teacher) Render(ctx context.Context, q Pair, c *Conversion) (*TeacherRendering, error) {
	tr := &TeacherRendering{}
	fail := func(err error) (*TeacherRendering, error) {
		tr.Err = err.Error()
		return tr, err
	}
	var steps strings.Builder
	for i, s := range c.Plan.Subgoals {
		fmt.Fprintf(&steps, "%d. [%s] %s\n", i+1, s.Op, s.Text)
	}
	var ents []string
	for _, e := range q.TopicEntities {
		ents = append(ents, e.Name+" ("+e.ID+")")
	}
	user := fmt.Sprintf("Question: %s\nTopic entities: %s\nSteps:\n%s", q.Text, strings.Join(ents, "; "), steps.String())
	var sg struct {
		Subgoals []string `json:"subgoals"`
	}
	n := len(c.Plan.Subgoals)
	check := func() error {
		if len(sg.Subgoals) != n {
			return fmt.Errorf("got %d subgoals, want %d", len(sg.Subgoals), n)
		}
		for i, s := range c.Plan.Subgoals {
			if strings.TrimSpace(sg.Subgoals[i]) == "" {
				return fmt.Errorf("subgoal %d is empty", i+1)
			}
			for _, need := range s.Needs {
				if ref := refOf(c.Plan.Subgoals, need); !strings.Contains(sg.Subgoals[i], ref) {
					return fmt.Errorf("subgoal %d lost its reference %s", i+1, ref)
				}
			}
		}
		return nil
	}
	req := kgqa.ChatRequest{Role: kgqa.Teacher, Stage: StageTeacherSubgoals, Schema: subgoalsSchema, SchemaName: "parog_teacher_subgoals",
		Messages: []kgqa.Message{{Role: "system", Content: teacherSystem}, {Role: "user", Content: user}}}
	if _, err := t.Chat.JSON(ctx, req, &sg, check); err != nil {
		return fail(fmt.Errorf("sparql2plan: teacher subgoals: %w", err))
	}
	tr.Subgoals = sg.Subgoals
	var numbered strings.Builder
	for i, s := range sg.Subgoals {
		fmt.Fprintf(&numbered, "%d. %s\n", i+1, s)
	}
	var back struct {
		Question string `json:"question"`
	}
	req = kgqa.ChatRequest{Role: kgqa.Teacher, Stage: StageTeacherBackTrans, Schema: backSchema, SchemaName: "parog_teacher_back_translate",
		Messages: []kgqa.Message{{Role: "system", Content: backSystem}, {Role: "user", Content: numbered.String()}}}
	checkBack := func() error {
		if strings.TrimSpace(back.Question) == "" {
			return fmt.Errorf("empty question")
		}
		return nil
	}
	if _, err := t.Chat.JSON(ctx, req, &back, checkBack); err != nil {
		return fail(fmt.Errorf("sparql2plan: teacher back-translation: %w", err))
	}
	tr.BackTranslated = strings.TrimSpace(back.Question)
	tr.Consistency = TokenF1(tr.BackTranslated, q.Text)
	return tr, nil
}

func refOf(subgoals []kgqa.Subgoal, id string) string {
	for i, s := range subgoals {
		if s.ID == id {
			return fmt.Sprintf("#%d", i+1)
		}
	}
	return "#?"
}
