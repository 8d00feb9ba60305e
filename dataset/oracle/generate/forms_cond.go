package generate

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
)

// cond is a condition on a set of named nodes, as the plan language
// states one: a fact with a given entity (an intersection with what the
// entity reaches), or a date or number beyond a constant (a compare).
type cond struct {
	rel string
	// entity is the fact's entity; empty for a comparison.
	entity value
	// kind, op, pivot and dt are a comparison's.
	kind  attrKind
	op    string
	pivot attr
	dt    string
	// pass holds the nodes that satisfy the condition.
	pass map[string]bool
}

// lines writes the condition on variable v in the gold query.
func (c cond) lines(v string) []string {
	if c.entity.id != "" {
		return []string{v + " ns:" + c.rel + " ns:" + c.entity.id + " ."}
	}
	num := "?num"
	if c.kind == attrDate {
		num = "xsd:datetime(?num)"
	}
	s := attrSet{kind: c.kind, dt: c.dt}
	return []string{v + " ns:" + c.rel + " ?num .", "FILTER (" + num + " " + c.op + " " + s.constant(c.pivot) + ") ."}
}

// clause words the condition as a relative clause.
func (m *maker) clause(c cond) string {
	if c.entity.id != "" {
		return m.holds(c.rel, c.entity.name)
	}
	word := map[string]map[attrKind]string{
		">": {attrDate: "after", attrNumber: "more than"},
		"<": {attrDate: "before", attrNumber: "less than"},
	}[c.op][c.kind]
	a := article(words(c.rel))
	return m.pickText("has "+a+" "+word+" "+c.pivot.lex, "has "+a+" that is "+word+" "+c.pivot.lex)
}

// function is GrailQA's function label of a question with the condition.
func (c cond) function() string {
	if c.entity.id != "" {
		return "none"
	}
	return c.op
}

// topics lists the entities a question with the condition names: the
// topic, and a fact's entity.
func (c cond) topics(t kgqa.Entity) []dataset.Entity {
	if c.entity.id == "" {
		return topics(t)
	}
	return topics(t, kgqa.Entity{ID: c.entity.id, Name: c.entity.name})
}

// condition draws a condition that some but not all of nodes satisfy,
// from the facts of one of from (a fact with an entity or a comparison,
// drawn half and half), on a relation other than those in not.
func (m *maker) condition(ctx context.Context, nodes, from []value, exclude, not []string) (cond, bool, error) {
	n := from[m.rng.IntN(len(from))]
	var c cond
	var ok bool
	var err error
	if m.rng.IntN(2) == 0 {
		c, ok, err = m.factCond(ctx, n, nodes, exclude, not)
	} else {
		c, ok, err = m.compareCond(ctx, n, nodes, not)
	}
	if err != nil || !ok || len(c.pass) == 0 || len(c.pass) == len(nodes) {
		return cond{}, false, err
	}
	return c, true, nil
}

// factCond draws a fact of node n with a named entity outside exclude,
// and the nodes that hold it.
func (m *maker) factCond(ctx context.Context, n value, nodes []value, exclude, not []string) (cond, bool, error) {
	rels, err := m.r.relations(ctx, n.id)
	if err != nil {
		return cond{}, false, err
	}
	rc, ok := m.pick(rels, func(rc relCount) bool { return rc.n <= 3 && !slices.Contains(not, rc.rel) })
	if !ok {
		return cond{}, false, nil
	}
	vals, err := m.r.values(ctx, n.id, rc.rel)
	if err != nil {
		return cond{}, false, err
	}
	es := namedValues(vals, append(slices.Clone(exclude), n.id)...)
	if len(es) == 0 {
		return cond{}, false, nil
	}
	c := cond{rel: rc.rel, entity: es[m.rng.IntN(len(es))], pass: map[string]bool{}}
	for _, x := range nodes {
		xv, err := m.r.values(ctx, x.id, rc.rel)
		if err != nil {
			return cond{}, false, err
		}
		if ids(xv)[c.entity.id] {
			c.pass[x.id] = true
		}
	}
	return c, true, nil
}

// compareCond draws a date or number relation of node n and a constant
// among the nodes' values, and the nodes beyond it: a node passes "> v"
// when its greatest value is above v, "< v" when its least is below, as
// the gold query's join reads them.
func (m *maker) compareCond(ctx context.Context, n value, nodes []value, not []string) (cond, bool, error) {
	rels, err := m.r.relations(ctx, n.id)
	if err != nil {
		return cond{}, false, err
	}
	var c cond
	for _, i := range m.rng.Perm(len(rels)) {
		if rels[i].n > 2 || slices.Contains(not, rels[i].rel) {
			continue
		}
		vals, err := m.r.values(ctx, n.id, rels[i].rel)
		if err != nil {
			return cond{}, false, err
		}
		if len(vals) > 0 && vals[0].literal() && kindOf(vals[0]) != attrNone {
			c = cond{rel: rels[i].rel, kind: kindOf(vals[0]), dt: vals[0].dt}
			break
		}
	}
	if c.rel == "" {
		return cond{}, false, nil
	}
	s := &attrSet{kind: c.kind, max: map[string]attr{}, min: map[string]attr{}}
	for _, x := range nodes {
		ok, err := m.readAttr(ctx, s, x, c.rel)
		if err != nil || !ok {
			return cond{}, false, err
		}
	}
	c.op = ">"
	side := s.max
	if m.rng.IntN(2) == 0 {
		c.op, side = "<", s.min
	}
	vals := s.sorted(side)
	if len(vals) < 2 {
		return cond{}, false, nil
	}
	c.pivot = vals[m.rng.IntN(len(vals))]
	c.pass = map[string]bool{}
	for _, a := range vals {
		if (c.op == "<" && a.less(c.pivot, c.kind)) || (c.op == ">" && c.pivot.less(a, c.kind)) {
			c.pass[a.x.id] = true
		}
	}
	return c, true, nil
}

// readAttr reads node x's values of rel into s's greatest and least;
// ok is false when one is of another kind (its comparison would depend
// on how a store casts it).
func (m *maker) readAttr(ctx context.Context, s *attrSet, x value, rel string) (bool, error) {
	vals, err := m.r.values(ctx, x.id, rel)
	if err != nil {
		return false, err
	}
	for _, v := range vals {
		if kindOf(v) != s.kind {
			return false, nil
		}
		a := attr{x: x, lex: v.lex}
		a.key, _ = instant(v.lex)
		a.num, _ = strconv.ParseFloat(v.lex, 64)
		if old, ok := s.max[x.id]; !ok || old.less(a, s.kind) {
			s.max[x.id] = a
		}
		if old, ok := s.min[x.id]; !ok || a.less(old, s.kind) {
			s.min[x.id] = a
		}
	}
	return true, nil
}

// middleFilter: a chain whose middle set is constrained, T r1 ?c . (the
// condition on ?c) . ?c r2 ?x, r2 a relation two of the middles hold at
// least; the condition keeps a strict part of the middles and changes
// the answer.
func (m *maker) middleFilter(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	r1, cs, ft, r2, ok, err := m.setMiddle(ctx, t)
	if err != nil || !ok {
		return Question{}, false, err
	}
	per, all, ok, err := m.hopFrom(ctx, cs, r2, t.ID)
	if err != nil || !ok {
		return Question{}, false, err
	}
	c, ok, err := m.middleCondition(ctx, ft, cs, per, r1, r2)
	if err != nil || !ok {
		return Question{}, false, err
	}
	want, kept := map[string]bool{}, 0
	for _, x := range cs {
		if c.pass[x.id] {
			kept++
			for _, v := range per[x.id] {
				want[v.id] = true
			}
		}
	}
	if len(want) == 0 || len(want) == len(all) || len(want) > m.maxAnswers {
		return Question{}, false, nil
	}
	lines := append([]string{"ns:" + t.ID + " ns:" + r1 + " ?c ."}, c.lines("?c")...)
	lines = append(lines, "?c ns:"+r2+" ?x .")
	p := m.ofTopic(r1, t.Name) + " that " + m.clause(c)
	text := m.askOne(r2, p)
	if kept > 1 {
		text = m.askUnion(r2, p)
	}
	q, ok, err := m.chainQuestion(ctx, t, lines, []string{r1, c.rel, r2}, want, text)
	q.Function, q.Topics = c.function(), c.topics(t)
	return q, ok, err
}

// middleCondition draws the condition on the middles of a chain, from
// one that reaches an answer (per): half the time one of its facts (from
// the table ft), else a comparison.
func (m *maker) middleCondition(ctx context.Context, ft *factTable, cs []value, per map[string][]value, r1, r2 string) (cond, bool, error) {
	var holders []value
	for _, x := range cs {
		if len(per[x.id]) > 0 {
			holders = append(holders, x)
		}
	}
	if len(holders) == 0 {
		return cond{}, false, nil
	}
	n := holders[m.rng.IntN(len(holders))]
	if m.rng.IntN(2) == 0 {
		c, ok, err := m.compareCond(ctx, n, cs, []string{r1, r2})
		if err != nil || !ok || len(c.pass) == 0 || len(c.pass) == len(cs) {
			return cond{}, false, err
		}
		return c, true, nil
	}
	var fit []fact
	for _, f := range ft.order {
		if ft.holders[f][n.id] && f.rel != r2 && len(ft.holders[f]) < len(cs) {
			fit = append(fit, f)
		}
	}
	if len(fit) == 0 {
		return cond{}, false, nil
	}
	f := fit[m.rng.IntN(len(fit))]
	names, err := m.r.names(ctx, []string{f.entity})
	if err != nil || names[f.entity] == "" {
		return cond{}, false, err
	}
	ft.name = names
	return ft.cond(f), true, nil
}

// endFilter: a chain whose end is constrained, T r1 ?c . ?c r2 ?x . (the
// condition on ?x); the answers a strict part of the chain's.
func (m *maker) endFilter(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	r1, cs, ok, err := m.plainHop(ctx, t.ID, 1, 5, []string{t.ID}, nil)
	if err != nil || !ok {
		return Question{}, false, err
	}
	exclude := append([]string{t.ID}, idList(cs)...)
	c0 := cs[m.rng.IntN(len(cs))]
	r2, _, ok, err := m.plainHop(ctx, c0.id, 2, 20, exclude, []string{r1})
	if err != nil || !ok {
		return Question{}, false, err
	}
	_, xs, ok, err := m.hopFrom(ctx, cs, r2, t.ID)
	if err != nil || !ok || len(xs) < 2 {
		return Question{}, false, err
	}
	c, ok, err := m.condition(ctx, xs, xs, exclude, []string{r1, r2})
	if err != nil || !ok || len(c.pass) > m.maxAnswers {
		return Question{}, false, err
	}
	lines := []string{"ns:" + t.ID + " ns:" + r1 + " ?c .", "?c ns:" + r2 + " ?x ."}
	lines = append(lines, c.lines("?x")...)
	set := m.ofSet(r2, m.ofTopic(r1, t.Name))
	q, ok, err := m.chainQuestion(ctx, t, lines, []string{r1, r2, c.rel}, c.pass, m.askWhich(set, m.clause(c)))
	q.Function, q.Topics, q.Classes = c.function(), c.topics(t), m.answerClasses(r2)
	return q, ok, err
}

// conjunction3: the values of a relation of the topic that hold two more
// facts, T r1 ?x . ?x r2 E1 . ?x r3 E2. The first fact is one that two
// or more of the values share, the second one of those values' facts, so
// that each fact keeps a strict part of T's values and the second a
// strict part of the first's.
func (m *maker) conjunction3(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	rc, xs, ok, err := m.topicValues(ctx, t)
	if err != nil || !ok || len(xs) > 20 {
		return Question{}, false, err
	}
	r1 := rc.rel
	facts, err := m.facts(ctx, t, r1)
	if err != nil {
		return Question{}, false, err
	}
	var shared []fact
	for _, f := range facts.order {
		if n := len(facts.holders[f]); n >= 2 && n < len(xs) {
			shared = append(shared, f)
		}
	}
	if len(shared) == 0 {
		return Question{}, false, nil
	}
	f1 := shared[m.rng.IntN(len(shared))]
	pass1 := facts.holders[f1]
	x := slices.Sorted(maps.Keys(pass1))[m.rng.IntN(len(pass1))]
	var second []fact
	for _, f := range facts.order {
		if facts.holders[f][x] && f.rel != f1.rel && f.entity != f1.entity && len(facts.holders[f]) < len(xs) {
			second = append(second, f)
		}
	}
	if len(second) == 0 {
		return Question{}, false, nil
	}
	f2 := second[m.rng.IntN(len(second))]
	if facts.name, err = m.r.names(ctx, []string{f1.entity, f2.entity}); err != nil || facts.name[f1.entity] == "" || facts.name[f2.entity] == "" {
		return Question{}, false, err
	}
	c1, c2 := facts.cond(f1), facts.cond(f2)
	both := map[string]bool{}
	for id := range c1.pass {
		if c2.pass[id] {
			both[id] = true
		}
	}
	if len(both) == len(c1.pass) || len(both) > m.maxAnswers {
		return Question{}, false, nil
	}
	lines := append([]string{"ns:" + t.ID + " ns:" + r1 + " ?x ."}, c1.lines("?x")...)
	lines = append(lines, c2.lines("?x")...)
	q, ok, err := m.chainQuestion(ctx, t, lines, []string{r1, c1.rel, c2.rel}, both,
		m.askWhich(m.setPhrase(t.Name, r1), m.clause(c1), m.clause(c2)))
	q.Topics, q.Classes = topics(t, kgqa.Entity{ID: c1.entity.id, Name: c1.entity.name}, kgqa.Entity{ID: c2.entity.id, Name: c2.entity.name}), m.answerClasses(r1)
	return q, ok, err
}

// fact is one relation to a named entity.
type fact struct{ rel, entity string }

// factTable holds the facts of the values of (T, r1) with a named
// entity, and which values hold each.
type factTable struct {
	order   []fact
	holders map[fact]map[string]bool
	name    map[string]string
}

func (ft *factTable) cond(f fact) cond {
	return cond{rel: f.rel, entity: value{id: f.entity, name: ft.name[f.entity]}, pass: ft.holders[f]}
}

// facts reads, in one query, the facts with an entity (other than T)
// that the values of (T, r1) hold, noise left out, in a fixed order. The
// entities' names are read apart (a join on the names of ?e would also
// meet the literals ?e holds).
func (m *maker) facts(ctx context.Context, t kgqa.Entity, r1 string) (*factTable, error) {
	q := prefix + "SELECT ?x ?r ?e WHERE { ns:" + t.ID + " ns:" + r1 + " ?x . ?x ?r ?e . } LIMIT 5000"
	rows, err := m.r.rows(ctx, q)
	if err != nil {
		return nil, err
	}
	ft := &factTable{holders: map[fact]map[string]bool{}}
	for _, row := range rows {
		x, rel, e := row["x"].ID, row["r"].ID, row["e"].ID
		if rel == r1 || e == t.ID || !entityID.MatchString(e) || m.r.isNoise(rel) {
			continue
		}
		f := fact{rel, e}
		if ft.holders[f] == nil {
			ft.holders[f] = map[string]bool{}
			ft.order = append(ft.order, f)
		}
		ft.holders[f][x] = true
	}
	slices.SortFunc(ft.order, func(a, b fact) int { return strings.Compare(a.rel+" "+a.entity, b.rel+" "+b.entity) })
	return ft, nil
}

// article puts "a" or "an" before a noun phrase.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
