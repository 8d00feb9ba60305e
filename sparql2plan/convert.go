package sparql2plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
)

// Conversion is the outcome of converting one question's SPARQL.
type Conversion struct {
	// Steps are the atomic operations, in dependency order.
	Steps []Step `json:"steps"`
	// Plan is the plan with template-rendered subgoal texts.
	Plan *kgqa.Plan `json:"plan"`
	// Kinds are the plan's operation kinds.
	Kinds []kgqa.Kind `json:"kinds"`
	// Rules are the dialect rewrites Normalize applied.
	Rules []Rule `json:"rules,omitempty"`
	// Notes name the recognised boilerplate and ignored parts (language
	// filter, distinct filter, time validity, ...), deduplicated.
	Notes []string `json:"notes,omitempty"`
}

// wikidataEntity is the namespace of Wikidata's entities (wd:).
const wikidataEntity = "http://www.wikidata.org/entity/"

// ErrNoSPARQL means the question carries no gold query.
var ErrNoSPARQL = errors.New("sparql2plan: no SPARQL")

// Convert turns a question's gold SPARQL into a plan. Topic entity names
// come from the question; other entities are named by id.
func Convert(q Pair) (*Conversion, error) {
	if strings.TrimSpace(q.SPARQL) == "" {
		return nil, ErrNoSPARQL
	}
	names := map[string]string{}
	for _, e := range q.TopicEntities {
		names[e.ID] = e.Name
		// A Wikidata id ("Q794") is written as its IRI in the query.
		names[wikidataEntity+e.ID] = e.Name
	}
	return ConvertQuery(q.SPARQL, func(id string) string { return names[id] })
}

// ConvertQuery converts one SPARQL query; names may be nil.
func ConvertQuery(query string, names Namer) (*Conversion, error) {
	norm, rules := Normalize(query)
	pq, err := sparqlsyntax.Parse(norm)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrParse, err)
	}
	g, err := extract(pq)
	if err != nil {
		return nil, err
	}
	steps, err := buildSteps(g)
	if err != nil {
		return nil, err
	}
	texts := RenderTemplate(steps, names)
	plan := PlanFromSteps(steps, texts)
	if err := plan.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShape, err)
	}
	return &Conversion{Steps: steps, Plan: plan, Kinds: plan.Kinds(), Rules: rules, Notes: dedupe(g.notes)}, nil
}

// PlanFromSteps builds the Plan of steps with the given subgoal texts
// (texts[i] for steps[i]).
func PlanFromSteps(steps []Step, texts []string) *kgqa.Plan {
	p := &kgqa.Plan{Version: kgqa.PlanVersion, Subgoals: make([]kgqa.Subgoal, len(steps))}
	for i, s := range steps {
		p.Subgoals[i] = kgqa.Subgoal{ID: s.ID, Text: texts[i], Needs: append([]string(nil), s.Needs...), Op: s.Op, Args: stepArgs(s)}
	}
	p.Version = p.NeededVersion()
	return p
}

func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// FailureReason classifies a conversion error for reports: "parse",
// "unsupported: <what>", "shape: <what>", "no-sparql" or "plan".
func FailureReason(err error) string {
	msg := err.Error()
	cut := func(prefix string) string {
		if i := strings.Index(msg, prefix); i >= 0 {
			msg = msg[i+len(prefix):]
		}
		// Keep the reason class, not per-query variables, entities and
		// literals (messages name those after it, in parentheses).
		if i := strings.IndexAny(msg, "?\"("); i >= 0 {
			msg = strings.TrimSpace(msg[:i])
		}
		return strings.TrimSpace(msg)
	}
	switch {
	case errors.Is(err, ErrNoSPARQL):
		return "no-sparql"
	case errors.Is(err, ErrParse):
		return "parse"
	case errors.Is(err, ErrUnsupported):
		return "unsupported: " + cut("unsupported: ")
	case errors.Is(err, ErrShape):
		return "shape: " + cut("shape: ")
	}
	return "other"
}

// LabelAgrees compares a dataset's own structure label with the plan.
// CWQ's compositionality_type names the piece added to a WebQSP question,
// so the plan must contain that kind. GrailQA's function must match
// exactly: "none" means no compare, superlative or count; "count" a count;
// argmax/argmin a superlative with that order; a comparison operator a
// compare with that operator. Demo types must be among the kinds. checked
// is false when the source has no comparable label.
func LabelAgrees(source, label string, p *kgqa.Plan) (agree, checked bool) {
	kinds := p.Kinds()
	has := func(k kgqa.Kind) bool {
		for _, x := range kinds {
			if x == k {
				return true
			}
		}
		return false
	}
	switch source {
	case sourceCWQ, sourceDemo:
		if label == "" {
			return false, false
		}
		return has(kgqa.Kind(label)), true
	case sourceGrailQA:
		return grailFunction(p) == label, true
	}
	return false, false
}

// grailFunction is the GrailQA function a plan expresses.
func grailFunction(p *kgqa.Plan) string {
	fn := "none"
	for _, s := range p.Subgoals {
		switch s.Op {
		case kgqa.OpCount:
			fn = "count"
		case kgqa.OpSuperlative:
			if s.Args != nil && s.Args.Order == "max" {
				fn = "argmax"
			} else {
				fn = "argmin"
			}
		case kgqa.OpCompare:
			if s.Args != nil {
				fn = s.Args.Cmp
			}
		}
	}
	return fn
}
