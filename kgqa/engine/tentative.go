package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

type tentativeReply struct {
	Reason   string   `json:"reason"`
	Answer   string   `json:"answer"`
	Entities []string `json:"entities"`
}

// tentative asks for a parametric answer to the subgoal. A guess the
// model could not put in shape, repair included, is no guess: it returns
// an empty one, the question goes on, and the evidence decides. A pack
// that asks for no guess gets an empty one without asking; a subgoal
// whose plan gave its answer (engine.plan_tentatives) takes that one
// without asking. tentativeCalls says which.
func tentative(ctx context.Context, sg *subgoalRun, text string) (*kgqa.Tentative, error) {
	if !sg.pack().Tentative {
		return &kgqa.Tentative{}, nil
	}
	if t := planned(sg); t != nil {
		sg.emit.send(kgqa.Event{Type: kgqa.EventTentative, Subgoal: sg.s.ID, Tentative: t})
		return t, nil
	}
	req, err := sg.e.tmpl.Request(kgqa.Reasoner, prompts.Tentative, prompts.SubgoalData{Plan: sg.view(), Subgoal: text})
	if err != nil {
		return nil, stepErr("tentative", sg.s.ID, err)
	}
	var rep tentativeReply
	_, err = sg.e.chat.JSON(ctx, req, &rep, nil)
	switch {
	case errors.Is(err, kgqa.ErrSchema):
		return &kgqa.Tentative{}, nil
	case err != nil:
		return nil, stepErr("tentative", sg.s.ID, err)
	}
	t := &kgqa.Tentative{Answer: rep.Answer, Names: rep.Entities}
	sg.emit.send(kgqa.Event{Type: kgqa.EventTentative, Subgoal: sg.s.ID, Tentative: t})
	return t, nil
}

// planned is the tentative answer the plan gave the subgoal, or nil when
// it gave none or engine.plan_tentatives is off (the planner's reply is
// then not asked for one, and one it gave anyway is not used). Blank
// names are left out; a planner that did not know gives an empty list,
// which is an answer (no guess), not a missing one.
func planned(sg *subgoalRun) *kgqa.Tentative {
	if !sg.b.PlanTentatives || sg.s.Tentative == nil {
		return nil
	}
	t := &kgqa.Tentative{Answer: sg.s.Tentative.Answer}
	for _, n := range sg.s.Tentative.Names {
		if strings.TrimSpace(n) != "" {
			t.Names = append(t.Names, n)
		}
	}
	return t
}

// tentativeCalls is the depth of dependent model calls the subgoal's
// tentative answer adds: one for a call of its own, none when its pack
// asks for no guess or the plan gave it.
func tentativeCalls(sg *subgoalRun) int {
	if !sg.pack().Tentative || planned(sg) != nil {
		return 0
	}
	return 1
}

// fromTentative turns a kept tentative answer into a result, grounding
// each name it gives in the KG (see ground) with the homonyms ranked by
// the type the subgoal's exploration says its answer has (expectedType),
// then by popularity: the best for the answer subgoal, the best few for a
// subgoal whose result later steps explore from, where the relations
// they have decide. A name the KG does not hold stays a term without id.
// Each grounding, with the expected type and every candidate's score, is
// in the subgoal's trace.
func fromTentative(ctx context.Context, sg *subgoalRun, t *kgqa.Tentative) (kgqa.Result, error) {
	res := kgqa.Result{Text: t.Answer, Source: "tentative", Entities: []kgqa.Term{}}
	feeds := sg.plan == nil || sg.plan.AnswerID() != sg.s.ID
	var w answerType
	if len(t.Names) > 0 {
		w = expectedType(sg)
	}
	for _, name := range t.Names {
		ents, scores, err := sg.e.ground(ctx, name, w)
		if err != nil {
			return kgqa.Result{}, stepErr("refine", sg.s.ID, err)
		}
		g := kgqa.Mention{Text: name, Candidates: ents, Status: mentionResolved, Expected: w.record(), Scores: scores}
		switch {
		case len(ents) == 0:
			g.Status = mentionUnresolved
			res.Entities = append(res.Entities, kgqa.Term{Name: name})
		case len(ents) > 1 && feeds:
			g.Status = mentionAmbiguous
			for _, c := range ents {
				res.Entities = append(res.Entities, kgqa.Term{ID: c.ID, Name: c.Name})
			}
		default:
			if len(ents) > 1 {
				g.Status = mentionAmbiguous
			}
			res.Entities = append(res.Entities, kgqa.Term{ID: ents[0].ID, Name: ents[0].Name})
		}
		sg.mu.Lock()
		sg.rec.Grounding = append(sg.rec.Grounding, g)
		sg.mu.Unlock()
	}
	if res.Text == "" {
		res.Text = names(res.Entities)
	}
	return res, nil
}

// corrected reports whether the result differs from the tentative answer.
func corrected(t *kgqa.Tentative, res kgqa.Result) bool {
	if t == nil {
		return false
	}
	want := map[string]bool{}
	for _, n := range t.Names {
		want[naming.Fold(n)] = true
	}
	got := map[string]bool{}
	for _, e := range res.Entities {
		got[naming.Fold(e.Name)] = true
	}
	if len(want) != len(got) {
		return true
	}
	for n := range want {
		if !got[n] {
			return true
		}
	}
	return false
}
