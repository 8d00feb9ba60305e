package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
)

// The conditions of version 2 plans, run exactly on the KG:
//
//   - time validity (Args.Valid): a find keeps the facts whose mediator
//     (a position held, a roster spot) holds a date along the condition's
//     attribute that compares as stated, or none when the condition is
//     open-ended; a filter keeps the members that do;
//   - a text value (Args.Type "text"): a filter keeps the members whose
//     value's text equals (or contains) the stated one, compared as the
//     gold queries compare str(?v): case and accents kept;
//   - a literal anchor (Args.Literal): a find starts from the members
//     that hold the literal along the relation its attribute names.
//
// Dates compare as the gold queries' xsd:dateTime casts do: a year or a
// date reads as its first instant.

// validConds returns the subgoal's time conditions.
func (sg *subgoalRun) validConds() []kgqa.TimeCond {
	if sg.s.Args == nil {
		return nil
	}
	return sg.s.Args.Valid
}

// keepValidFacts drops, of a find round's facts through mediators, those
// whose mediator fails the subgoal's time conditions, before refinement
// sees them; the checks go to the subgoal's record. Facts that cross no
// mediator are kept: the conditions are the mediator's.
func (sg *subgoalRun) keepValidFacts(ctx context.Context, rd *kgqa.Round) error {
	conds := sg.validConds()
	if len(conds) == 0 || rd == nil {
		return nil
	}
	var mediators []string
	seen := map[string]bool{}
	for _, f := range rd.Facts {
		if f.Mediator != "" && !seen[f.Mediator] {
			seen[f.Mediator] = true
			mediators = append(mediators, f.Mediator)
		}
	}
	if len(mediators) == 0 {
		return nil
	}
	kept, checks, err := sg.checkValid(ctx, mediators, conds)
	if err != nil {
		return err
	}
	facts := rd.Facts[:0:0]
	for _, f := range rd.Facts {
		if f.Mediator == "" || kept[f.Mediator] {
			facts = append(facts, f)
		}
	}
	rd.Facts = facts
	sg.rec.Valid = mergeChecks(sg.rec.Valid, checks)
	return nil
}

// validFilter runs a filter whose only condition is time validity on the
// members themselves (a film released in 2011): exact, with no model
// call. ok is false for any other filter.
func (sg *subgoalRun) validFilter(ctx context.Context, members []kgqa.Term, rec *kgqa.SetOpRecord) (kgqa.Result, bool, error) {
	conds := sg.validConds()
	a := sg.s.Args
	if sg.s.Op != kgqa.OpFilter || len(conds) == 0 || a.Cmp != "" || a.Value != "" {
		return kgqa.Result{}, false, nil
	}
	var ids []string
	for _, m := range members {
		if m.IsEntity() {
			ids = append(ids, m.ID)
		}
	}
	kept, checks, err := sg.checkValid(ctx, ids, conds)
	if err != nil {
		return kgqa.Result{}, true, err
	}
	sg.rec.Valid = mergeChecks(sg.rec.Valid, checks)
	out := []kgqa.Term{}
	for _, m := range members {
		if kept[m.ID] {
			out = append(out, m)
		}
	}
	rec.Method, rec.Note = "exact", joinNotes(rec.Note, fmt.Sprintf("%d of %d members valid at the stated time", len(out), len(members)))
	return kgqa.Result{Text: names(out), Entities: out, Source: "exact"}, true, nil
}

// checkValid reports which of the nodes ids satisfy every condition,
// with one check record per condition.
func (sg *subgoalRun) checkValid(ctx context.Context, ids []string, conds []kgqa.TimeCond) (map[string]bool, []kgqa.TimeCheck, error) {
	checks := make([]kgqa.TimeCheck, len(conds))
	for i, c := range conds {
		checks[i].Cond = c
	}
	kept := map[string]bool{}
	for _, id := range ids {
		rels, err := sg.e.g.Relations(ctx, id)
		if err != nil {
			return nil, nil, stepErr("valid", sg.s.ID, err)
		}
		ok := true
		for i, c := range conds {
			checks[i].Checked++
			rel, found := conditionRelation(c.Attribute, rels)
			var dates []value
			if found {
				if checks[i].Relation == "" {
					checks[i].Relation = rel
				}
				facts, err := sg.e.g.Neighbors(ctx, id, kgqa.Relation{ID: rel, Dir: kgqa.Out}, sg.e.kgLimit)
				if err != nil {
					return nil, nil, stepErr("valid", sg.s.ID, err)
				}
				for _, f := range facts {
					if v, ok := parseValue(f.Tail); ok && v.isTime {
						dates = append(dates, v)
					}
				}
			}
			if satisfies(dates, c) {
				checks[i].Kept++
			} else {
				ok = false
			}
		}
		if ok {
			kept[id] = true
		}
	}
	return kept, checks, nil
}

// satisfies reports whether dates meet c: one of them compares as c says
// (EXISTS), or, open-ended, there is none (NOT EXISTS).
func satisfies(dates []value, c kgqa.TimeCond) bool {
	if len(dates) == 0 {
		return c.Open
	}
	ref, ok := parseDate(c.Value)
	if !ok {
		return false
	}
	for _, d := range dates {
		if r, ok := d.cmp(ref); ok && holds(r, c.Cmp) {
			return true
		}
	}
	return false
}

// conditionRelation finds the outgoing relation of rels a condition's
// attribute names: the relation id itself, else the one whose last
// segment, read as words, is the attribute ("from" is
// government_position_held.from; "start date" is ....start_date).
func conditionRelation(attr string, rels []kgqa.Relation) (string, bool) {
	want := strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(attr, "_", " "))), " ")
	for _, r := range rels {
		if r.Dir == kgqa.Out && r.ID == attr {
			return r.ID, true
		}
	}
	for _, r := range rels {
		if r.Dir != kgqa.Out {
			continue
		}
		last := r.ID[strings.LastIndexAny(r.ID, "./")+1:]
		if strings.Join(strings.Fields(strings.ReplaceAll(last, "_", " ")), " ") == want {
			return r.ID, true
		}
	}
	return "", false
}

// mergeChecks adds the counts of b to a, condition by condition.
func mergeChecks(a, b []kgqa.TimeCheck) []kgqa.TimeCheck {
	if len(a) == 0 {
		return b
	}
	for i := range a {
		if i < len(b) {
			a[i].Checked += b[i].Checked
			a[i].Kept += b[i].Kept
			if a[i].Relation == "" {
				a[i].Relation = b[i].Relation
			}
		}
	}
	return a
}

// textConstraint keeps the members whose value's text equals (or, with
// Cmp "contains", contains) the stated text, as str(?v) = "Country"
// compares: the lexical form, case and accents kept. ok is false when no
// member has a literal value, so that the model must decide.
func textConstraint(members []kgqa.Term, facts []kgqa.Fact, a kgqa.Args, rec *kgqa.SetOpRecord) ([]kgqa.Term, bool) {
	if a.Type != kgqa.TypeText {
		return nil, false
	}
	rec.Values = map[string]string{}
	out, valued := []kgqa.Term{}, false
	for _, m := range members {
		var texts []string
		if !m.IsEntity() {
			texts = append(texts, m.Name)
		}
		for _, f := range facts {
			if f.Head.Key() == m.Key() && !f.Tail.IsEntity() {
				texts = append(texts, f.Tail.Name)
			}
		}
		if len(texts) == 0 {
			rec.Unparsed++
			continue
		}
		valued = true
		rec.Values[m.Key()] = texts[0]
		for _, s := range texts {
			if a.Cmp == kgqa.CmpContains && strings.Contains(s, a.Value) || a.Cmp != kgqa.CmpContains && s == a.Value {
				out = append(out, m)
				break
			}
		}
	}
	return out, valued
}

// literalFind starts a find from the literal its args state: the
// members holding it along the relation the attribute names (a relation
// id: with no entity to list relations from, the plan must name it). The
// query is the certificate compiler's, from validated ids and a
// re-printed constant. ok is false when the attribute is no relation id
// of the dialect; the find then runs as any other.
func (sg *subgoalRun) literalFind(ctx context.Context) (kgqa.Result, int, bool, error) {
	a := sg.s.Args
	if a == nil || a.Literal == "" || !sg.e.g.Dialect().ValidRelation(a.Attribute) {
		return kgqa.Result{}, sg.d0, false, nil
	}
	kind := compile.KindTerm
	if a.Type == kgqa.TypeText || a.Type == "" {
		kind = compile.KindText
	}
	q := &compile.Query{Answer: sg.s.ID, Nodes: []compile.Node{{ID: sg.s.ID, Op: kgqa.OpFind, Value: a.Literal, Kind: kind,
		Paths: []compile.Path{{{Relation: a.Attribute, Dir: kgqa.In}}}}}}
	text, err := compile.Compile(q, sg.e.g.Dialect())
	if err != nil {
		return kgqa.Result{}, sg.d0, true, stepErr("literal", sg.s.ID, err)
	}
	res, err := sg.e.g.Select(ctx, text)
	if err != nil {
		return kgqa.Result{}, sg.d0, true, stepErr("literal", sg.s.ID, err)
	}
	anchor := kgqa.Term{Name: a.Literal}
	sg.rec.Anchors = []kgqa.Term{anchor}
	rd := &kgqa.Round{Anchors: []kgqa.Term{anchor}, Chosen: []kgqa.Relation{{ID: a.Attribute, Dir: kgqa.In}}, ChosenBy: chosenByPlan, Facts: []kgqa.Fact{}}
	out := []kgqa.Term{}
	for _, row := range res.Rows {
		t, ok := row[compile.AnswerVar]
		if !ok || !t.IsEntity() || contains(out, t) {
			continue
		}
		out = append(out, t)
		rd.Facts = append(rd.Facts, kgqa.Fact{Head: anchor, Path: []string{a.Attribute}, Dir: kgqa.In, Tail: t})
	}
	sg.rec.Rounds = append(sg.rec.Rounds, rd)
	sg.addFacts(rd.Facts)
	return kgqa.Result{Text: names(out), Entities: out, Source: "exact"}, sg.d0, true, nil
}

// literalAnchored reports whether a find of plan starts from a literal:
// the question has a start in the KG with no topic entity.
func literalAnchored(plan *kgqa.Plan) bool {
	if plan == nil {
		return false
	}
	for _, s := range plan.Subgoals {
		if s.Op == kgqa.OpFind && s.Args != nil && s.Args.Literal != "" {
			return true
		}
	}
	return false
}
