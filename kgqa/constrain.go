package kgqa

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/refine"
)

// constrain runs compare, superlative and filter subgoals on the needed
// set. Values are compared exactly when they parse as numbers or dates
// (through a dated mediator, the value of the date the subgoal names; see
// qualify); otherwise, and for filters stated only in words, the model
// selects the members from the facts about them.
func (sg *subgoalRun) constrain(ctx context.Context) (Result, int, error) {
	members, capped := sg.neededEntities(), sg.neededCapped()
	rec := &SetOpRecord{Inputs: []int{len(members)}}
	sg.rec.SetOp = rec
	// Each member costs KG queries: as many as one neighbour query may
	// return, the same bound as every other set.
	if len(members) > sg.e.kgLimit {
		members, capped = members[:sg.e.kgLimit], true
		rec.Note = fmt.Sprintf("only the first %d of %d members were examined (the KG's neighbour limit)", sg.e.kgLimit, rec.Inputs[0])
	}
	sg.rec.Anchors = members
	sg.emit.send(Event{Type: EventSubgoalStarted, Subgoal: sg.s.ID, Anchors: topicsOf(members)})
	if len(members) == 0 {
		rec.Method, rec.Note = "exact", "the needed set is empty"
		return Result{Entities: []kg.Term{}, Source: "exact", Capped: capped}, sg.d0, nil
	}
	args := sg.args()
	text := sg.text()
	x := newExplorer(sg, text)
	x.attrHint = args.Attribute
	end := sg.d0
	var facts []kg.Fact
	entities := members[0].IsEntity()
	if entities {
		var err error
		facts, end, err = sg.attributeFacts(ctx, x, members, args, end)
		if err != nil {
			return Result{}, end, err
		}
		sg.addFacts(facts)
		capped = capped || cappedFrom(sg.rec.Rounds, members)
	}
	// Dated mediators: only the value of the date the subgoal names (its
	// own text, not the member names #1 expands to) is compared.
	values, note := qualify(facts, statedTimes(args, sg.s.Text), args)
	if out, ok := exactConstraint(members, values, args, rec); ok {
		rec.Method, rec.Note = "exact", joinNotes(rec.Note, note)
		out = nonNil(out)
		return Result{Text: names(out), Entities: out, Source: "exact", Capped: capped}, end, nil
	}
	rec.Method = "llm"
	out, err := sg.selectMembers(ctx, text, members, facts)
	if err != nil {
		return Result{}, end, err
	}
	return Result{Text: names(out), Entities: nonNil(out), Source: "llm", Capped: capped}, end + 1, nil
}

// args returns the subgoal's structured constraint, completed from its
// text where the plan left it out.
func (sg *subgoalRun) args() Args {
	var a Args
	if sg.s.Args != nil {
		a = *sg.s.Args
	}
	if sg.s.Op == OpFilter && a.Value != "" && a.Cmp == "" {
		a.Cmp = "="
	}
	if sg.s.Op == OpSuperlative && a.Order == "" {
		a.Order = inferOrder(sg.s.Text)
	}
	return a
}

func inferOrder(text string) string {
	words := tokens(text)
	for _, w := range []string{"last", "latest", "recent", "newest", "largest", "biggest", "highest", "longest", "tallest", "maximum", "greatest", "most"} {
		if words[stem(w)] {
			return "max"
		}
	}
	for _, w := range []string{"first", "earliest", "smallest", "lowest", "shortest", "least", "minimum", "fewest"} {
		if words[stem(w)] {
			return "min"
		}
	}
	return ""
}

// attributeFacts finds the relation that carries the compared attribute and
// fetches its values for every member. The relation is chosen lexically
// when one name clearly matches the attribute, else by the model.
func (sg *subgoalRun) attributeFacts(ctx context.Context, x *explorer, members []kg.Term, args Args, d int) ([]kg.Fact, int, error) {
	rd := &Round{Anchors: members, Chosen: []kg.Relation{}, Facts: []kg.Fact{}}
	defer func() {
		sg.rec.Rounds = append(sg.rec.Rounds, rd)
		rc := *rd
		sg.emit.send(Event{Type: EventExploration, Subgoal: sg.s.ID, Round: &rc})
	}()
	rels, err := x.relations(ctx, members)
	if err != nil {
		return nil, d, err
	}
	offered, has, cut, err := x.offer(ctx, members, rels)
	if err != nil {
		return nil, d, err
	}
	rd.Offered, rd.OfferedRelations, rd.Cut = len(offered), offered, cut
	if len(offered) == 0 {
		return nil, d, nil
	}
	max := 1
	if args.Cmp == "" && args.Order == "" {
		max = sg.b.MaxRelationsPerEntity // a filter stated in words
	}
	if r, ok := lexicalAttribute(sg.e.g.Dialect(), args.Attribute, offered); ok && max == 1 {
		rd.Chosen, rd.ChosenBy = []kg.Relation{r}, "lexical"
	} else if len(offered) == 1 {
		rd.Chosen, rd.ChosenBy = offered, "only_offered"
	} else {
		if err := x.choose(ctx, rd, offered, max); err != nil {
			return nil, d, err
		}
		d++
	}
	if len(rd.Chosen) == 1 {
		a := rd.Chosen[0]
		sg.rec.SetOp.Attribute = &a
	}
	rd.Facts, err = x.neighbors(ctx, rd, rd.Chosen, has)
	return rd.Facts, d, err
}

// lexicalAttribute picks the offered relation whose readable name best
// matches the attribute, when exactly one scores best.
func lexicalAttribute(d kg.Dialect, attribute string, offered []kg.Relation) (kg.Relation, bool) {
	want := tokens(attribute)
	if len(want) == 0 {
		return kg.Relation{}, false
	}
	best, n := 0.0, 0
	var pick kg.Relation
	for _, r := range offered {
		s := overlap(tokens(d.Readable(r.ID)), want)
		switch {
		case s > best:
			best, n, pick = s, 1, r
		case s == best && s > 0:
			n++
		}
	}
	return pick, best > 0 && n == 1
}

// exactConstraint applies a comparison or an argmax/argmin to the members'
// parsed values. ok is false when the constraint or the values do not
// parse, so that the model must decide.
func exactConstraint(members []kg.Term, facts []kg.Fact, a Args, rec *SetOpRecord) ([]kg.Term, bool) {
	if a.Cmp == "" && a.Order == "" {
		return nil, false
	}
	vals := map[string][]value{}
	rec.Values = map[string]string{}
	for _, m := range members {
		if !m.IsEntity() {
			if v, ok := parseValue(m); ok {
				vals[m.Key()] = append(vals[m.Key()], v)
			}
			continue
		}
		for _, f := range facts {
			if f.Head.ID == m.ID {
				if v, ok := parseValue(f.Tail); ok {
					vals[m.Key()] = append(vals[m.Key()], v)
				}
			}
		}
	}
	for _, m := range members {
		if vs := vals[m.Key()]; len(vs) > 0 {
			rec.Values[m.Key()] = vs[0].String()
		} else {
			rec.Unparsed++
		}
	}
	if len(vals) == 0 {
		return nil, false
	}
	if a.Order != "" {
		return argBest(members, vals, a.Order == "max")
	}
	ref, ok := parseRef(a.Value, vals)
	if !ok {
		return nil, false
	}
	var out []kg.Term
	compared := false
	for _, m := range members {
		for _, v := range vals[m.Key()] {
			c, ok := v.cmp(ref)
			compared = compared || ok
			if ok && holds(c, a.Cmp) {
				out = append(out, m)
				break
			}
		}
	}
	// No value was of the reference's kind: exact logic cannot decide.
	return out, compared
}

// parseRef reads a comparison's reference value in the kind of the
// members' values: "4600" is a year against dates but a number against
// elevations (parseText alone reads a bare four-digit number as a year).
func parseRef(s string, vals map[string][]value) (value, bool) {
	times, nums := 0, 0
	for _, vs := range vals {
		for _, v := range vs {
			if v.isTime {
				times++
			} else {
				nums++
			}
		}
	}
	if nums > times {
		if f, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(s, ",", "")), 64); err == nil {
			return value{num: f}, true
		}
	}
	return parseText(s)
}

// argBest keeps the member(s) with the largest (or smallest) value; a
// member with several values counts by its best one.
func argBest(members []kg.Term, vals map[string][]value, isMax bool) ([]kg.Term, bool) {
	sign := 1
	if !isMax {
		sign = -1
	}
	var best *value
	var out []kg.Term
	for _, m := range members {
		for _, v := range vals[m.Key()] {
			if best == nil {
				b := v
				best, out = &b, []kg.Term{m}
				continue
			}
			c, ok := v.cmp(*best)
			if !ok {
				return nil, false // mixed kinds: let the model decide
			}
			switch c * sign {
			case 1:
				b := v
				best, out = &b, []kg.Term{m}
			case 0:
				if !contains(out, m) {
					out = append(out, m)
				}
			}
		}
	}
	return out, best != nil
}

func holds(c int, op string) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "=":
		return c == 0
	}
	return false
}

type selectReply struct {
	Entities  []string `json:"entities"`
	UsedFacts []int    `json:"used_facts"`
	Reason    string   `json:"reason"`
}

// selectMembers asks the model which members satisfy the subgoal; it may
// only name members.
func (sg *subgoalRun) selectMembers(ctx context.Context, text string, members []kg.Term, facts []kg.Fact) ([]kg.Term, error) {
	d := sg.e.g.Dialect()
	facts = promptFacts(d, text, facts, sg.b.MaxEntitiesPerRelation, sg.e.maxFacts)
	data := prompts.SelectData{Plan: sg.view(), Subgoal: text}
	for _, m := range members {
		data.Members = append(data.Members, prompts.Term(m))
	}
	for _, f := range facts {
		data.Facts = append(data.Facts, prompts.Fact(d, f))
	}
	req, err := prompts.Request(llm.Reasoner, prompts.Select, data)
	if err != nil {
		return nil, stepErr("set_op", sg.s.ID, err)
	}
	pseudo := make([]kg.Fact, len(members)) // members as resolvable terms
	for i, m := range members {
		pseudo[i] = kg.Fact{Head: m, Tail: m}
	}
	var rep selectReply
	var out []kg.Term
	check := func() error {
		var rej []string
		out, rej = refine.Resolve(pseudo, rep.Entities)
		if len(rej) > 0 {
			return fmt.Errorf("%q is not one of the candidates", rej[0])
		}
		for _, n := range rep.UsedFacts {
			if n < 1 || n > len(facts) {
				return fmt.Errorf("used_facts: %d is not a fact number (1..%d)", n, len(facts))
			}
		}
		return nil
	}
	if _, err := sg.e.chat.JSON(ctx, req, &rep, check); err != nil {
		return nil, stepErr("set_op", sg.s.ID, err)
	}
	sg.rec.SetOp.Note = joinNotes(sg.rec.SetOp.Note, strings.TrimSpace(rep.Reason))
	return out, nil
}
