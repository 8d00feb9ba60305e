package kgqa

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// PlanVersion is the version of the Plan JSON shape a plan without time
// conditions, text values or literal anchors is written in; readers of
// version 1 read it.
const PlanVersion = 1

// PlanVersionConditions is the version of a plan whose args use a field
// version 1 lacks (Type, Literal, Valid): time-validity conditions, text
// comparisons and finds from a literal. Plans keep the lowest version
// that holds them (Plan.NeededVersion), so a planner served with the
// version 1 schema still reads every plan that does not need more.
const PlanVersionConditions = 2

// MaxTimeConds bounds the time conditions of one subgoal.
const MaxTimeConds = 4

// LatestPlanVersion is the highest plan version ParsePlan reads.
const LatestPlanVersion = PlanVersionConditions

// Op is the kind of operation a subgoal performs.
type Op string

// The operation kinds a subgoal may have.
const (
	// OpFind follows relations from topic entities or earlier results
	// (a hop, possibly through a mediator node).
	OpFind Op = "find"
	// OpFilter keeps the members of a needed set that satisfy a constraint
	// stated in the text (a type, a fixed value, a time).
	OpFilter Op = "filter"
	// OpIntersect keeps what all needed sets share (conjunction).
	OpIntersect Op = "intersect"
	// OpUnion merges the needed sets.
	OpUnion Op = "union"
	// OpCompare keeps members whose attribute compares with a value
	// (comparative: <, <=, >, >=, =).
	OpCompare Op = "compare"
	// OpSuperlative keeps the member with the largest or smallest attribute
	// (argmax/argmin).
	OpSuperlative Op = "superlative"
	// OpCount counts the members of the needed set.
	OpCount Op = "count"
)

// Ops lists every known Op, in documentation order.
var Ops = []Op{OpFind, OpFilter, OpIntersect, OpUnion, OpCompare, OpSuperlative, OpCount}

// Known reports whether o is one of Ops.
func (o Op) Known() bool {
	for _, k := range Ops {
		if k == o {
			return true
		}
	}
	return false
}

// Args carries the structured part of a compare or superlative subgoal, so
// that set logic can run exactly instead of through the LLM.
type Args struct {
	// Attribute names the property compared or ordered by, in readable form
	// ("date won", "population"); a relation id is allowed too.
	Attribute string `json:"attribute,omitempty"`
	// Order is "max" or "min" for a superlative.
	Order string `json:"order,omitempty"`
	// Cmp is one of "<", "<=", ">", ">=", "=" for a comparative.
	Cmp string `json:"cmp,omitempty"`
	// Value is the literal compared against ("1990", "2000-01-01"), or,
	// for a compare, a reference "#k" to the result of subgoal sk (a date
	// or number reached from another entity, such as the start of a
	// presidency), which must then be one of the subgoal's needs.
	Value string `json:"value,omitempty"`
	// Type says how Value (or Literal) compares: "text" compares its
	// text as the gold queries do (str(?v) = "Country", case and accents
	// kept), "number" and "date" by value; empty leaves it to the
	// value's form. Version 2.
	Type string `json:"type,omitempty"`
	// Literal is the constant a find with no needs starts from instead of
	// an entity: its members are what holds Literal along Attribute
	// ("the locomotive classes whose maximum speed is 120"). Version 2.
	Literal string `json:"literal,omitempty"`
	// Valid are time-validity conditions: a find keeps the facts whose
	// mediator (a position held, a roster spot, a marriage) satisfies
	// each, a filter the members that do. Version 2.
	Valid []TimeCond `json:"valid,omitempty"`
}

// The value types Args.Type may name.
const (
	TypeText   = "text"
	TypeNumber = "number"
	TypeDate   = "date"
)

// CmpContains is the comparison of a text value that keeps the members
// whose text contains Value (a filter with Type "text" only).
const CmpContains = "contains"

// TimeCond is one time-validity condition: the date a mediator (or a
// member) holds along Attribute compares with Value as Cmp says. With
// Open, a mediator holding no such date passes too: WebQSP and CWQ write
// "held the position in 2009" as from <= 2009-12-31 (or none) and to >=
// 2009-01-01 (or none), an open end being a position still held.
type TimeCond struct {
	// Attribute names the date: "from", "to", "start date" (readable),
	// or a relation id.
	Attribute string `json:"attribute"`
	// Cmp is one of < <= > >= =.
	Cmp string `json:"cmp"`
	// Value is a year ("2009") or an ISO date ("2015-08-10").
	Value string `json:"value"`
	// Open keeps a mediator with no date along Attribute.
	Open bool `json:"open,omitempty"`
}

var timeValue = regexp.MustCompile(`^-?[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$`)

// check reports what is wrong with a time condition.
func (t TimeCond) check() error {
	switch {
	case strings.TrimSpace(t.Attribute) == "":
		return fmt.Errorf("time condition with no attribute")
	case !comparison(t.Cmp):
		return fmt.Errorf("time condition operator %q is not one of < <= > >= =", t.Cmp)
	case !timeValue.MatchString(t.Value):
		return fmt.Errorf("time condition value %q is not a year or an ISO date", t.Value)
	}
	return nil
}

func comparison(cmp string) bool {
	switch cmp {
	case "<", "<=", ">", ">=", "=":
		return true
	}
	return false
}

// conditions reports whether a uses a field of version 2.
func (a *Args) conditions() bool {
	return a != nil && (a.Type != "" || a.Literal != "" || len(a.Valid) > 0)
}

var valueRef = regexp.MustCompile(`^#(\d+)$`)

// BoundRef returns the id of the subgoal whose result a compare's value
// refers to ("#3" -> "s3"), and whether the value is such a reference.
func (a *Args) BoundRef() (string, bool) {
	if a == nil {
		return "", false
	}
	m := valueRef.FindStringSubmatch(strings.TrimSpace(a.Value))
	if m == nil {
		return "", false
	}
	return "s" + m[1], true
}

// Subgoal is one step of a Plan.
type Subgoal struct {
	// ID is unique within the plan, conventionally "s1", "s2", ...
	ID string `json:"id"`
	// Text is the fluent natural-language subgoal; "#1"-style references
	// name the results of earlier subgoals.
	Text string `json:"text"`
	// Needs lists the ids of subgoals whose results this one uses.
	Needs []string `json:"needs,omitempty"`
	// Op is the operation kind.
	Op Op `json:"op"`
	// Args holds the structured constraint of compare/superlative subgoals.
	Args *Args `json:"args,omitempty"`
	// Tentative is the planner's own answer to a subgoal that reads the
	// graph (find, filter, compare, superlative), given in the plan reply
	// when the engine asks for it (engine.plan_tentatives), so that the
	// subgoal needs no tentative call of its own; nil when the planner
	// gave none. Optional in every version: plans written without it
	// (sparql2plan's, the SFT targets) read as before.
	Tentative *Tentative `json:"tentative,omitempty"`
}

// Plan is a non-linear decomposition of a question into subgoals.
type Plan struct {
	// Version is the plan shape's version: PlanVersion, or
	// PlanVersionConditions when the args use its fields.
	Version int `json:"version"`
	// Subgoals in an order where every subgoal follows those it needs.
	Subgoals []Subgoal `json:"subgoals"`
	// Answer is the id of the subgoal whose result answers the question;
	// empty means the last subgoal.
	Answer string `json:"answer,omitempty"`
}

// ErrInvalidPlan is wrapped by every error Validate returns.
var ErrInvalidPlan = errors.New("kgqa: invalid plan")

var subgoalID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,15}$`)

// MaxSubgoals bounds the size of a plan accepted from a model.
const MaxSubgoals = 16

// Validate checks that ids are unique and well formed, every needed id
// exists, dependencies are acyclic, every op is known, and op arguments are
// consistent. It does not reorder subgoals.
func (p *Plan) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidPlan, fmt.Sprintf(format, a...))
	}
	if len(p.Subgoals) == 0 {
		return bad("no subgoals")
	}
	if len(p.Subgoals) > MaxSubgoals {
		return bad("%d subgoals, at most %d allowed", len(p.Subgoals), MaxSubgoals)
	}
	seen := make(map[string]int, len(p.Subgoals))
	for i, s := range p.Subgoals {
		if !subgoalID.MatchString(s.ID) {
			return bad("subgoal %d: malformed id %q", i+1, s.ID)
		}
		if _, dup := seen[s.ID]; dup {
			return bad("duplicate subgoal id %q", s.ID)
		}
		seen[s.ID] = i
		if strings.TrimSpace(s.Text) == "" {
			return bad("subgoal %s: empty text", s.ID)
		}
		if !s.Op.Known() {
			return bad("subgoal %s: unknown op %q", s.ID, s.Op)
		}
		if err := s.checkArgs(); err != nil {
			return bad("subgoal %s: %v", s.ID, err)
		}
	}
	for _, s := range p.Subgoals {
		for _, n := range s.Needs {
			if _, ok := seen[n]; !ok {
				return bad("subgoal %s needs unknown id %q", s.ID, n)
			}
			if n == s.ID {
				return bad("subgoal %s needs itself", s.ID)
			}
		}
	}
	if _, err := p.Order(); err != nil {
		return err
	}
	if p.Answer != "" {
		if _, ok := seen[p.Answer]; !ok {
			return bad("answer names unknown id %q", p.Answer)
		}
	}
	return nil
}

func (s Subgoal) checkArgs() error {
	switch s.Op {
	case OpIntersect, OpUnion:
		if len(s.Needs) < 2 {
			return fmt.Errorf("%s needs at least two subgoals", s.Op)
		}
	case OpCount, OpFilter:
		if len(s.Needs) < 1 {
			return fmt.Errorf("%s needs a subgoal to apply to", s.Op)
		}
		if s.Op == OpFilter && s.Args != nil && s.Args.Cmp != "" && !comparison(s.Args.Cmp) && s.Args.Cmp != CmpContains {
			return fmt.Errorf("filter operator %q is not one of < <= > >= = contains", s.Args.Cmp)
		}
		if s.Args != nil && s.Args.Cmp == CmpContains && s.Args.Type != TypeText {
			return fmt.Errorf("contains compares text: type must be %q", TypeText)
		}
	case OpFind:
		if s.Args != nil && s.Args.Literal != "" && len(s.Needs) > 0 {
			return fmt.Errorf("a find from a literal needs no subgoal")
		}
		if s.Args != nil && s.Args.Literal != "" && strings.TrimSpace(s.Args.Attribute) == "" {
			return fmt.Errorf("a find from a literal names no attribute")
		}
	case OpSuperlative:
		if len(s.Needs) < 1 {
			return fmt.Errorf("superlative needs a subgoal to apply to")
		}
		if s.Args != nil && s.Args.Order != "" && s.Args.Order != "max" && s.Args.Order != "min" {
			return fmt.Errorf("superlative order %q is not max or min", s.Args.Order)
		}
	case OpCompare:
		if len(s.Needs) < 1 {
			return fmt.Errorf("compare needs a subgoal to apply to")
		}
		if s.Args != nil && s.Args.Cmp != "" {
			switch s.Args.Cmp {
			case "<", "<=", ">", ">=", "=":
			default:
				return fmt.Errorf("compare operator %q is not one of < <= > >= =", s.Args.Cmp)
			}
		}
		if id, ok := s.Args.BoundRef(); ok {
			if !slices.Contains(s.Needs, id) {
				return fmt.Errorf("compare value %q refers to %s, which is not one of its needs", s.Args.Value, id)
			}
			if len(s.Needs) < 2 {
				return fmt.Errorf("compare value %q is its only need: no set is left to compare", s.Args.Value)
			}
		} else if s.Args != nil && strings.HasPrefix(strings.TrimSpace(s.Args.Value), "#") {
			return fmt.Errorf("compare value %q is not a reference of the form #k", s.Args.Value)
		}
	}
	if s.Args == nil {
		return nil
	}
	switch s.Args.Type {
	case "", TypeText, TypeNumber, TypeDate:
	default:
		return fmt.Errorf("value type %q is not text, number or date", s.Args.Type)
	}
	if len(s.Args.Valid) > MaxTimeConds {
		return fmt.Errorf("%d time conditions, at most %d allowed", len(s.Args.Valid), MaxTimeConds)
	}
	if len(s.Args.Valid) > 0 && s.Op != OpFind && s.Op != OpFilter {
		return fmt.Errorf("time conditions on a %s: only a find or a filter has them", s.Op)
	}
	for _, t := range s.Args.Valid {
		if err := t.check(); err != nil {
			return err
		}
	}
	return nil
}

// CheckVersion sets a missing version to the lowest that holds p, and
// reports a version this code does not read, or one below what p's args
// need.
func (p *Plan) CheckVersion() error {
	if p.Version == 0 {
		p.Version = p.NeededVersion()
	}
	if p.Version < PlanVersion || p.Version > LatestPlanVersion {
		return fmt.Errorf("%w: version %d, want %d to %d", ErrInvalidPlan, p.Version, PlanVersion, LatestPlanVersion)
	}
	if need := p.NeededVersion(); p.Version < need {
		return fmt.Errorf("%w: version %d, but its args need version %d", ErrInvalidPlan, p.Version, need)
	}
	return nil
}

// NeededVersion is the lowest plan version that holds p: PlanVersion,
// or PlanVersionConditions when a subgoal's args use one of its fields.
func (p *Plan) NeededVersion() int {
	for _, s := range p.Subgoals {
		if s.Args.conditions() {
			return PlanVersionConditions
		}
	}
	return PlanVersion
}

// Order returns the subgoal indexes in a dependency-respecting order
// (stable: ties keep plan order), or an error naming a cycle.
func (p *Plan) Order() ([]int, error) {
	index := make(map[string]int, len(p.Subgoals))
	for i, s := range p.Subgoals {
		index[s.ID] = i
	}
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(p.Subgoals))
	order := make([]int, 0, len(p.Subgoals))
	var visit func(i int) error
	visit = func(i int) error {
		switch color[i] {
		case grey:
			return fmt.Errorf("%w: dependency cycle through %q", ErrInvalidPlan, p.Subgoals[i].ID)
		case black:
			return nil
		}
		color[i] = grey
		for _, n := range p.Subgoals[i].Needs {
			j, ok := index[n]
			if !ok {
				return fmt.Errorf("%w: subgoal %s needs unknown id %q", ErrInvalidPlan, p.Subgoals[i].ID, n)
			}
			if err := visit(j); err != nil {
				return err
			}
		}
		color[i] = black
		order = append(order, i)
		return nil
	}
	for i := range p.Subgoals {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// Index returns the position of subgoal id in the plan: len(Subgoals) when
// the plan has no such subgoal, 0 for a nil plan.
func (p *Plan) Index(id string) int {
	if p == nil {
		return 0
	}
	for i, s := range p.Subgoals {
		if s.ID == id {
			return i
		}
	}
	return len(p.Subgoals)
}

// AnswerID returns the id of the subgoal that answers the question.
func (p *Plan) AnswerID() string {
	if p.Answer != "" {
		return p.Answer
	}
	if len(p.Subgoals) == 0 {
		return ""
	}
	return p.Subgoals[len(p.Subgoals)-1].ID
}

// Ancestors returns id and every subgoal it transitively needs.
func (p *Plan) Ancestors(id string) map[string]bool {
	byID := make(map[string]Subgoal, len(p.Subgoals))
	for _, s := range p.Subgoals {
		byID[s.ID] = s
	}
	out := map[string]bool{}
	var walk func(string)
	walk = func(id string) {
		if out[id] {
			return
		}
		out[id] = true
		for _, n := range byID[id].Needs {
			walk(n)
		}
	}
	walk(id)
	return out
}

// Kind is a question-structure label derived from a plan, comparable with
// the benchmarks' own labels.
type Kind string

// The plan kinds, as the paper counts them.
const (
	KindComposition Kind = "composition"
	KindConjunction Kind = "conjunction"
	KindComparative Kind = "comparative"
	KindSuperlative Kind = "superlative"
	KindCount       Kind = "count"
	KindLinear      Kind = "linear"
)

// Kinds returns the kinds of operation the plan contains, in a fixed order.
// A plan is a composition when a find starts from the result of any earlier
// subgoal (a find, filter, intersect, union, compare or superlative: the
// answer of a sub-question is followed further); a conjunction when it
// intersects sets or filters a set by a stated constraint (a second
// condition on the same answer, which is how ComplexWebQuestions labels
// "What language spoken in Cyprus has the code acy?"); comparative,
// superlative and count when it has such a subgoal; linear when it has none
// of these, that is a single find. A plan may contain several kinds; one
// primary type per question, comparable with published type shares, is a
// separate decision left to the caller.
func (p *Plan) Kinds() []Kind {
	has := map[Kind]bool{}
	for _, s := range p.Subgoals {
		switch s.Op {
		case OpIntersect, OpFilter:
			has[KindConjunction] = true
		case OpCompare:
			has[KindComparative] = true
		case OpSuperlative:
			has[KindSuperlative] = true
		case OpCount:
			has[KindCount] = true
		case OpFind:
			if len(s.Needs) > 0 {
				has[KindComposition] = true
			}
		}
	}
	var out []Kind
	for _, k := range []Kind{KindComposition, KindConjunction, KindComparative, KindSuperlative, KindCount} {
		if has[k] {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = []Kind{KindLinear}
	}
	return out
}

// ParsePlan decodes a plan strictly (unknown fields are an error) and
// validates it. A missing version is taken as the lowest that holds the
// plan; a version below what its args need is an error.
func ParsePlan(data []byte) (*Plan, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPlan, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the plan", ErrInvalidPlan)
	}
	if err := p.CheckVersion(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Upper bounds of a question's budget overrides, so that one request
// cannot ask for unbounded work (the API's options and the engine's
// overrides share them).
const (
	MaxWidth               = 10
	MaxDepth               = 4
	MaxRounds              = 5
	MaxEntitiesPerRelation = 100
	MaxRelationsPerEntity  = 10
	MaxParallelism         = 8
)
