package compile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// FromAnswer reads the executed plan of an answer out of its trace: for
// each subgoal the answer rests on, the relation paths that reached the
// members it kept (from the facts of its exploration rounds), the set
// logic it applied, the attribute, comparison and order of its
// constraint, and, for a subgoal whose model answer stood, that answer's
// entities as given. It returns the query and how much of the answer came
// from the KG; the error says why an answer has no query (the model
// answered alone, or a subgoal's result was the model's choice among the
// facts, which no query states).
func FromAnswer(a *kgqa.Answer) (*Query, kgqa.Coverage, error) {
	if a == nil || a.Plan == nil {
		return nil, kgqa.CoversNone, fmt.Errorf("%w: no plan", ErrUnsupported)
	}
	if a.AnsweredWithoutKG {
		return nil, kgqa.CoversNone, fmt.Errorf("%w: the model answered without the KG", ErrUnsupported)
	}
	answer := a.Plan.AnswerID()
	if f := a.Final; f != nil {
		switch f.Source {
		case "sufficiency":
			answer = f.After
		case "final":
			return nil, kgqa.CoversPartial, fmt.Errorf("%w: the model composed the final answer from all the evidence", ErrUnsupported)
		default:
			return nil, kgqa.CoversNone, fmt.Errorf("%w: the answer came from the model (%s)", ErrUnsupported, f.Source)
		}
	}
	records := map[string]*kgqa.SubgoalRecord{}
	for _, r := range a.Subgoals {
		records[r.ID] = r
	}
	need := a.Plan.Ancestors(answer)
	q := &Query{Answer: answer}
	covers, kgSets := kgqa.CoversAll, 0
	var errs []string
	order, err := a.Plan.Order()
	if err != nil {
		return nil, kgqa.CoversNone, err
	}
	for _, i := range order {
		s := a.Plan.Subgoals[i]
		if !need[s.ID] {
			continue
		}
		rec := records[s.ID]
		if rec == nil || rec.Status != "done" {
			errs = append(errs, fmt.Sprintf("subgoal %s did not finish", s.ID))
			continue
		}
		n, tentative, err := node(s, rec)
		if tentative {
			covers = kgqa.CoversPartial
		} else if s.Op == kgqa.OpFind {
			kgSets++
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("subgoal %s: %v", s.ID, err))
			continue
		}
		q.Nodes = append(q.Nodes, n)
	}
	if covers == kgqa.CoversPartial && kgSets == 0 {
		covers = kgqa.CoversNone
	}
	if len(errs) > 0 {
		return nil, covers, fmt.Errorf("%w: %s", ErrUnsupported, strings.Join(errs, "; "))
	}
	return q, covers, nil
}

// node is the compiler's view of one finished subgoal; tentative is true
// when its result is the model's answer as given.
func node(s kgqa.Subgoal, rec *kgqa.SubgoalRecord) (Node, bool, error) {
	n := Node{ID: s.ID, Op: s.Op, Needs: slices.Clone(s.Needs)}
	if rec.Result.Source == "tentative" || (rec.SetOp != nil && rec.SetOp.Method == "tentative") {
		for _, t := range rec.Result.Entities {
			if !t.IsEntity() {
				return n, true, fmt.Errorf("%w: the model's answer %q is not a KG entity", ErrUnsupported, clipText(t.Name))
			}
			n.Given = append(n.Given, t.ID)
		}
		if len(n.Given) == 0 {
			return n, true, fmt.Errorf("%w: the model's answer names no KG entity", ErrUnsupported)
		}
		return n, true, nil
	}
	if err := checkedConditions(&n, rec); err != nil {
		return n, false, err
	}
	switch s.Op {
	case kgqa.OpFind:
		if s.Args != nil && s.Args.Literal != "" {
			n.Value, n.Kind = s.Args.Literal, literalKind(s.Args.Type)
		}
		return n, false, findNode(&n, rec)
	case kgqa.OpIntersect, kgqa.OpUnion, kgqa.OpCount:
		return n, false, nil
	}
	if len(n.Qualifiers) > 0 && s.Op == kgqa.OpFilter && (s.Args == nil || s.Args.Value == "") {
		return n, false, nil // time conditions on the members alone
	}
	return n, false, constraintNode(&n, s, rec)
}

// checkedConditions states the time conditions the engine checked as
// qualifiers: on a find's mediators, on a filter's members. A condition
// read along no relation (none matched its attribute) has no query.
func checkedConditions(n *Node, rec *kgqa.SubgoalRecord) error {
	for _, c := range rec.Valid {
		if c.Relation == "" {
			return fmt.Errorf("%w: no relation matched the time condition on %q", ErrUnsupported, clipText(c.Cond.Attribute))
		}
		n.Qualifiers = append(n.Qualifiers, Qualifier{Relation: c.Relation, Cmp: c.Cond.Cmp, Value: c.Cond.Value, Open: c.Cond.Open})
	}
	return nil
}

// literalKind is how a plan's literal of type typ matches: a text (or an
// untyped literal) by its text, a number or a date as a typed literal.
func literalKind(typ string) ValueKind {
	if typ == kgqa.TypeText || typ == "" {
		return KindText
	}
	return KindTerm
}

// findNode fills a find's start and paths from its trace.
func findNode(n *Node, rec *kgqa.SubgoalRecord) error {
	if len(n.Needs) == 0 {
		for _, t := range rec.Anchors {
			if t.IsEntity() {
				n.Anchors = append(n.Anchors, t.ID)
			}
		}
	}
	if rec.Result.Source == "verified" && rec.Verification != nil {
		for _, r := range rec.Verification.Relations {
			n.Paths = append(n.Paths, Path{{Relation: r.ID, Dir: r.Dir}},
				Path{{Relation: r.ID, Dir: r.Dir, Mediator: true}, {Any: true, Dir: kgqa.Out}},
				Path{{Relation: r.ID, Dir: r.Dir, Mediator: true}, {Any: true, Dir: kgqa.In}})
		}
		if len(n.Paths) == 0 {
			return fmt.Errorf("%w: a check with no relation", ErrUnsupported)
		}
		return nil
	}
	if len(rec.Result.Entities) == 0 {
		// An empty result: the first round's chosen relations state it.
		if len(rec.Rounds) > 0 {
			for _, r := range rec.Rounds[0].Chosen {
				n.Paths = append(n.Paths, Path{{Relation: r.ID, Dir: r.Dir}})
			}
		}
	} else {
		n.Paths = keptPaths(rec.Rounds, rec.Result.Entities)
	}
	if len(n.Paths) == 0 {
		return fmt.Errorf("%w: no fact of the trace reaches the result", ErrUnsupported)
	}
	return nil
}

// factPath is the path of one fact.
func factPath(f kgqa.Fact) Path {
	if len(f.Path) < 2 {
		return Path{{Relation: f.Path[0], Dir: f.Dir}}
	}
	return Path{{Relation: f.Path[0], Dir: f.Dir, Mediator: true}, {Relation: f.Path[1], Dir: f.SecondDir()}}
}

func pathKey(p Path) string {
	var b strings.Builder
	for _, h := range p {
		fmt.Fprintf(&b, "%s|%s|%t|%t;", h.Relation, h.Dir, h.Mediator, h.Any)
	}
	return b.String()
}

// keptPaths are the distinct paths by which the rounds' facts reached the
// kept terms, from the subgoal's start: a fact of a later round extends
// every path that reached its head, except in a round that went back to
// the start (depth 0: a retry, or the choice a skipped one brought),
// whose facts start paths as the first round's do.
func keptPaths(rounds []*kgqa.Round, kept []kgqa.Term) []Path {
	reach := map[string][]Path{} // term key -> paths from the start
	for i, rd := range rounds {
		next := map[string][]Path{}
		for _, f := range rd.Facts {
			if len(f.Path) == 0 {
				continue
			}
			p := factPath(f)
			if i == 0 || rd.Depth == 0 {
				next[f.Tail.Key()] = addPath(next[f.Tail.Key()], p)
				continue
			}
			for _, pre := range reach[f.Head.Key()] {
				next[f.Tail.Key()] = addPath(next[f.Tail.Key()], append(slices.Clone(pre), p...))
			}
		}
		for k, ps := range next {
			for _, p := range ps {
				reach[k] = addPath(reach[k], p)
			}
		}
	}
	var out []Path
	for _, t := range kept {
		for _, p := range reach[t.Key()] {
			out = addPath(out, p)
		}
	}
	return out
}

func addPath(ps []Path, p Path) []Path {
	k := pathKey(p)
	for _, q := range ps {
		if pathKey(q) == k {
			return ps
		}
	}
	return append(ps, p)
}

// constraintNode fills a filter, compare or superlative from its set
// operation record and the facts of its attribute round.
func constraintNode(n *Node, s kgqa.Subgoal, rec *kgqa.SubgoalRecord) error {
	op := rec.SetOp
	if op == nil || op.Method != "exact" {
		return fmt.Errorf("%w: the model chose the members from the facts", ErrUnsupported)
	}
	n.Cmp, n.Order = op.Cmp, op.Order
	if s.Args != nil {
		if id, ok := s.Args.BoundRef(); ok && s.Op == kgqa.OpCompare {
			n.Bound = id
		} else {
			n.Value = s.Args.Value
		}
	}
	n.Kind = valueKind(op.Values)
	if s.Args != nil && s.Args.Type == kgqa.TypeText {
		n.Kind = KindText
	}
	if op.Attribute != nil {
		var dateRels []string
		for _, rd := range rec.Rounds {
			for _, f := range rd.Facts {
				if len(f.Path) == 0 || f.Path[0] != op.Attribute.ID || f.Dir != op.Attribute.Dir {
					continue
				}
				switch {
				case op.Dated != nil && (len(f.Path) < 2 || f.SecondDir() != kgqa.Out):
				case op.Dated != nil && isDate(f.Tail):
					if !slices.Contains(dateRels, f.Path[1]) {
						dateRels = append(dateRels, f.Path[1])
					}
				case parses(n.Kind, f.Tail):
					n.Attribute = addPath(n.Attribute, factPath(f))
				}
			}
		}
		if op.Dated != nil {
			if len(dateRels) != 1 {
				return fmt.Errorf("%w: dated values with %d date relations", ErrUnsupported, len(dateRels))
			}
			n.Dated = &Dated{DateRelation: dateRels[0], Times: slices.Clone(op.Dated.Times)}
		}
		if len(n.Attribute) == 0 {
			n.Attribute = []Path{{{Relation: op.Attribute.ID, Dir: op.Attribute.Dir}}}
		}
	} else if len(op.Values) > 0 && len(rec.Rounds) > 0 && len(rec.Rounds[0].Facts) > 0 {
		return fmt.Errorf("%w: no single attribute relation was recorded", ErrUnsupported)
	}
	if n.Op == kgqa.OpSuperlative && n.Order == "" {
		return fmt.Errorf("%w: a superlative with no order", ErrUnsupported)
	}
	return nil
}

// valueKind reads the kind of the compared values from the record's
// printed values: the engine prints dates as YYYY-MM-DD.
func valueKind(values map[string]string) ValueKind {
	dates, nums := 0, 0
	for _, v := range values {
		if len(v) == 10 && v[4] == '-' && v[7] == '-' {
			dates++
		} else {
			nums++
		}
	}
	if dates > nums {
		return KindDate
	}
	return KindNumber
}

// isDate reports whether t is a date-typed literal, which a dated
// mediator holds as its date.
func isDate(t kgqa.Term) bool {
	switch strings.TrimPrefix(t.Datatype, xsdNS) {
	case "date", "dateTime", "gYear", "gYearMonth":
		return !t.IsEntity()
	}
	return false
}

// parses reports whether a fact's tail is a value of kind.
func parses(kind ValueKind, t kgqa.Term) bool {
	if t.IsEntity() {
		return false
	}
	if kind == KindText {
		return true
	}
	if kind == KindDate {
		_, ok := ParseDate(strings.TrimPrefix(t.Name, "+"))
		return ok
	}
	_, err := numberLit(t.Name)
	return err == nil
}
