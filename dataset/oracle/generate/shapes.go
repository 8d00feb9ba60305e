package generate

import (
	"context"
	"slices"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
)

// cwqQuery writes a gold query in ComplexWebQuestions' form: the answer
// variable ?x, the topic entity left out of the answers, English names
// only, then the pattern lines and the modifiers.
func cwqQuery(topic string, lines []string, modifiers string) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString("SELECT DISTINCT ?x\nWHERE {\n")
	b.WriteString("FILTER (?x != ns:" + topic + ")\n")
	b.WriteString("FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("}\n")
	b.WriteString(modifiers)
	return b.String()
}

// pick draws one of the relations that keep says fit.
func (m *maker) pick(rels []relCount, keep func(relCount) bool) (relCount, bool) {
	var fit []relCount
	for _, rc := range rels {
		if keep(rc) {
			fit = append(fit, rc)
		}
	}
	if len(fit) == 0 {
		return relCount{}, false
	}
	return fit[m.rng.IntN(len(fit))], true
}

// namedValues keeps the named entity values other than the excluded ids.
func namedValues(vals []value, exclude ...string) []value {
	var out []value
	for _, v := range vals {
		if v.named() && !slices.Contains(exclude, v.id) {
			out = append(out, v)
		}
	}
	return out
}

// entityAnswers turns query results into named entity answers; ok is false
// when a result is a literal or has no name, or the set is empty or larger
// than the maker's bound.
func (m *maker) entityAnswers(ctx context.Context, got []kgqa.Term) ([]dataset.Answer, bool, error) {
	if len(got) == 0 || len(got) > m.maxAnswers {
		return nil, false, nil
	}
	ids := make([]string, 0, len(got))
	for _, t := range got {
		if !t.IsEntity() {
			return nil, false, nil
		}
		ids = append(ids, t.ID)
	}
	names, err := m.r.names(ctx, ids)
	if err != nil {
		return nil, false, err
	}
	out := make([]dataset.Answer, 0, len(ids))
	for _, id := range ids {
		if names[id] == "" {
			return nil, false, nil
		}
		out = append(out, dataset.Answer{ID: id, Name: names[id]})
	}
	slices.SortFunc(out, func(a, b dataset.Answer) int { return strings.Compare(a.ID, b.ID) })
	return out, true, nil
}

// topicValues picks a relation of topic t with 2 to 50 values and returns
// its named values other than t, the start of a conjunction and of a text
// filter; ok is false when t has no such relation or fewer than two such
// values.
func (m *maker) topicValues(ctx context.Context, t kgqa.Entity) (relCount, []value, bool, error) {
	rels, err := m.r.relations(ctx, t.ID)
	if err != nil {
		return relCount{}, nil, false, err
	}
	r1, ok := m.pick(rels, func(rc relCount) bool { return rc.n >= 2 && rc.n <= 50 })
	if !ok {
		return relCount{}, nil, false, nil
	}
	vals, err := m.r.values(ctx, t.ID, r1.rel)
	if err != nil {
		return relCount{}, nil, false, err
	}
	xs := namedValues(vals, t.ID)
	return r1, xs, len(xs) >= 2, nil
}

// conjunction: the values of a relation of the topic that also hold a
// second fact, T r1 ?x . ?x r2 E, the answers a strict part of T's values.
func (m *maker) conjunction(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	r1, xs, ok, err := m.topicValues(ctx, t)
	if err != nil || !ok {
		return Question{}, false, err
	}
	x := xs[m.rng.IntN(len(xs))]
	xrels, err := m.r.relations(ctx, x.id)
	if err != nil {
		return Question{}, false, err
	}
	r2, ok := m.pick(xrels, func(rc relCount) bool { return rc.n <= 3 && rc.rel != r1.rel })
	if !ok {
		return Question{}, false, nil
	}
	evals, err := m.r.values(ctx, x.id, r2.rel)
	if err != nil {
		return Question{}, false, err
	}
	es := namedValues(evals, t.ID, x.id)
	if len(es) == 0 {
		return Question{}, false, nil
	}
	e := es[m.rng.IntN(len(es))]
	query := cwqQuery(t.ID, []string{
		"ns:" + t.ID + " ns:" + r1.rel + " ?x .",
		"?x ns:" + r2.rel + " ns:" + e.id + " .",
	}, "")
	got, err := m.r.answers(ctx, query)
	if err != nil || len(got) >= len(xs) {
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	text := m.texts(
		"Which of "+m.setPhrase(t.Name, r1.rel)+" "+m.holds(r2.rel, e.name)+"?",
		"Among "+m.setPhrase(t.Name, r1.rel)+", which "+m.holds(r2.rel, e.name)+"?",
	)
	return Question{Text: text, SPARQL: query, Topics: topics(t, kgqa.Entity{ID: e.id, Name: e.name}), Answers: ans,
		Function: "none", Relations: []string{r1.rel, r2.rel}}, true, nil
}

// composition: an entity described by its relation to the topic, followed
// through a mediator node: T r1 ?c . ?c r2 ?y . ?y r3 ?x.
func (m *maker) composition(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	rels, err := m.r.relations(ctx, t.ID)
	if err != nil {
		return Question{}, false, err
	}
	r1, ok := m.pick(rels, func(rc relCount) bool { return rc.n <= 2 })
	if !ok {
		return Question{}, false, nil
	}
	vals, err := m.r.values(ctx, t.ID, r1.rel)
	if err != nil {
		return Question{}, false, err
	}
	cs := namedValues(vals, t.ID)
	if len(cs) == 0 {
		return Question{}, false, nil
	}
	c := cs[m.rng.IntN(len(cs))]
	r2, y, ok, err := m.mediatorHop(ctx, c.id)
	if err != nil || !ok {
		return Question{}, false, err
	}
	yrels, err := m.r.relations(ctx, y.id)
	if err != nil {
		return Question{}, false, err
	}
	var r3 relCount
	for _, i := range m.rng.Perm(len(yrels)) {
		yv, err := m.r.values(ctx, y.id, yrels[i].rel)
		if err != nil {
			return Question{}, false, err
		}
		if len(namedValues(yv, c.id, t.ID)) > 0 && len(namedValues(yv)) == len(yv) {
			r3 = yrels[i]
			break
		}
	}
	if r3.rel == "" {
		return Question{}, false, nil
	}
	query := cwqQuery(t.ID, []string{
		"FILTER (?x != ?c)",
		"ns:" + t.ID + " ns:" + r1.rel + " ?c .",
		"?c ns:" + r2 + " ?y .",
		"?y ns:" + r3.rel + " ?x .",
	}, "")
	got, err := m.r.answers(ctx, query)
	if err != nil {
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	of := m.setPhrase(t.Name, r1.rel)
	text := m.texts(
		"What is the "+words(r3.rel)+" in the "+words(r2)+" of "+of+"?",
		"In the "+words(r2)+" of "+of+", what is the "+words(r3.rel)+"?",
	)
	if prepositional(r3.rel) {
		text = m.texts("What is the " + words(r2) + " of " + of + " " + words(r3.rel) + "?")
	}
	return Question{Text: text, SPARQL: query, Topics: topics(t), Answers: ans, Function: "none",
		Relations: []string{r1.rel, r2, r3.rel}}, true, nil
}

// mediatorHop finds a relation of entity id whose values are mediator
// nodes and returns it with one of them.
func (m *maker) mediatorHop(ctx context.Context, id string) (string, value, bool, error) {
	rels, err := m.r.relations(ctx, id)
	if err != nil {
		return "", value{}, false, err
	}
	tried := 0
	for _, i := range m.rng.Perm(len(rels)) {
		if rels[i].n > 20 || tried >= 6 {
			continue
		}
		tried++
		vals, err := m.r.values(ctx, id, rels[i].rel)
		if err != nil {
			return "", value{}, false, err
		}
		var meds []value
		for _, v := range vals {
			if v.mediator() {
				meds = append(meds, v)
			}
		}
		if len(meds) > 0 && len(meds) == len(vals) {
			return rels[i].rel, meds[m.rng.IntN(len(meds))], true, nil
		}
	}
	return "", value{}, false, nil
}

// count: how many values a relation of the topic has, in GrailQA's form.
func (m *maker) count(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	rels, err := m.r.relations(ctx, t.ID)
	if err != nil {
		return Question{}, false, err
	}
	r1, ok := m.pick(rels, func(rc relCount) bool { return rc.n >= 2 && rc.n <= 5*m.maxAnswers })
	if !ok {
		return Question{}, false, nil
	}
	vals, err := m.r.values(ctx, t.ID, r1.rel)
	if err != nil {
		return Question{}, false, err
	}
	if len(namedValues(vals, t.ID)) != len(vals) {
		return Question{}, false, nil
	}
	query := prefix + "SELECT (COUNT(?x) AS ?value) WHERE {\nSELECT DISTINCT ?x WHERE {\n" +
		"ns:" + t.ID + " ns:" + r1.rel + " ?x .\nFILTER (?x != ns:" + t.ID + ")\n}\n}\n"
	got, err := m.r.answers(ctx, query)
	if err != nil || len(got) != 1 || got[0].IsEntity() || got[0].Name == "0" {
		return Question{}, false, err
	}
	var text string
	if prepositional(r1.rel) {
		text = m.texts("How many "+plural(m.rangeNoun(r1.rel))+" is "+t.Name+" "+words(r1.rel)+"?",
			"What is the number of "+plural(m.rangeNoun(r1.rel))+" "+t.Name+" is "+words(r1.rel)+"?")
	} else {
		text = m.texts("How many "+words(r1.rel)+" does "+t.Name+" have?",
			"What is the number of "+words(r1.rel)+" of "+t.Name+"?")
	}
	return Question{Text: text, SPARQL: query, Topics: topics(t),
		Answers:  []dataset.Answer{{Name: got[0].Name, Datatype: dataset.XSD + "integer"}},
		Function: "count", Relations: []string{r1.rel}}, true, nil
}

// texts draws one of the phrasings.
func (m *maker) texts(alts ...string) string { return capitalise(alts[m.rng.IntN(len(alts))]) }

// topics lists the entities a question names.
func topics(es ...kgqa.Entity) []dataset.Entity {
	out := make([]dataset.Entity, 0, len(es))
	for _, e := range es {
		out = append(out, dataset.Entity{ID: e.ID, Name: e.Name})
	}
	return out
}
