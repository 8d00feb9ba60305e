package generate

import (
	"context"
	"unicode"

	"github.com/parog/parog-go/kgqa"
)

// textValue reports whether a literal is a text value a question can
// state and a gold query compares through str(): English text (Freebase's
// type.text, such as a location type or a character note, is
// language-tagged; its identifiers and codes are plain strings, and no
// one asks by them), of printable characters, short enough to ask about.
func textValue(v value) bool {
	if !v.literal() || v.lang != "en" || v.lex == "" || len(v.lex) > 60 {
		return false
	}
	for _, r := range v.lex {
		if r == '"' || r == '\\' || r == '_' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// textual: the values of a relation of the topic whose attribute has a
// given text, in CWQ's form: T r1 ?x . ?x r2 ?sk0 . FILTER (str(?sk0) =
// "Country"), the answers a strict part of T's values.
func (m *maker) textual(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	r1, xs, ok, err := m.topicValues(ctx, t)
	if err != nil || !ok {
		return Question{}, false, err
	}
	// Text attributes are sparse: a few of the values are tried.
	var r2, text string
	for _, i := range m.rng.Perm(len(xs))[:min(4, len(xs))] {
		if r2, text, ok, err = m.textAttribute(ctx, xs[i].id); err != nil || ok {
			break
		}
	}
	if err != nil || !ok {
		return Question{}, false, err
	}
	query := cwqQuery(t.ID, []string{
		"ns:" + t.ID + " ns:" + r1.rel + " ?x .",
		"?x ns:" + r2 + " ?sk0 .",
		`FILTER (str(?sk0) = "` + text + `")`,
	}, "")
	got, err := m.r.answers(ctx, query)
	if err != nil || len(got) >= len(xs) {
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	set, attr := m.setPhrase(t.Name, r1.rel), words(r2)
	q := m.texts(
		"Which of "+set+" have \""+text+"\" as their "+attr+"?",
		"Among "+set+", which has the "+attr+" \""+text+"\"?",
	)
	return Question{Text: q, SPARQL: query, Topics: topics(t), Answers: ans, Function: "none",
		Relations: []string{r1.rel, r2}}, true, nil
}

// textAttribute draws a relation of entity id with one or two text
// values, and one of them.
func (m *maker) textAttribute(ctx context.Context, id string) (string, string, bool, error) {
	rels, err := m.r.relations(ctx, id)
	if err != nil {
		return "", "", false, err
	}
	for _, i := range m.rng.Perm(len(rels)) {
		if rels[i].n > 2 {
			continue
		}
		vals, err := m.r.values(ctx, id, rels[i].rel)
		if err != nil {
			return "", "", false, err
		}
		var texts []string
		for _, v := range vals {
			if textValue(v) {
				texts = append(texts, v.lex)
			}
		}
		if len(texts) > 0 && len(texts) == len(vals) {
			return rels[i].rel, texts[m.rng.IntN(len(texts))], true, nil
		}
	}
	return "", "", false, nil
}
