package generate

import (
	"context"

	"github.com/parog/parog-go/kgqa"
)

// timeWhen is the condition a time question states on its mediator's
// span: valid in a year, or begun or ended before or after it. Each is
// written as WebQSP writes time validity, with an open end: a mediator
// with no such date passes.
type timeWhen int

const (
	whenIn timeWhen = iota
	whenStartedBefore
	whenStartedAfter
	whenEndedBefore
	whenEndedAfter
)

// when draws the condition of a time question: "in YEAR" half the time,
// else before or after YEAR on the span's start, or on its end when the
// mediator has one.
func (m *maker) when(hasEnd bool) timeWhen {
	if m.sides.IntN(2) == 0 {
		return whenIn
	}
	if hasEnd {
		return timeWhen(1 + m.sides.IntN(4))
	}
	return timeWhen(1 + m.sides.IntN(2))
}

// holds applies condition w for year y to the span, open ends passing.
func (s span) holds(w timeWhen, y string) bool {
	if w == whenIn {
		return s.valid(y)
	}
	dates, cmp, bound := s.starts, "<", y+"-01-01T00:00:00"
	switch w {
	case whenStartedAfter:
		cmp, bound = ">", y+"-12-31T00:00:00"
	case whenEndedBefore:
		dates = s.ends
	case whenEndedAfter:
		dates, cmp, bound = s.ends, ">", y+"-12-31T00:00:00"
	}
	if len(dates) == 0 {
		return true
	}
	for _, d := range dates {
		at, ok := instant(d)
		if !ok {
			at = d // already read as an instant
		}
		if cmp == "<" && at < bound || cmp == ">" && at > bound {
			return true
		}
	}
	return false
}

// condition returns the relation, operator, date and words of w in year y.
func (w timeWhen) condition(start, end, y string) (rel, cmp, date, words string) {
	switch w {
	case whenStartedBefore:
		return start, "<", y + "-01-01", "that began before " + y
	case whenStartedAfter:
		return start, ">", y + "-12-31", "that began after " + y
	case whenEndedBefore:
		return end, "<", y + "-01-01", "that ended before " + y
	}
	return end, ">", y + "-12-31", "that ended after " + y
}

// timedOneSide finishes a time question whose condition is on one end of
// the span: its gold query, checked against want on the KG, and its text.
func (m *maker) timedOneSide(ctx context.Context, t kgqa.Entity, r1, r2, start, end string, lines []string, year string, w timeWhen, want map[string]bool) (Question, bool, error) {
	rel, cmp, date, phrase := w.condition(start, end, year)
	lines = append(lines,
		"FILTER(NOT EXISTS {?y ns:"+rel+" ?sk0} || ",
		"EXISTS {?y ns:"+rel+" ?sk1 . ",
		`FILTER(xsd:datetime(?sk1) `+cmp+` "`+date+`"^^xsd:dateTime) })`)
	query := cwqQuery(t.ID, lines, "")
	got, err := m.r.answers(ctx, query)
	if err != nil || len(got) != len(want) {
		return Question{}, false, err
	}
	ans, ok, err := m.entityAnswers(ctx, got)
	if !ok || err != nil {
		return Question{}, false, err
	}
	text := m.texts("What was the " + words(r2) + " in the " + words(r1) + " of " + t.Name + " " + phrase + "?")
	if prepositional(r2) {
		text = m.texts("What were the " + words(r1) + " of " + t.Name + " " + words(r2) + " " + phrase + "?")
	}
	return Question{Text: text, SPARQL: query, Topics: topics(t), Answers: ans, Function: "none",
		Relations: []string{r1, r2, rel}}, true, nil
}
