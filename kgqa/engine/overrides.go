package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
)

// Overrides are one question's changes to the engine's configured
// budgets. A nil field keeps the configured value. They map one to one to
// the API's per-request options, and the engine alone merges and checks
// them, so that every caller (the server, eval, a library user) gets the
// budgets the engine was built with unless it says otherwise.
type Overrides struct {
	// Width is the number of entities kept per subgoal after pruning
	// (1..kgqa.MaxWidth).
	Width *int
	// Depth is the number of hops explored per subgoal (1..kgqa.MaxDepth).
	Depth *int
	// MaxRounds is the number of exploration rounds per subgoal
	// (1..kgqa.MaxRounds).
	MaxRounds *int
	// MaxEntitiesPerRelation caps the facts shown per (entity, relation)
	// pair (1..kgqa.MaxEntitiesPerRelation).
	MaxEntitiesPerRelation *int
	// MaxRelationsPerEntity caps the relations chosen per anchor entity
	// (1..kgqa.MaxRelationsPerEntity).
	MaxRelationsPerEntity *int
	// Parallelism is the number of independent subgoals run at once
	// (1..kgqa.MaxParallelism).
	Parallelism *int
	// FuseSufficiency asks the sufficiency question inside the refine
	// call.
	FuseSufficiency *bool
	// PlanTentatives asks the planner for the find subgoals' tentative
	// answers inside the plan reply.
	PlanTentatives *bool
	// Deadline bounds the question's wall time; it can only shorten the
	// configured engine.deadline.
	Deadline *time.Duration
}

// ErrBadOverride is wrapped by the error Budgets returns for an override
// out of its bounds.
var ErrBadOverride = errors.New("engine: override out of bounds")

// Budgets returns the budgets a question with overrides o runs under: the
// engine's configuration with o applied, or an error wrapping
// ErrBadOverride that names the first field out of its bounds.
func (e *Engine) Budgets(o Overrides) (config.Engine, error) {
	return o.apply(e.cfg)
}

// MergeOverrides returns b with o applied, as Engine.Budgets does over
// the engine's configuration: for an engine stand-in that keeps budgets
// of its own.
func MergeOverrides(b config.Engine, o Overrides) (config.Engine, error) {
	return o.apply(b)
}

// apply merges o over b.
func (o Overrides) apply(b config.Engine) (config.Engine, error) {
	for _, f := range []struct {
		name string
		v    *int
		max  int
		dst  *int
	}{
		{"width", o.Width, kgqa.MaxWidth, &b.Width},
		{"depth", o.Depth, kgqa.MaxDepth, &b.Depth},
		{"max_rounds", o.MaxRounds, kgqa.MaxRounds, &b.MaxRounds},
		{"max_entities_per_relation", o.MaxEntitiesPerRelation, kgqa.MaxEntitiesPerRelation, &b.MaxEntitiesPerRelation},
		{"max_relations_per_entity", o.MaxRelationsPerEntity, kgqa.MaxRelationsPerEntity, &b.MaxRelationsPerEntity},
		{"parallelism", o.Parallelism, kgqa.MaxParallelism, &b.Parallelism},
	} {
		if f.v == nil {
			continue
		}
		if *f.v < 1 || *f.v > f.max {
			return b, fmt.Errorf("%w: %s must be between 1 and %d, got %d", ErrBadOverride, f.name, f.max, *f.v)
		}
		*f.dst = *f.v
	}
	if o.FuseSufficiency != nil {
		b.FuseSufficiency = *o.FuseSufficiency
	}
	if o.PlanTentatives != nil {
		b.PlanTentatives = *o.PlanTentatives
	}
	if o.Deadline != nil {
		if *o.Deadline <= 0 {
			return b, fmt.Errorf("%w: deadline must be positive, got %v", ErrBadOverride, *o.Deadline)
		}
		if b.Deadline <= 0 || *o.Deadline < b.Deadline {
			b.Deadline = *o.Deadline
		}
	}
	return b, nil
}
