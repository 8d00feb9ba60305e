package generate

import (
	"context"
	"slices"

	"github.com/parog/parog-go/kgqa"
)

// A chain's middle variables, in the order its hops reach them. None is
// named like WebQSP's mediators (?y, ?k), which sparql2plan crosses
// within one hop.
var middleVars = []string{"?c", "?d", "?e"}

// chain: a plain chain of hops from the topic through named middles, one
// entity each, T r1 ?c . ?c r2 ?x (or through ?d for three hops).
func (m *maker) chain(ctx context.Context, t kgqa.Entity, hops int) (Question, bool, error) {
	exclude := []string{t.ID}
	var rels, lines []string
	cur, from, phrase := t.ID, "ns:"+t.ID, ""
	for h := 0; h < hops-1; h++ {
		rel, vals, ok, err := m.plainHop(ctx, cur, 1, 1, exclude, rels)
		if err != nil || !ok {
			return Question{}, false, err
		}
		lines = append(lines, from+" ns:"+rel+" "+middleVars[h]+" .")
		if h == 0 {
			phrase = m.ofTopic(rel, t.Name)
		} else {
			phrase = m.ofSet(rel, phrase)
		}
		rels, exclude = append(rels, rel), append(exclude, vals[0].id)
		cur, from = vals[0].id, middleVars[h]
	}
	rel, vals, ok, err := m.plainHop(ctx, cur, 1, m.maxAnswers, exclude, rels)
	if err != nil || !ok {
		return Question{}, false, err
	}
	lines = append(lines, from+" ns:"+rel+" ?x .")
	return m.chainQuestion(ctx, t, lines, append(rels, rel), ids(vals), m.askOne(rel, phrase))
}

// chainQuestion runs a chain's gold query and keeps the question when its
// result is what the walk expects (want).
func (m *maker) chainQuestion(ctx context.Context, t kgqa.Entity, lines, rels []string, want map[string]bool, text string) (Question, bool, error) {
	query := cwqQuery(t.ID, lines, "")
	got, err := m.r.answers(ctx, query)
	if err != nil || !sameAnswers(got, want) {
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	return Question{Text: capitalise(text), SPARQL: query, Topics: topics(t), Answers: ans, Function: "none",
		Relations: rels, Classes: m.answerClasses(rels[len(rels)-1])}, true, nil
}

// acrossMediator draws a relation of entity id whose values are all
// mediators and a relation out of one of them to named entities, and
// returns both with the entities reached from every one of the
// mediators: one to five of them, none in exclude (the gold query keeps
// no middle out, so neither may the walk).
func (m *maker) acrossMediator(ctx context.Context, id string, exclude, not []string) (string, string, []value, bool, error) {
	rIn, y, ok, err := m.mediatorHop(ctx, id)
	if err != nil || !ok || slices.Contains(not, rIn) {
		return "", "", nil, false, err
	}
	meds, err := m.r.values(ctx, id, rIn)
	if err != nil {
		return "", "", nil, false, err
	}
	rOut, _, ok, err := m.plainHop(ctx, y.id, 1, 3, exclude, append(slices.Clone(not), rIn))
	if err != nil || !ok {
		return "", "", nil, false, err
	}
	_, reached, ok, err := m.hopFrom(ctx, meds, rOut, "")
	if err != nil || !ok || len(reached) == 0 || len(reached) > 5 {
		return "", "", nil, false, err
	}
	for _, v := range reached {
		if slices.Contains(exclude, v.id) {
			return "", "", nil, false, nil
		}
	}
	return rIn, rOut, reached, true, nil
}

// lastHop draws the chain's last relation from one of the middles and
// returns it with the union of its values over all of them, the topic
// left out, as the gold query reads it; ok is false when the union is
// empty or too large.
func (m *maker) lastHop(ctx context.Context, t kgqa.Entity, middles []value, exclude, not []string) (string, map[string][]value, []value, bool, error) {
	c := middles[m.rng.IntN(len(middles))]
	rel, _, ok, err := m.plainHop(ctx, c.id, 1, m.maxAnswers, exclude, not)
	if err != nil || !ok {
		return "", nil, nil, false, err
	}
	per, union, ok, err := m.hopFrom(ctx, middles, rel, t.ID)
	if err != nil || !ok || len(union) == 0 || len(union) > m.maxAnswers {
		return "", nil, nil, false, err
	}
	return rel, per, union, true, nil
}

// mediatorChain2: a hop through a mediator, then a plain hop, T r1 ?y .
// ?y r2 ?c . ?c r3 ?x.
func (m *maker) mediatorChain2(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	r1, r2, cs, ok, err := m.acrossMediator(ctx, t.ID, []string{t.ID}, nil)
	if err != nil || !ok {
		return Question{}, false, err
	}
	exclude := append([]string{t.ID}, idList(cs)...)
	r3, _, xs, ok, err := m.lastHop(ctx, t, cs, exclude, []string{r1, r2})
	if err != nil || !ok {
		return Question{}, false, err
	}
	lines := []string{"ns:" + t.ID + " ns:" + r1 + " ?y .", "?y ns:" + r2 + " ?c .", "?c ns:" + r3 + " ?x ."}
	p := m.through(r1, r2, t.Name)
	text := m.askOne(r3, p)
	if len(cs) > 1 {
		text = m.askUnion(r3, p)
	}
	return m.chainQuestion(ctx, t, lines, []string{r1, r2, r3}, ids(xs), text)
}

// mediatorChain3: a plain hop to one named entity, a hop through a
// mediator, then a plain hop, T r1 ?c . ?c r2 ?y . ?y r3 ?d . ?d r4 ?x.
func (m *maker) mediatorChain3(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	r1, cs, ok, err := m.plainHop(ctx, t.ID, 1, 1, []string{t.ID}, nil)
	if err != nil || !ok {
		return Question{}, false, err
	}
	c := cs[0]
	r2, r3, ds, ok, err := m.acrossMediator(ctx, c.id, []string{t.ID, c.id}, []string{r1})
	if err != nil || !ok {
		return Question{}, false, err
	}
	exclude := append([]string{t.ID, c.id}, idList(ds)...)
	r4, _, xs, ok, err := m.lastHop(ctx, t, ds, exclude, []string{r1, r2, r3})
	if err != nil || !ok {
		return Question{}, false, err
	}
	lines := []string{"ns:" + t.ID + " ns:" + r1 + " ?c .", "?c ns:" + r2 + " ?y .", "?y ns:" + r3 + " ?d .", "?d ns:" + r4 + " ?x ."}
	p := m.through(r2, r3, m.ofTopic(r1, t.Name))
	text := m.askOne(r4, p)
	if len(ds) > 1 {
		text = m.askUnion(r4, p)
	}
	return m.chainQuestion(ctx, t, lines, []string{r1, r2, r3, r4}, ids(xs), text)
}

// setChain: a chain whose middle is a set of two to eight entities, T r1
// ?c . ?c r2 ?x, r2 a relation two of the middles hold at least; the
// answer is a union no single middle gives.
func (m *maker) setChain(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	r1, cs, _, r2, ok, err := m.setMiddle(ctx, t)
	if err != nil || !ok {
		return Question{}, false, err
	}
	per, xs, ok, err := m.hopFrom(ctx, cs, r2, t.ID)
	if err != nil || !ok || len(xs) == 0 || len(xs) > m.maxAnswers {
		return Question{}, false, err
	}
	for _, vs := range per {
		if len(vs) == len(xs) {
			return Question{}, false, nil
		}
	}
	lines := []string{"ns:" + t.ID + " ns:" + r1 + " ?c .", "?c ns:" + r2 + " ?x ."}
	return m.chainQuestion(ctx, t, lines, []string{r1, r2}, ids(xs), m.askUnion(r2, m.ofTopic(r1, t.Name)))
}

// setMiddle draws the first hop of a chain whose middle is a set: r1
// from t to two to eight middles cs (ft their facts), and r2, a relation
// two of the middles hold at least; ok is false when t has none.
func (m *maker) setMiddle(ctx context.Context, t kgqa.Entity) (r1 string, cs []value, ft *factTable, r2 string, ok bool, err error) {
	r1, cs, ok, err = m.plainHop(ctx, t.ID, 2, 8, []string{t.ID}, nil)
	if err != nil || !ok {
		return "", nil, nil, "", false, err
	}
	if ft, err = m.facts(ctx, t, r1); err != nil {
		return "", nil, nil, "", false, err
	}
	shared := sharedRelations(ft, r1)
	if len(shared) == 0 {
		return "", nil, nil, "", false, nil
	}
	return r1, cs, ft, shared[m.rng.IntN(len(shared))], true, nil
}

// sharedRelations lists the relations other than not that lead two of
// the values of (T, r1) at least to an entity, sorted.
func sharedRelations(ft *factTable, not ...string) []string {
	held := map[string]map[string]bool{}
	for _, f := range ft.order {
		if slices.Contains(not, f.rel) {
			continue
		}
		if held[f.rel] == nil {
			held[f.rel] = map[string]bool{}
		}
		for x := range ft.holders[f] {
			held[f.rel][x] = true
		}
	}
	var out []string
	for rel, xs := range held {
		if len(xs) >= 2 {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// idList lists the values' ids.
func idList(vs []value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.id
	}
	return out
}
