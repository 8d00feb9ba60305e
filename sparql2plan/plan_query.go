package sparql2plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
)

// freebase is the compiler's view of the Freebase dialect, with the id
// grammars sparql2plan reads from gold queries: a MID (m.0abc, g.11b...)
// or a dotted schema id, and a relation of at least two dotted parts.
// sparql2plan links no KG package, so it carries its own.
type freebase struct{}

var (
	fbEntity   = regexp.MustCompile(`^(?:[mg]\.[0-9a-z_]+|[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)$`)
	fbRelation = regexp.MustCompile(`^[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+)+$`)
)

func (freebase) Name() string                 { return "freebase" }
func (freebase) ValidEntity(id string) bool   { return fbEntity.MatchString(id) }
func (freebase) ValidRelation(id string) bool { return fbRelation.MatchString(id) }

// Freebase is the dialect plans converted from Freebase benchmarks
// compile in.
var Freebase compile.Dialect = freebase{}

// ErrNotCompilable wraps the reasons a converted plan has no compiled
// query: a step the compiler has no form for (a literal anchor, a time
// condition).
var ErrNotCompilable = fmt.Errorf("sparql2plan: not compilable")

func notCompilable(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrNotCompilable, fmt.Sprintf(format, a...))
}

// PlanQuery is the executed-plan form of a conversion's steps: what
// compile.Compile turns back into SPARQL. Each step becomes one node with
// its relations and directions, mediators, types, constraint values and
// references; the last step answers.
func PlanQuery(steps []Step) (*compile.Query, error) {
	if len(steps) == 0 {
		return nil, notCompilable("no step")
	}
	q := &compile.Query{Answer: steps[len(steps)-1].ID}
	literal := map[string]bool{}
	for _, s := range steps {
		if s.Op == kgqa.OpFind && s.Literal != "" && len(s.Needs) == 0 {
			literal[s.ID] = true
		}
		if s.Op == kgqa.OpSuperlative && len(s.Needs) > 0 && literal[s.Needs[0]] {
			// The gold ranks the literal's holders among those an anchor
			// reaches (a neighbour's 2019 population); the plan would rank
			// every holder in the KG first.
			return nil, notCompilable("a superlative over everything that holds a literal")
		}
	}
	for _, s := range steps {
		n, err := stepNode(s)
		if err != nil {
			return nil, fmt.Errorf("step %s (%s): %w", s.ID, s.Op, err)
		}
		q.Nodes = append(q.Nodes, notable(n)...)
	}
	return q, nil
}

// notable splits the notable types ("notable:m.0abc", Freebase's
// common.topic.notable_types) off a node's types: the node keeps the
// others under a new id, and one filter per notable type keeps its
// members that have it, the last under the node's id, so later nodes
// read the filtered set.
func notable(n compile.Node) []compile.Node {
	var types, mids []string
	for _, t := range n.Types {
		if mid, ok := strings.CutPrefix(t, notablePrefix); ok {
			mids = append(mids, mid)
		} else {
			types = append(types, t)
		}
	}
	if len(mids) == 0 {
		return []compile.Node{n}
	}
	id := n.ID
	n.ID, n.Types = id+"_base", types
	out := []compile.Node{n}
	for i, mid := range mids {
		f := compile.Node{ID: fmt.Sprintf("%s_notable%d", id, i+1), Op: kgqa.OpFilter, Needs: []string{out[len(out)-1].ID}, Value: mid,
			Attribute: []compile.Path{{{Relation: "common.topic.notable_types", Dir: kgqa.Out}}}}
		if i == len(mids)-1 {
			f.ID = id
		}
		out = append(out, f)
	}
	return out
}

func stepNode(s Step) (compile.Node, error) {
	n := compile.Node{ID: s.ID, Op: s.Op, Needs: append([]string(nil), s.Needs...), Types: append([]string(nil), s.Types...)}
	for _, q := range s.Qualifiers {
		cq, err := qualifierNode(q)
		if err != nil {
			return n, err
		}
		n.Qualifiers = append(n.Qualifiers, cq)
	}
	switch s.Op {
	case kgqa.OpFind:
		if s.Literal != "" {
			n.Value, n.Kind, n.Datatype = s.Literal, literalKind(s.LiteralType), literalDatatype(s.LiteralType)
		}
		if len(s.Needs) == 0 {
			n.Anchors = append([]string(nil), s.Anchors...)
		}
		if len(s.Path) > 0 {
			n.Paths = []compile.Path{findPath(s.Path, len(s.Qualifiers) > 0)}
		}
		if len(s.Qualifiers) > 0 && len(s.Path) != 2 {
			return n, notCompilable("a mediator condition on a path of %d hops", len(s.Path))
		}
	case kgqa.OpIntersect, kgqa.OpUnion, kgqa.OpCount:
	case kgqa.OpFilter:
		if len(s.Qualifiers) > 0 {
			return n, nil // conditions on the members themselves
		}
		n.Attribute = []compile.Path{reversed(s.Path)}
		switch {
		case len(s.Anchors) == 1:
			n.Value = s.Anchors[0]
		case s.Literal != "" && len(s.Path) > 0:
			// The literal as the gold query matched it: its text, or
			// the literal itself.
			n.Cmp, n.Value = "=", s.Literal
			n.Kind, n.Datatype = literalKind(s.LiteralType), literalDatatype(s.LiteralType)
		default:
			return n, notCompilable("a filter with no value")
		}
	case kgqa.OpCompare, kgqa.OpSuperlative:
		if s.Args == nil {
			return n, notCompilable("a constraint with no arguments")
		}
		n.Attribute = []compile.Path{findPath(s.Path, false)}
		n.Cmp, n.Order = s.Args.Cmp, s.Args.Order
		n.Kind = valueKind(s.Path, s.Args.Value, s.ValueType)
		if id, ok := s.Args.BoundRef(); ok {
			n.Bound = id
		} else {
			n.Value = s.Args.Value
		}
	default:
		return n, notCompilable("op %s", s.Op)
	}
	return n, nil
}

// findPath turns a find's hops (from the known side) into a compiler
// path; mediated marks the first of two hops as crossing a mediator, whose
// conditions the compiler puts on it.
func findPath(hops []Hop, mediated bool) compile.Path {
	p := make(compile.Path, len(hops))
	for i, h := range hops {
		p[i] = compile.Hop{Relation: h.Relation, Dir: kgqa.Out}
		if h.Reverse {
			p[i].Dir = kgqa.In
		}
	}
	if mediated && len(p) == 2 {
		p[0].Mediator = true
	}
	return p
}

// reversed reads a filter's path, written from its value towards the
// member, from the member towards the value.
func reversed(hops []Hop) compile.Path {
	p := make(compile.Path, len(hops))
	for i, h := range hops {
		dir := kgqa.In // a forward hop from the value is a backward one from the member
		if h.Reverse {
			dir = kgqa.Out
		}
		p[len(hops)-1-i] = compile.Hop{Relation: h.Relation, Dir: dir}
	}
	return p
}

// dateWords mark a relation whose values are dates.
var dateWords = regexp.MustCompile(`(date|year|_from|_to|from$|to$|start|end|founded|born|died|time|_on$|since|until|opened|closed)`)

// valueKind says how a constraint's values compare: as the query typed
// its constant, else as dates when the constant is a date (not a bare
// number) or the attribute is named like a date, else as numbers.
func valueKind(path []Hop, value, valueType string) compile.ValueKind {
	switch valueType {
	case "date", "dateTime", "gYear", "gYearMonth":
		return compile.KindDate
	case "integer", "int", "long", "double", "float", "decimal":
		return compile.KindNumber
	}
	if value != "" && !strings.HasPrefix(value, "#") {
		if _, ok := compile.ParseDate(value); ok && strings.Contains(value, "-") {
			return compile.KindDate
		}
	}
	if len(path) > 0 && dateWords.MatchString(path[len(path)-1].Relation[strings.LastIndexByte(path[len(path)-1].Relation, '.')+1:]) {
		return compile.KindDate
	}
	return compile.KindNumber
}

// CompilePlan compiles a conversion's steps back to SPARQL.
func CompilePlan(steps []Step) (string, error) {
	q, err := PlanQuery(steps)
	if err != nil {
		return "", err
	}
	return compile.Compile(q, Freebase)
}

// qualifierNode is the compiler's form of a mediator's (or a member's)
// condition: an entity, a literal (its text or itself), or a time
// condition. A span during an entity's own (a war's start and end)
// compares two variables, which a qualifier cannot say.
func qualifierNode(q Qualifier) (compile.Qualifier, error) {
	switch {
	case q.During != "":
		return compile.Qualifier{}, notCompilable("a time span during a given entity's")
	case q.Relation == "":
		return compile.Qualifier{}, notCompilable("a mediator condition with no relation")
	case q.Entity != "":
		return compile.Qualifier{Relation: q.Relation, Entity: q.Entity}, nil
	case q.Cmp != "":
		return compile.Qualifier{Relation: q.Relation, Cmp: q.Cmp, Value: q.Value, Open: q.Open}, nil
	}
	return compile.Qualifier{Relation: q.Relation, Value: q.Value, Kind: literalKind(q.ValueType), Datatype: literalDatatype(q.ValueType)}, nil
}

// literalKind is how a literal of the given Step.LiteralType matches:
// by its text when the gold query compared str(), else as itself.
func literalKind(typ string) compile.ValueKind {
	if typ == "text" {
		return compile.KindText
	}
	return compile.KindTerm
}

// literalDatatype is the datatype a KindTerm literal is printed with.
func literalDatatype(typ string) string {
	if typ == "text" {
		return ""
	}
	return typ
}
