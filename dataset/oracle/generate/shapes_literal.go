package generate

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
)

// attrKind is the kind of a compared or ordered value.
type attrKind int

const (
	attrNone attrKind = iota
	attrDate
	attrNumber
)

var (
	yearForm     = regexp.MustCompile(`^[0-9]{4}$`)
	yearMonth    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}$`)
	dateForm     = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	dateTimeForm = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

// instant is a literal's value as Virtuoso's xsd:dateTime cast reads it
// (the first instant of a year, month or day), in a form that sorts as
// text; ok is false for other literals.
func instant(lex string) (string, bool) {
	switch {
	case yearForm.MatchString(lex):
		return lex + "-01-01T00:00:00", true
	case yearMonth.MatchString(lex):
		return lex + "-01T00:00:00", true
	case dateForm.MatchString(lex):
		return lex + "T00:00:00", true
	case dateTimeForm.MatchString(lex):
		return lex, true
	}
	return "", false
}

// kindOf tells a literal's kind from its datatype.
func kindOf(v value) attrKind {
	switch strings.TrimPrefix(v.dt, dataset.XSD) {
	case "date", "gYear", "gYearMonth", "dateTime":
		if _, ok := instant(v.lex); ok {
			return attrDate
		}
	case "int", "integer", "float", "double", "decimal", "long":
		if _, err := strconv.ParseFloat(v.lex, 64); err == nil {
			return attrNumber
		}
	}
	return attrNone
}

// attr is one entity's compared value.
type attr struct {
	x   value
	key string  // dates: the cast instant
	num float64 // numbers
	lex string
}

func (a attr) less(b attr, k attrKind) bool {
	if k == attrDate {
		return a.key < b.key
	}
	return a.num < b.num
}

// attrSet is the values of r2 on the values of (T, r1).
type attrSet struct {
	r1, r2 string
	kind   attrKind
	xs     []value
	// best holds, per entity, its greatest and least value.
	max, min map[string]attr
	dt       string
}

// attributes finds a relation r1 of the topic with 3..50 named values,
// and a date or number relation r2 that at least three of them hold.
func (m *maker) attributes(ctx context.Context, t kgqa.Entity) (*attrSet, bool, error) {
	rels, err := m.r.relations(ctx, t.ID)
	if err != nil {
		return nil, false, err
	}
	r1, ok := m.pick(rels, func(rc relCount) bool { return rc.n >= 3 && rc.n <= 50 })
	if !ok {
		return nil, false, nil
	}
	vals, err := m.r.values(ctx, t.ID, r1.rel)
	if err != nil {
		return nil, false, err
	}
	xs := namedValues(vals, t.ID)
	if len(xs) < 3 {
		return nil, false, nil
	}
	x := xs[m.rng.IntN(len(xs))]
	xrels, err := m.r.relations(ctx, x.id)
	if err != nil {
		return nil, false, err
	}
	var kind attrKind
	var r2, dt string
	for _, i := range m.rng.Perm(len(xrels)) {
		if xrels[i].n > 2 {
			continue
		}
		xv, err := m.r.values(ctx, x.id, xrels[i].rel)
		if err != nil {
			return nil, false, err
		}
		if len(xv) > 0 && xv[0].literal() && kindOf(xv[0]) != attrNone {
			r2, kind, dt = xrels[i].rel, kindOf(xv[0]), xv[0].dt
			break
		}
	}
	if r2 == "" {
		return nil, false, nil
	}
	rows, err := m.r.rows(ctx, prefix+"SELECT ?x ?num WHERE { ns:"+t.ID+" ns:"+r1.rel+" ?x . ?x ns:"+r2+" ?num . }")
	if err != nil {
		return nil, false, err
	}
	s := &attrSet{r1: r1.rel, r2: r2, kind: kind, xs: xs, max: map[string]attr{}, min: map[string]attr{}, dt: dt}
	byID := map[string]value{}
	for _, v := range xs {
		byID[v.id] = v
	}
	for _, row := range rows {
		v, ok := byID[row["x"].ID]
		lit := value{lex: row["num"].Name, dt: row["num"].Datatype}
		if !ok || kindOf(lit) != kind {
			// A value of another kind, or an entity without a name,
			// would make the answer depend on how a store casts it.
			return nil, false, nil
		}
		a := attr{x: v, lex: lit.lex}
		a.key, _ = instant(lit.lex)
		a.num, _ = strconv.ParseFloat(lit.lex, 64)
		if old, ok := s.max[v.id]; !ok || old.less(a, kind) {
			s.max[v.id] = a
		}
		if old, ok := s.min[v.id]; !ok || a.less(old, kind) {
			s.min[v.id] = a
		}
	}
	if len(s.max) < 3 {
		return nil, false, nil
	}
	return s, true, nil
}

// sorted lists the entities' values of one side (max or min), least
// first, ties broken by entity id.
func (s *attrSet) sorted(side map[string]attr) []attr {
	out := make([]attr, 0, len(side))
	for _, a := range side {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b attr) int {
		switch {
		case a.less(b, s.kind):
			return -1
		case b.less(a, s.kind):
			return 1
		}
		return strings.Compare(a.x.id, b.x.id)
	})
	return out
}

// constant writes a value as the gold query compares with it.
func (s *attrSet) constant(a attr) string {
	if s.kind == attrDate {
		return `"` + strings.TrimSuffix(a.key, "T00:00:00") + `"^^xsd:dateTime`
	}
	return `"` + a.lex + `"^^<` + s.dt + `>`
}

// comparative: the values of (T, r1) whose r2 is beyond a constant, in
// CWQ's form; the constant is one of the values, so the answers are a
// strict part of the set.
func (m *maker) comparative(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	s, ok, err := m.attributes(ctx, t)
	if err != nil || !ok {
		return Question{}, false, err
	}
	less := m.rng.IntN(2) == 0
	// An entity passes "< v" when its least value is below v, "> v" when
	// its greatest is above.
	side := s.max
	if less {
		side = s.min
	}
	vals := s.sorted(side)
	k := 1 + m.rng.IntN(len(vals)-1)
	if !less {
		k = m.rng.IntN(len(vals) - 1)
	}
	pivot := vals[k]
	op, word := ">", map[attrKind]string{attrDate: "after", attrNumber: "more than"}[s.kind]
	if less {
		op, word = "<", map[attrKind]string{attrDate: "before", attrNumber: "less than"}[s.kind]
	}
	num := "?num"
	if s.kind == attrDate {
		num = "xsd:datetime(?num)"
	}
	query := cwqQuery(t.ID, []string{
		"ns:" + t.ID + " ns:" + s.r1 + " ?x .",
		"?x ns:" + s.r2 + " ?num .",
		"FILTER (" + num + " " + op + " " + s.constant(pivot) + ") .",
	}, "")
	want := 0
	for _, a := range vals {
		if (less && a.less(pivot, s.kind)) || (!less && pivot.less(a, s.kind)) {
			want++
		}
	}
	got, err := m.r.answers(ctx, query)
	if err != nil || want == 0 || len(got) != want {
		// A store that compares otherwise than the values say is no
		// ground for a gold answer.
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	of := m.setPhrase(t.Name, s.r1)
	text := m.texts(
		"Which of "+of+" has a "+words(s.r2)+" "+word+" "+pivot.lex+"?",
		"Among "+of+", which has a "+words(s.r2)+" "+word+" "+pivot.lex+"?",
	)
	return Question{Text: text, SPARQL: query, Topics: topics(t), Answers: ans, Function: op,
		Relations: []string{s.r1, s.r2}}, true, nil
}

// superlative: the value of (T, r1) with the greatest or least r2, in
// CWQ's form; kept only when that value is held by one entity alone.
func (m *maker) superlative(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	s, ok, err := m.attributes(ctx, t)
	if err != nil || !ok {
		return Question{}, false, err
	}
	most := m.rng.IntN(2) == 0
	var top, next attr
	if most {
		vals := s.sorted(s.max)
		top, next = vals[len(vals)-1], vals[len(vals)-2]
	} else {
		vals := s.sorted(s.min)
		top, next = vals[0], vals[1]
	}
	if !top.less(next, s.kind) && !next.less(top, s.kind) {
		return Question{}, false, nil
	}
	cast := "xsd:datetime"
	if s.kind == attrNumber {
		cast = "xsd:float"
		if t := strings.TrimPrefix(s.dt, dataset.XSD); t == "int" || t == "integer" || t == "long" {
			cast = "xsd:integer"
		}
	}
	order := "ORDER BY " + cast + "(?num)\nLIMIT 1\n"
	if most {
		order = "ORDER BY DESC(" + cast + "(?num))\nLIMIT 1\n"
	}
	query := cwqQuery(t.ID, []string{
		"ns:" + t.ID + " ns:" + s.r1 + " ?x .",
		"?x ns:" + s.r2 + " ?num .",
	}, order)
	got, err := m.r.answers(ctx, query)
	if err != nil || len(got) != 1 || got[0].ID != top.x.id {
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	word := map[bool]map[attrKind]string{
		true:  {attrDate: "latest", attrNumber: "largest"},
		false: {attrDate: "earliest", attrNumber: "smallest"},
	}[most][s.kind]
	of := m.setPhrase(t.Name, s.r1)
	text := m.texts(
		"Which of "+of+" has the "+word+" "+words(s.r2)+"?",
		"Among "+of+", which one has the "+word+" "+words(s.r2)+"?",
	)
	fn := "argmin"
	if most {
		fn = "argmax"
	}
	return Question{Text: text, SPARQL: query, Topics: topics(t), Answers: ans, Function: fn,
		Relations: []string{s.r1, s.r2}}, true, nil
}
