package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// subgoalRun is the state of one subgoal's execution.
type subgoalRun struct {
	*run
	plan *kgqa.Plan
	s    kgqa.Subgoal
	rec  *kgqa.SubgoalRecord
	d0   int // LLM depth when the subgoal could start
	// b is the run's budgets with the subgoal's retrieval pack applied;
	// it shadows the run's.
	b config.Engine
}

// execute dispatches on the subgoal's op and returns its result and the
// LLM depth at which it ended.
func (sg *subgoalRun) execute(ctx context.Context) (kgqa.Result, int, error) {
	switch sg.s.Op {
	case kgqa.OpFind:
		return sg.find(ctx)
	case kgqa.OpIntersect, kgqa.OpUnion, kgqa.OpCount:
		return sg.exactSet()
	case kgqa.OpCompare, kgqa.OpSuperlative, kgqa.OpFilter:
		return sg.constrain(ctx)
	}
	return kgqa.Result{}, sg.d0, stepErr("plan", sg.s.ID, fmt.Errorf("unknown op %q", sg.s.Op))
}

var refPattern = regexp.MustCompile(`#(\d+)`)

// text returns the subgoal's text with "#k" references to its
// prerequisites followed by the names of the result they refer to.
func (sg *subgoalRun) text() string {
	known := sg.prerequisites(sg.plan, sg.s.ID)
	sg.mu.Lock()
	defer sg.mu.Unlock()
	return refPattern.ReplaceAllStringFunc(sg.s.Text, func(m string) string {
		id := "s" + m[1:]
		if !known[id] {
			return m
		}
		res := sg.results[id]
		if res == nil {
			return m
		}
		return m + " (" + clip(summary(*res), 200) + ")"
	})
}

func summary(res kgqa.Result) string {
	if len(res.Entities) > 0 {
		return names(res.Entities)
	}
	return res.Text
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// view renders the plan for a prompt, marking the current subgoal and
// listing the results of its prerequisites.
func (sg *subgoalRun) view() prompts.PlanView {
	return sg.run.view(sg.plan, sg.s.ID, sg.prerequisites(sg.plan, sg.s.ID))
}

// neededEntities returns the union of the results of the subgoals s needs.
func (sg *subgoalRun) neededEntities() []kgqa.Term { return sg.neededExcept("") }

// neededExcept returns the union of the results of the subgoals s needs
// other than id (the bound a compare's value refers to; "" leaves none
// out).
func (sg *subgoalRun) neededExcept(id string) []kgqa.Term {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	var out []kgqa.Term
	seen := map[string]bool{}
	for _, n := range sg.s.Needs {
		if n == id {
			continue
		}
		if res := sg.results[n]; res != nil {
			for _, t := range res.Entities {
				if !seen[t.Key()] {
					seen[t.Key()] = true
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// boundValues parses the values of subgoal id's result: its literal
// members (dates, numbers), or its text when it has none.
func (sg *subgoalRun) boundValues(id string) []value {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	res := sg.results[id]
	if res == nil {
		return nil
	}
	var out []value
	for _, t := range res.Entities {
		if v, ok := parseValue(t); ok {
			out = append(out, v)
		}
	}
	if len(out) == 0 && len(res.Entities) == 0 {
		if v, ok := parseText(res.Text); ok {
			out = append(out, v)
		}
	}
	return out
}

func (sg *subgoalRun) anchors() []kgqa.Term {
	if len(sg.s.Needs) == 0 {
		return rootAnchors(sg.s.Text, sg.topicList)
	}
	var out []kgqa.Term
	for _, t := range sg.neededEntities() {
		if t.IsEntity() {
			out = append(out, t)
		}
	}
	return out
}

func topicsOf(ts []kgqa.Term) []kgqa.Topic {
	out := make([]kgqa.Topic, len(ts))
	for i, t := range ts {
		out[i] = kgqa.Topic{ID: t.ID, Name: t.Name}
	}
	return out
}

type tentativeReply struct {
	Reason   string   `json:"reason"`
	Answer   string   `json:"answer"`
	Entities []string `json:"entities"`
}

// tentative asks for a parametric answer to the subgoal. A guess the
// model could not put in shape, repair included, is no guess: it returns
// an empty one, the question goes on, and the evidence decides. A pack
// that asks for no guess gets an empty one without asking.
func (sg *subgoalRun) tentative(ctx context.Context, text string) (*kgqa.Tentative, error) {
	if !sg.pack().Tentative {
		return &kgqa.Tentative{}, nil
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

// fromTentative turns a kept tentative answer into a result, grounding
// each name it gives in the KG (see ground) with the homonyms ranked by
// the type the subgoal's exploration says its answer has (expectedType),
// then by popularity: the best for the answer subgoal, the best few for a
// subgoal whose result later steps explore from, where the relations
// they have decide. A name the KG does not hold stays a term without id.
// Each grounding, with the expected type and every candidate's score, is
// in the subgoal's trace.
func (sg *subgoalRun) fromTentative(ctx context.Context, t *kgqa.Tentative) (kgqa.Result, error) {
	res := kgqa.Result{Text: t.Answer, Source: "tentative", Entities: []kgqa.Term{}}
	feeds := sg.plan == nil || sg.plan.AnswerID() != sg.s.ID
	var w answerType
	if len(t.Names) > 0 {
		w = sg.expectedType()
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

// fuse reports whether this subgoal's refine call also judges sufficiency.
func (sg *subgoalRun) fuse() bool {
	return sg.b.FuseSufficiency && sg.s.ID != sg.plan.AnswerID() && sg.mayStopEarly(sg.plan, sg.s.ID)
}

// addFacts records evidence for the sufficiency and final prompts.
func (sg *subgoalRun) addFacts(facts []kgqa.Fact) {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	for _, f := range facts {
		sg.facts = append(sg.facts, factRef{subgoal: sg.s.ID, fact: f})
	}
}

// pack is the pack of a subgoal run, or the engine's budgets as a
// pack when the subgoal has none.
func (sg *subgoalRun) pack() retrieval.Pack {
	if sg.rec.Retrieval != nil {
		return *sg.rec.Retrieval
	}
	return retrieval.Pack{
		Width: sg.b.Width, Depth: sg.b.Depth, Relations: sg.b.MaxRelationsPerEntity, FactsPerPair: sg.b.MaxEntitiesPerRelation,
		FactsPerPrompt: sg.e.maxFacts, TruncateNeighbors: sg.e.truncate, Tentative: true, Prune: retrieval.PruneAuto,
	}
}

// truncates reports whether the subgoal's result and neighbour lists are
// cut to the top-k (WithResultTruncation, unless its pack forbids it).
func (sg *subgoalRun) truncates() bool { return sg.e.truncate && sg.pack().TruncateNeighbors }

// inRound marks ctx as serving exploration round n of the subgoal, for the
// transcript (engine.trace_prompts).
func (sg *subgoalRun) inRound(ctx context.Context, n int) context.Context {
	return kgqa.WithStep(ctx, kgqa.Step{Subgoal: sg.s.ID, Round: n})
}

// explorerFor returns the explorer of the subgoal: the one that made its
// first relation choice during ordering, if any, else a new one.
func (sg *subgoalRun) explorerFor(text string) *explore.Explorer {
	sg.mu.Lock()
	x := sg.picks[sg.s.ID]
	delete(sg.picks, sg.s.ID)
	sg.mu.Unlock()
	if x == nil {
		return sg.newExplorer(text)
	}
	x.Serve(sg.exploring(text))
	return x
}

// newExplorer returns a new explorer of the subgoal, whose text is text.
func (sg *subgoalRun) newExplorer(text string) *explore.Explorer {
	return explore.New(sg.e.explore, sg.exploring(text))
}

// exploring is the subgoal as its explorer knows it.
func (sg *subgoalRun) exploring(text string) explore.Subgoal {
	sg.run.mu.Lock()
	question := sg.ans.Question
	sg.run.mu.Unlock()
	id := sg.s.ID
	return explore.Subgoal{
		Text: text, Question: question, View: sg.view, Pack: sg.pack, Budgets: sg.b,
		Fail: func(err error) error { return stepErr("explore", id, err) },
	}
}
