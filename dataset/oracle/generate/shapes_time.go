package generate

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// Start and end relations of a mediator's time span, by the last part of
// the relation id, as Freebase names them.
var (
	startNames = []string{"from", "start_date", "start", "date_from", "from_date", "begin_date", "start_time"}
	endNames   = []string{"to", "end_date", "end", "date_to", "to_date", "end_time"}
)

func lastPart(rel string) string { return rel[strings.LastIndexByte(rel, '.')+1:] }

// span is one mediator node's value and time span.
type span struct {
	x            value
	starts, ends []string
}

// valid applies WebQSP's time validity for year y: no start, or a start
// by the end of y; and no end, or an end from the start of y on.
func (s span) valid(y string) bool {
	okStart := len(s.starts) == 0
	for _, v := range s.starts {
		okStart = okStart || v <= y+"-12-31T00:00:00"
	}
	okEnd := len(s.ends) == 0
	for _, v := range s.ends {
		okEnd = okEnd || v >= y+"-01-01T00:00:00"
	}
	return okStart && okEnd
}

// timed: a fact through a mediator of the topic valid in a year, in
// WebQSP's time-validity form; the year is one a span starts in, and the
// answers a strict part of the values over all time.
func (m *maker) timed(ctx context.Context, t kgqa.Entity) (Question, bool, error) {
	rels, err := m.r.relations(ctx, t.ID)
	if err != nil {
		return Question{}, false, err
	}
	r1, start, end, r2s, ok, err := m.timedHop(ctx, t, rels)
	if err != nil || !ok {
		return Question{}, false, err
	}
	r2 := r2s[m.rng.IntN(len(r2s))]
	spans, ok, err := m.spans(ctx, t.ID, r1.rel, r2, start, end)
	if err != nil || !ok {
		return Question{}, false, err
	}
	var years []string
	all := map[string]bool{}
	for _, s := range spans {
		all[s.x.id] = true
		for _, v := range s.starts {
			years = append(years, v[:4])
		}
	}
	if len(years) == 0 {
		return Question{}, false, nil
	}
	lines := []string{
		"ns:" + t.ID + " ns:" + r1.rel + " ?y .",
		"?y ns:" + r2 + " ?x .",
	}
	if w := m.when(end != ""); w != whenIn {
		// Before or after a year on one end of the span, drawn apart
		// from the other draws; when no year splits the values that
		// way, the question asks "in YEAR" as it always has.
		if year, want := m.yearBy(m.sides, years, spans, len(all), w); year != "" {
			q, ok, err := m.timedOneSide(ctx, t, r1.rel, r2, start, end, lines, year, w, want)
			if err != nil || ok {
				return q, ok, err
			}
		}
	}
	year, want := m.year(years, spans, len(all), whenIn)
	if year == "" {
		return Question{}, false, nil
	}
	lines = append(lines,
		"FILTER(NOT EXISTS {?y ns:"+start+" ?sk0} || ",
		"EXISTS {?y ns:"+start+" ?sk1 . ",
		`FILTER(xsd:datetime(?sk1) <= "`+year+`-12-31"^^xsd:dateTime) })`)
	if end != "" {
		lines = append(lines,
			"FILTER(NOT EXISTS {?y ns:"+end+" ?sk2} || ",
			"EXISTS {?y ns:"+end+" ?sk3 . ",
			`FILTER(xsd:datetime(?sk3) >= "`+year+`-01-01"^^xsd:dateTime) })`)
	}
	query := cwqQuery(t.ID, lines, "")
	got, err := m.r.answers(ctx, query)
	if err != nil || len(got) != len(want) {
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	when := "in " + year
	if end == "" {
		when = "by " + year
	}
	text := m.texts(
		"What was the "+words(r2)+" in the "+words(r1.rel)+" of "+t.Name+" "+when+"?",
		capitalise(when)+", what was the "+words(r2)+" in the "+words(r1.rel)+" of "+t.Name+"?",
	)
	if prepositional(r2) {
		text = m.texts("What were the " + words(r1.rel) + " of " + t.Name + " " + words(r2) + " " + when + "?")
	}
	relsUsed := []string{r1.rel, r2, start}
	if end != "" {
		relsUsed = append(relsUsed, end)
	}
	return Question{Text: text, SPARQL: query, Topics: topics(t), Answers: ans, Function: "none",
		Relations: relsUsed}, true, nil
}

// spans reads the mediators of (T, r1) with their r2 values and time
// spans; ok is false when a date is in a form a store would cast
// otherwise.
func (m *maker) spans(ctx context.Context, t, r1, r2, start, end string) ([]span, bool, error) {
	q := prefix + "SELECT ?y ?x ?s ?e WHERE { ns:" + t + " ns:" + r1 + " ?y . ?y ns:" + r2 + " ?x . OPTIONAL { ?y ns:" + start + " ?s . }"
	if end != "" {
		q += " OPTIONAL { ?y ns:" + end + " ?e . }"
	}
	rows, err := m.r.rows(ctx, q+" }")
	if err != nil {
		return nil, false, err
	}
	byMed := map[string]*span{}
	var order []string
	for _, row := range rows {
		key := row["y"].ID + " " + row["x"].ID
		s := byMed[key]
		if s == nil {
			s = &span{x: value{id: row["x"].ID}}
			byMed[key] = s
			order = append(order, key)
		}
		for v, list := range map[string]*[]string{"s": &s.starts, "e": &s.ends} {
			lit, ok := row[v]
			if !ok {
				continue
			}
			at, ok := instant(lit.Name)
			if !ok {
				return nil, false, nil
			}
			if !slices.Contains(*list, at) {
				*list = append(*list, at)
			}
		}
	}
	slices.Sort(order)
	out := make([]span, 0, len(order))
	for _, k := range order {
		out = append(out, *byMed[k])
	}
	return out, true, nil
}

// timedHop finds a relation of the topic whose values are mediators with
// a time span, trying a few, and returns it with the start
// and end relations of one of its mediators and the relations from
// that mediator to named entities.
func (m *maker) timedHop(ctx context.Context, t kgqa.Entity, rels []relCount) (r1 relCount, start, end string, r2s []string, ok bool, err error) {
	tried := 0
	for _, i := range m.rng.Perm(len(rels)) {
		if rels[i].n < 2 || rels[i].n > 40 || tried >= 12 {
			continue
		}
		tried++
		vals, err := m.r.values(ctx, t.ID, rels[i].rel)
		if err != nil {
			return r1, "", "", nil, false, err
		}
		if len(vals) == 0 || !vals[0].mediator() {
			continue
		}
		y := vals[m.rng.IntN(len(vals))]
		if !y.mediator() {
			continue
		}
		yrels, err := m.r.relations(ctx, y.id)
		if err != nil {
			return r1, "", "", nil, false, err
		}
		start, end = "", ""
		for _, rc := range yrels {
			switch p := lastPart(rc.rel); {
			case slices.Contains(startNames, p) && start == "":
				start = rc.rel
			case slices.Contains(endNames, p) && end == "":
				end = rc.rel
			}
		}
		if start == "" {
			continue
		}
		r2s = nil
		for _, rc := range yrels {
			if rc.rel == start || rc.rel == end {
				continue
			}
			yv, err := m.r.values(ctx, y.id, rc.rel)
			if err != nil {
				return r1, "", "", nil, false, err
			}
			if n := namedValues(yv, t.ID); len(n) > 0 && len(n) == len(yv) {
				r2s = append(r2s, rc.rel)
			}
		}
		if len(r2s) > 0 {
			return rels[i], start, end, r2s, true, nil
		}
	}
	return r1, "", "", nil, false, nil
}

// year draws, in a random order, the first of the start years that some
// spans and not all (of the total values) are valid in, with the values
// valid then; "" when none is.
func (m *maker) year(years []string, spans []span, total int, when timeWhen) (string, map[string]bool) {
	return m.yearBy(m.rng, years, spans, total, when)
}

// yearBy is year with the draws of rng.
func (m *maker) yearBy(rng *rand.Rand, years []string, spans []span, total int, when timeWhen) (string, map[string]bool) {
	years = slices.Compact(slices.Sorted(slices.Values(years)))
	for _, i := range rng.Perm(len(years)) {
		w := map[string]bool{}
		for _, s := range spans {
			if s.holds(when, years[i]) {
				w[s.x.id] = true
			}
		}
		if len(w) > 0 && len(w) < total {
			return years[i], w
		}
	}
	return "", nil
}
