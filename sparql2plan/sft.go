package sparql2plan

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/sft"
)

// SourceSplitOf names the benchmark split of a file from its name
// (WebQSP.train.json, ComplexWebQuestions_dev.json, grailqa_v1.0_test...);
// "" when the name does not tell. The shared samples (cwq_sample.json is
// CWQ's test split, grailqa_sample.json GrailQA's dev split) do not tell.
func SourceSplitOf(path string) string {
	base := strings.ToLower(path[strings.LastIndexAny(path, `/\`)+1:])
	words := strings.FieldsFunc(base, func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	found := ""
	for _, w := range words {
		var s string
		switch w {
		case "train", "training", "trn":
			s = sft.SourceTrain
		case "dev", "valid", "validation":
			s = sft.SourceDev
		case "test":
			s = sft.SourceTest
		default:
			continue
		}
		if found != "" && found != s {
			return ""
		}
		found = s
	}
	return found
}

// ParseSourceSplit checks a split name given by a user.
func ParseSourceSplit(s string) (string, error) {
	switch s {
	case sft.SourceTrain, sft.SourceDev, sft.SourceTest:
		return s, nil
	}
	return "", fmt.Errorf("split %q: want train, dev or test", s)
}

// PlannerMessages returns the system and user messages the engine's
// planner receives for question. SFT records use exactly these, so the
// fine-tuned planner is trained on the prompt it is served with; the one
// source of the text is the "plan" template of kgqa/prompts.
func PlannerMessages(question string) ([]kgqa.Message, error) {
	ops := make([]string, len(kgqa.Ops))
	for i, o := range kgqa.Ops {
		ops[i] = string(o)
	}
	msgs, err := prompts.Builtin.Render(prompts.Plan, prompts.PlanData{Question: question, Ops: ops})
	if err != nil {
		return nil, fmt.Errorf("sparql2plan: planner prompt: %w", err)
	}
	return msgs, nil
}

// PlannerSystemPrompt is the system message of PlannerMessages.
func PlannerSystemPrompt() (string, error) {
	msgs, err := PlannerMessages("?")
	if err != nil {
		return "", err
	}
	return msgs[0].Content, nil
}

// SplitOf assigns an id to train or validation deterministically: an
// FNV-1a hash of the id, validationPercent of 100 buckets to validation.
func SplitOf(id string, validationPercent int) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	if int(h.Sum32()%100) < validationPercent {
		return sft.SplitValidation
	}
	return sft.SplitTrain
}

// NewRecord builds the record of a converted question. tr may be nil
// (template rendering); with a successful teacher rendering its texts are
// used, and its back-translated question when useBackTranslation is set.
func NewRecord(q Pair, c *Conversion, tr *TeacherRendering, useBackTranslation bool, validationPercent int) (*sft.Record, error) {
	rec := &sft.Record{
		ID: q.ID, Source: q.Source, Split: SplitOf(q.ID, validationPercent),
		Kinds: c.Kinds, Label: q.Label, Rendering: sft.RenderingTemplate, QuestionUsed: sft.QuestionOriginal,
		Plan: c.Plan, Question: q.Text, SubgoalRelations: StepRelations(c.Steps),
	}
	for _, s := range c.Plan.Subgoals {
		rec.Renderings.Template = append(rec.Renderings.Template, s.Text)
	}
	if agree, checked := LabelAgrees(q.Source, q.Label, c.Plan); checked {
		rec.LabelAgrees = &agree
	}
	user := q.Text
	if tr != nil {
		rec.Renderings.Teacher, rec.Renderings.BackTranslated, rec.Renderings.TeacherError = tr.Subgoals, tr.BackTranslated, tr.Err
		if tr.Err == "" {
			f := tr.Consistency
			rec.Consistency = &f
			rec.Plan = PlanFromSteps(c.Steps, tr.Subgoals)
			rec.Rendering = sft.RenderingTeacher
			if useBackTranslation && tr.BackTranslated != "" {
				user, rec.QuestionUsed = tr.BackTranslated, sft.QuestionBackTranslate
			}
		}
	}
	if err := rec.Plan.Validate(); err != nil {
		return nil, fmt.Errorf("sparql2plan: record %s: %w", q.ID, err)
	}
	msgs, err := PlannerMessages(user)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(rec.Plan)
	if err != nil {
		return nil, fmt.Errorf("sparql2plan: record %s: %w", q.ID, err)
	}
	rec.Messages = append(msgs, kgqa.Message{Role: sft.RoleAssistant, Content: string(body)})
	return rec, nil
}

// StepRelations are the relation ids each step uses, by step id: its
// path and its mediator conditions, each once, in order; steps without
// relations are left out, and nil is returned when none has any.
func StepRelations(steps []Step) map[string][]string {
	var out map[string][]string
	for _, s := range steps {
		seen := map[string]bool{}
		var rels []string
		add := func(r string) {
			if r != "" && !seen[r] {
				seen[r] = true
				rels = append(rels, r)
			}
		}
		for _, h := range s.Path {
			add(h.Relation)
		}
		for _, q := range s.Qualifiers {
			add(q.Relation)
		}
		if len(rels) == 0 {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[s.ID] = rels
	}
	return out
}

// Deduper drops records already seen by id or by normalised question text.
type Deduper struct {
	ids, texts map[string]bool
}

// NewDeduper returns an empty Deduper.
func NewDeduper() *Deduper { return &Deduper{ids: map[string]bool{}, texts: map[string]bool{}} }

// Seen records id and question and reports whether either was seen.
func (d *Deduper) Seen(id, question string) bool {
	t := strings.Join(tokens(question), " ")
	dup := d.ids[id] || (t != "" && d.texts[t])
	d.ids[id] = true
	if t != "" {
		d.texts[t] = true
	}
	return dup
}

// tokens lower-cases and splits text into word tokens.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
}

// TokenF1 is the bag-of-words F1 between two texts (1 when both are
// empty).
func TokenF1(a, b string) float64 {
	ta, tb := tokens(a), tokens(b)
	if len(ta) == 0 && len(tb) == 0 {
		return 1
	}
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	count := map[string]int{}
	for _, t := range ta {
		count[t]++
	}
	common := 0
	for _, t := range tb {
		if count[t] > 0 {
			count[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(len(tb)), float64(common)/float64(len(ta))
	return 2 * p * r / (p + r)
}
