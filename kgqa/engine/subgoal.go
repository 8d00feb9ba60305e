package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

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
	// asked are the doubts already put to the model again (see recheck),
	// true once settled, false while the re-ask rejected the verdict.
	asked map[string]bool
}

// execute dispatches on the subgoal's op and returns its result and the
// LLM depth at which it ended.
func (sg *subgoalRun) execute(ctx context.Context) (kgqa.Result, int, error) {
	switch sg.s.Op {
	case kgqa.OpFind:
		return find(ctx, sg)
	case kgqa.OpIntersect, kgqa.OpUnion, kgqa.OpCount:
		return exactSet(sg)
	case kgqa.OpCompare, kgqa.OpSuperlative, kgqa.OpFilter:
		return constrain(ctx, sg)
	}
	return kgqa.Result{}, sg.d0, stepErr("plan", sg.s.ID, fmt.Errorf("unknown op %q", sg.s.Op))
}

var refPattern = regexp.MustCompile(`#(\d+)`)

// text returns the subgoal's text with "#k" references to its
// prerequisites followed by the names of the result they refer to.
func (sg *subgoalRun) text() string {
	known := prerequisites(sg.run, sg.plan, sg.s.ID)
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
	return sg.run.view(sg.plan, sg.s.ID, prerequisites(sg.run, sg.plan, sg.s.ID))
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

// fuse reports whether this subgoal's refine call also judges sufficiency.
func (sg *subgoalRun) fuse() bool {
	return sg.b.FuseSufficiency && sg.s.ID != sg.plan.AnswerID() && mayStopEarly(sg.run, sg.plan, sg.s.ID)
}

// addFacts records evidence for the sufficiency and final prompts.
func (sg *subgoalRun) addFacts(facts []kgqa.Fact) {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	for _, f := range facts {
		sg.facts = append(sg.facts, factRef{subgoal: sg.s.ID, fact: f})
	}
}

// dropFacts takes the subgoal's facts among facts out of the evidence
// for the sufficiency and final prompts (a round run again).
func (sg *subgoalRun) dropFacts(facts []kgqa.Fact) {
	if len(facts) == 0 {
		return
	}
	drop := make(map[string]bool, len(facts))
	for _, f := range facts {
		drop[fmt.Sprint(f)] = true
	}
	sg.mu.Lock()
	defer sg.mu.Unlock()
	sg.facts = slices.DeleteFunc(sg.facts, func(r factRef) bool { return r.subgoal == sg.s.ID && drop[fmt.Sprint(r.fact)] })
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
	_, wantsEntity := entityReader(sg.plan, id)
	return explore.Subgoal{
		Text: text, Question: question, View: sg.view, Pack: sg.pack, Budgets: sg.b,
		Fail:        func(err error) error { return stepErr("explore", id, err) },
		Members:     len(sg.s.Needs) == 1,
		WantsEntity: wantsEntity,
		Followed: func(from []kgqa.Relation, to kgqa.Relation, facts int) {
			sg.recovered(kgqa.RecoveryNextRelation, id, relationNames(from), fmt.Sprintf("%s (%s): %d facts", to.ID, to.Dir, facts))
		},
	}
}

// entityReader returns the step of the plan that reads subgoal id's
// answer as entities, things with facts of their own, and whether there
// is one: a find that explores from it, an intersect that meets it with
// other sets of entities, or a compare or superlative that reads an
// attribute of its members (not one whose value id is).
func entityReader(plan *kgqa.Plan, id string) (kgqa.Subgoal, bool) {
	if plan == nil {
		return kgqa.Subgoal{}, false
	}
	for _, s := range plan.Subgoals {
		if !slices.Contains(s.Needs, id) {
			continue
		}
		switch s.Op {
		case kgqa.OpFind, kgqa.OpIntersect:
			return s, true
		case kgqa.OpCompare, kgqa.OpSuperlative:
			if s.Args == nil || s.Args.Attribute == "" {
				continue
			}
			if ref, ok := s.Args.BoundRef(); !ok || ref != id {
				return s, true
			}
		}
	}
	return kgqa.Subgoal{}, false
}

// relationNames renders relations for a recovery: "id (dir)", joined.
func relationNames(rs []kgqa.Relation) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.ID + " (" + string(r.Dir) + ")"
	}
	return strings.Join(parts, ", ")
}

// withPack returns the budgets b with the pack's parameters.
func withPack(b config.Engine, p *retrieval.Pack) config.Engine {
	if p == nil {
		return b
	}
	b.Width, b.Depth, b.MaxRelationsPerEntity, b.MaxEntitiesPerRelation = p.Width, p.Depth, p.Relations, p.FactsPerPair
	return b
}
