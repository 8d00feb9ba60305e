// Package refine is PARoG's self-refinement step: the reasoner checks a
// tentative answer to one subgoal against the facts retrieved from the
// knowledge graph and corrects it.
//
// Trust is asymmetric: evidence verifies the answer, it is not taken as
// truth. When the model judges the facts misaligned with the subgoal, the
// tentative answer is kept rather than replaced by whatever the facts say.
package refine

import (
	"context"
	"fmt"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/prompts"
)

// DefaultMaxFacts bounds the facts shown in one refine prompt.
const DefaultMaxFacts = 60

// Input is what a refinement looks at.
type Input struct {
	// Plan is the question and plan in context (Current names the subgoal).
	Plan prompts.PlanView
	// Subgoal is the current subgoal's text, references resolved.
	Subgoal string
	// Tentative is the parametric answer given before retrieval.
	Tentative string
	// Facts is the evidence retrieved for the subgoal, most relevant first.
	Facts []kgqa.Fact
	// Fuse asks for the sufficiency judgement in the same call.
	Fuse bool
	// Recheck, when set, asks again about a verdict the engine did not
	// take as final, and says why (see prompts.RefineData.Recheck).
	Recheck string
}

// Refiner runs refinements with the reasoner role.
type Refiner struct {
	tmpl     *prompts.Set
	chat     kgqa.Chatter
	dialect  kg.Dialect
	role     kgqa.Role
	maxFacts int
}

// Option configures a Refiner.
type Option func(*Refiner)

// WithMaxFacts bounds the facts shown in one prompt (default DefaultMaxFacts).
func WithMaxFacts(n int) Option {
	return func(r *Refiner) {
		if n > 0 {
			r.maxFacts = n
		}
	}
}

// WithRole makes the refiner call role instead of llm.Reasoner.
func WithRole(role kgqa.Role) Option { return func(r *Refiner) { r.role = role } }

// WithPrompts makes the refiner render its prompt with set (prompts.dir)
// rather than the built-in template.
func WithPrompts(set *prompts.Set) Option {
	return func(r *Refiner) {
		if set != nil {
			r.tmpl = set
		}
	}
}

// New returns a Refiner that asks chat and renders relations with d.
func New(chat kgqa.Chatter, d kg.Dialect, opts ...Option) *Refiner {
	r := &Refiner{tmpl: prompts.Builtin, chat: chat, dialect: d, role: kgqa.Reasoner, maxFacts: DefaultMaxFacts}
	for _, o := range opts {
		o(r)
	}
	return r
}

// reply is the refine prompt's reply; see prompts/refine.schema.json.
type reply struct {
	Aligned       bool     `json:"aligned"`
	Answer        string   `json:"answer"`
	Entities      []string `json:"entities"`
	UsedFacts     []int    `json:"used_facts"`
	Reason        string   `json:"reason"`
	Sufficient    *bool    `json:"sufficient"`
	FinalAnswer   string   `json:"final_answer"`
	FinalEntities []string `json:"final_entities"`
}

// Refine checks in.Tentative against in.Facts. With no facts it makes no
// call and keeps the tentative answer. Errors come from the LLM client
// (llm.ErrUnavailable, *llm.SchemaError, ...), wrapped.
func (r *Refiner) Refine(ctx context.Context, in Input) (kgqa.Verdict, error) {
	facts := in.Facts
	if len(facts) > r.maxFacts {
		facts = facts[:r.maxFacts]
	}
	if len(facts) == 0 {
		return kgqa.Verdict{Answer: in.Tentative, KeptTentative: true, Reason: "no evidence was retrieved"}, nil
	}
	lines := make([]string, len(facts))
	for i, f := range facts {
		lines[i] = prompts.Fact(r.dialect, f)
	}
	req, err := r.tmpl.Request(r.role, prompts.Refine, prompts.RefineData{
		Plan: in.Plan, Subgoal: in.Subgoal, Tentative: in.Tentative, Facts: lines, Fused: in.Fuse, Recheck: in.Recheck,
	})
	if err != nil {
		return kgqa.Verdict{}, fmt.Errorf("refine: %w", err)
	}
	var rep reply
	checked := 0
	check := func() error {
		for _, n := range rep.UsedFacts {
			if n < 1 || n > len(facts) {
				return fmt.Errorf("used_facts: %d is not a fact number (1..%d)", n, len(facts))
			}
		}
		if in.Fuse && rep.Sufficient == nil {
			return fmt.Errorf("sufficient: missing")
		}
		checked++
		if checked == 1 {
			// Asked once: a reply whose answer does not rest on the
			// facts it cites contradicts itself; the repair turn lets
			// the model reconcile the two, and its reply stands.
			return unsupported(facts, rep)
		}
		return nil
	}
	if _, err := r.chat.JSON(ctx, req, &rep, check); err != nil {
		return kgqa.Verdict{}, fmt.Errorf("refine: %w", err)
	}
	return r.verdict(in, facts, rep), nil
}

func (r *Refiner) verdict(in Input, facts []kgqa.Fact, rep reply) kgqa.Verdict {
	v := kgqa.Verdict{Aligned: rep.Aligned, Reason: rep.Reason, FactsShown: len(facts)}
	for _, n := range rep.UsedFacts {
		v.UsedFacts = append(v.UsedFacts, facts[n-1])
	}
	if in.Fuse {
		s := *rep.Sufficient
		v.Sufficient = &s
		if s {
			v.FinalAnswer, v.FinalRefs = rep.FinalAnswer, rep.FinalEntities
			var rej []string
			v.FinalEntities, rej = Resolve(facts, rep.FinalEntities)
			v.Rejected = append(v.Rejected, rej...)
		}
	}
	if !rep.Aligned {
		// Asymmetric trust: misaligned evidence does not override the
		// tentative answer.
		v.Answer, v.KeptTentative = in.Tentative, true
		return v
	}
	v.Answer = rep.Answer
	var rej []string
	v.Entities, rej = Resolve(facts, rep.Entities)
	v.Rejected = append(v.Rejected, rej...)
	return v
}

// unsupported reports an aligned reply naming an entity of the evidence
// that none of the facts it says it relied on holds: the answer and its
// grounds disagree (the model took a neighbour of the right fact, or
// cited the wrong line). Replies that cite no fact, and references that
// match no fact at all (dropped and recorded later), are not judged here.
func unsupported(facts []kgqa.Fact, rep reply) error {
	if !rep.Aligned || len(rep.UsedFacts) == 0 || len(rep.Entities) == 0 {
		return nil
	}
	used := make([]kgqa.Fact, 0, len(rep.UsedFacts))
	for _, n := range rep.UsedFacts {
		used = append(used, facts[n-1])
	}
	for _, ref := range rep.Entities {
		if _, rej := Resolve(facts, []string{ref}); len(rej) > 0 {
			continue
		}
		if _, rej := Resolve(used, []string{ref}); len(rej) > 0 {
			return fmt.Errorf("entities: %s is in none of the facts listed in used_facts %v; answer with the entities of the facts that answer the subgoal, and cite those facts", ref, rep.UsedFacts)
		}
	}
	return nil
}
