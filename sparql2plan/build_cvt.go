package sparql2plan

import (
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// fromVar handles an edge from the node being built to variable w. A
// mediator w is crossed in the same step (one hop through a CVT); another
// entity variable is built first and then followed (composition). A
// variable with nothing else on it only asserts that the relation exists
// and is skipped.
func (b *builder) fromVar(w term, hop Hop) (ref string, skip bool, err error) {
	wk := w.key()
	rest := b.incident(wk)
	_, known := b.done[wk]
	if len(rest) == 0 && len(b.g.types[wk]) == 0 && len(b.g.cons[wk]) == 0 && !known && !b.inUnion(wk) {
		b.g.notes = append(b.g.notes, "existence-only")
		return "", true, nil
	}
	if cont, ok := b.mediator(w, hop, rest); ok {
		return b.crossMediator(w, hop, cont, rest)
	}
	from, err := b.node(wk)
	if err != nil {
		return "", false, err
	}
	return b.add(Step{Op: kgqa.OpFind, Needs: []string{from}, Path: []Hop{hop}}), false, nil
}

func (b *builder) inUnion(k string) bool {
	for i, u := range b.g.unions {
		if !b.unionUsed[i] && unionHas(u, k) {
			return true
		}
	}
	return false
}

// mediator decides whether w is a CVT to cross, and which of its edges
// continues the path. It is one when it is named like WebQSP's mediators
// (?y, ?k) or its relations belong to a known mediator type, it carries no
// compare or superlative, and exactly one of its other edges leads on
// (preferring the edge that enters it, then one to a variable) while the
// rest end in constants.
func (b *builder) mediator(w term, in Hop, rest []int) (int, bool) {
	wk := w.key()
	if w.value == b.g.answer || b.inUnion(wk) || len(b.g.types[wk]) > 0 {
		return -1, false
	}
	for _, c := range b.g.cons[wk] {
		if c.kind != consTime {
			return -1, false
		}
	}
	// The edge it was reached by counts too: from the answer, a roster
	// node is first met as the subject of sports_team_roster.team.
	named := cvtVarName.MatchString(w.value) || (!in.Reverse && cvtTypes[relType(in.Relation)])
	if !named {
		for _, i := range rest {
			if e := b.g.edges[i]; e.s.key() == wk && cvtTypes[relType(e.rel)] {
				named = true
				break
			}
		}
	}
	if !named || len(rest) == 0 {
		return -1, false
	}
	for _, i := range rest {
		// A gender belongs to a person, never to a mediator: WebQSP
		// names people ?y too (the parent in "?y people.person.gender
		// ns:m.05zppz").
		if attributeRelations[b.g.edges[i].rel] {
			return -1, false
		}
	}
	var entering, toVar []int
	for _, i := range rest {
		e := b.g.edges[i]
		if e.o.key() == wk {
			entering = append(entering, i)
		}
		if o, _ := other(e, wk); o.kind == kindVar {
			toVar = append(toVar, i)
		}
	}
	switch {
	case len(entering) == 1:
		if len(toVar) > 1 || len(toVar) == 1 && toVar[0] != entering[0] {
			return -1, false
		}
		return entering[0], true
	case len(entering) > 1:
		return -1, false
	case len(toVar) == 1:
		return toVar[0], true
	case len(toVar) > 1:
		return -1, false
	}
	for _, i := range rest {
		if o, _ := other(b.g.edges[i], wk); o.kind == kindEntity {
			return i, true
		}
	}
	return -1, false
}

func (b *builder) crossMediator(w term, hop Hop, cont int, rest []int) (string, bool, error) {
	wk := w.key()
	var quals []Qualifier
	for _, i := range rest {
		if i == cont {
			continue
		}
		b.used[i] = true
		o, _ := other(b.g.edges[i], wk)
		q := Qualifier{Relation: b.g.edges[i].rel}
		if o.kind == kindEntity {
			q.Entity = o.value
		} else {
			q.Value, q.ValueType = o.value, o.literalType()
		}
		quals = append(quals, q)
	}
	for _, c := range b.g.cons[wk] {
		quals = append(quals, timeQualifier(c))
	}
	b.used[cont] = true
	// other reads each hop from the far end towards the near one, so the
	// path runs z -> w -> (the node being built).
	z, first := other(b.g.edges[cont], wk)
	path := []Hop{first, hop}
	switch z.kind {
	case kindEntity:
		return b.add(Step{Op: kgqa.OpFind, Anchors: []string{z.value}, Path: path, Qualifiers: quals}), false, nil
	case kindLiteral:
		return b.add(Step{Op: kgqa.OpFind, Literal: z.value, LiteralType: z.literalType(), Path: path, Qualifiers: quals}), false, nil
	}
	if ids, ok, err := b.anchorSet(z); ok || err != nil {
		if err != nil {
			return "", false, err
		}
		return b.add(Step{Op: kgqa.OpFind, Anchors: ids, Path: path, Qualifiers: quals}), false, nil
	}
	from, err := b.node(z.key())
	if err != nil {
		return "", false, err
	}
	return b.add(Step{Op: kgqa.OpFind, Needs: []string{from}, Path: path, Qualifiers: quals}), false, nil
}

// relType is the domain.type part of a domain.type.property relation.
func relType(rel string) string {
	if i := strings.LastIndexByte(rel, '.'); i > 0 {
		return rel[:i]
	}
	return rel
}

// readable turns a relation or type id into words: the last segment with
// underscores as spaces, Freebase's "_s" plural marker folded
// ("sports.sports_team.team_mascot" -> "team mascot",
// "film.film.release_date_s" -> "release dates").
func readable(id string) string {
	if i := strings.LastIndexAny(id, ".#/"); i >= 0 {
		id = id[i+1:]
	}
	if strings.HasSuffix(id, "_s") {
		id = id[:len(id)-2] + "s"
	}
	words := strings.Fields(strings.ReplaceAll(id, "_", " "))
	for i, w := range words {
		if split, ok := runTogether[w]; ok {
			words[i] = split
		}
	}
	return strings.Join(words, " ")
}

// runTogether are Freebase property words written without their space.
var runTogether = map[string]string{"containedby": "contained by"}
