package oracle

import (
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// asksTentatives reports whether a planning prompt asks for the
// subgoals' tentative answers inside the plan (engine.plan_tentatives).
func asksTentatives(stage, sys string) bool {
	return (stage == prompts.Plan || stage == prompts.PlanFewShot) && strings.Contains(sys, `"tentative":{`)
}

// withTentatives gives each subgoal of the plan in content that reads the
// graph (not an intersect, union or count) the tentative answer the
// oracle's tentative reply to that subgoal gives: the same policy, and
// the same noise, drawn for each subgoal apart as for a reply of its own.
// A tentative answer the noise put out of shape is left out, as a model
// whose answer did not parse gives none: the engine then asks for it.
func (m *Model) withTentatives(req openai.ChatCompletionRequest, t *turn, content string) string {
	var p kgqa.Plan
	if json.Unmarshal([]byte(content), &p) != nil {
		return content
	}
	for i := range p.Subgoals {
		s := &p.Subgoals[i]
		switch s.Op {
		case kgqa.OpIntersect, kgqa.OpUnion, kgqa.OpCount:
			continue
		}
		st := &turn{m: m, q: t.q, stage: prompts.Tentative, sys: t.sys, user: t.user, step: t.q.steps[s.ID], isAnswer: s.ID == t.q.answer}
		obj := st.tentative()
		out, _, kind := m.noise.corrupt(m.rng(req, "tentative", s.ID), &draft{stage: prompts.Tentative, obj: obj, content: marshal(obj), t: st})
		m.noted(t.q, kind)
		if tent, ok := readTentative(out); ok {
			s.Tentative = tent
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return content
	}
	return string(b)
}

// readTentative reads a tentative reply as the engine's JSON reader
// would take it: the outermost object of the text, with its answer.
func readTentative(s string) (*kgqa.Tentative, bool) {
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return nil, false
	}
	var rep struct {
		Answer   *string  `json:"answer"`
		Entities []string `json:"entities"`
	}
	if json.Unmarshal([]byte(s[i:j+1]), &rep) != nil || rep.Answer == nil {
		return nil, false
	}
	return &kgqa.Tentative{Answer: *rep.Answer, Names: rep.Entities}, true
}
