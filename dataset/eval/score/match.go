package score

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/parog/parog-go/internal/naming"
)

// Matching rules (what counts as "the prediction names a gold answer").
//
//  1. ID. A predicted entity whose id, after NormalizeMID, equals a gold
//     answer's id is a match. IDs are compared exactly otherwise (Wikidata
//     "Q42" is not "q42").
//  2. Name. The predicted name and the gold name (or any of its aliases,
//     from the file or an alias file) are normalised by naming.Canonical and
//     compared for equality. There is no substring or containment test:
//     containment is what made an empty prediction a hit in earlier
//     evaluation scripts ("" is in every string), and it also makes "Paris"
//     a hit for "Paris Hilton".
//  3. Numbers. When both sides parse as numbers ("1,000", "1000", "1e3",
//     "1000.0") they match when numerically equal (relative tolerance 1e-9).
//     A number never matches a non-number.
//  4. Dates. When both sides parse as dates (ISO "1990-07-04", "1990-07",
//     "1990", "1990-07-04T00:00:00Z", "July 4, 1990", "4 July 1990",
//     "Jul 1990") they match when they agree on every component both state:
//     "1990" matches "1990-07-04" (Freebase stores many dates at year
//     precision, and a year is the answer to "what year"), "1990-07" matches
//     "1990-07-04", but "1990-07-04" does not match "1990-07-05". A bare
//     four-digit number is both a number and a year; either rule may match.
//  5. Non-answers. An empty prediction, one that normalises to nothing, and
//     the texts a model writes instead of an answer (yes, no, true, false,
//     sufficient, insufficient, unknown, none, null, n/a, "i don't know")
//     never match anything, even a gold answer that normalises the same way.
//     None of the benchmarks has a yes/no question; these strings appear
//     when a sufficiency reply is mistaken for the answer.

// nonAnswers are normalised texts that are never an answer (rule 5).
var nonAnswers = map[string]bool{
	"": true, "yes": true, "no": true, "true": true, "false": true,
	"sufficient": true, "insufficient": true, "unknown": true, "none": true,
	"null": true, "nil": true, "n a": true, "na": true, "i dont know": true,
	"not sufficient": true, "no answer": true,
}

// IsNonAnswer reports whether a predicted text is empty or one of the
// texts of rule 5 that are never counted as an answer.
func IsNonAnswer(s string) bool { return nonAnswers[naming.Canonical(s)] }

// NamesMatch reports whether a predicted name matches a gold name under
// rules 2 to 5.
func NamesMatch(pred, gold string) bool {
	np := naming.Canonical(pred)
	if nonAnswers[np] {
		return false
	}
	if np == naming.Canonical(gold) {
		return true
	}
	if a, ok := parseNumber(pred); ok {
		if b, ok := parseNumber(gold); ok && numbersEqual(a, b) {
			return true
		}
	}
	if a, ok := parseDate(pred); ok {
		if b, ok := parseDate(gold); ok && a.agrees(b) {
			return true
		}
	}
	return false
}

func numbersEqual(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// parseNumber reads a plain number: optional sign, digits with optional
// thousands commas, optional fraction and exponent. Text around it (units,
// words) makes it not a number.
func parseNumber(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false
	}
	if strings.Contains(t, ",") {
		// Thousands separators only: "1,000,000", not "1,5".
		intPart, _, _ := strings.Cut(t, ".")
		groups := strings.Split(strings.TrimLeft(intPart, "+-"), ",")
		for i, g := range groups {
			if (i == 0 && (len(g) == 0 || len(g) > 3)) || (i > 0 && len(g) != 3) {
				return 0, false
			}
		}
		t = strings.ReplaceAll(t, ",", "")
	}
	for _, r := range t {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// date is a calendar date at year, month or day precision (0 = unstated).
type date struct{ year, month, day int }

func (a date) agrees(b date) bool {
	if a.year != b.year {
		return false
	}
	if a.month != 0 && b.month != 0 && a.month != b.month {
		return false
	}
	return a.day == 0 || b.day == 0 || a.day == b.day
}

var dateLayouts = []struct {
	layout     string
	month, day bool
}{
	{"2006-01-02", true, true},
	{"2006-01", true, false},
	{"2006", false, false},
	{"January 2, 2006", true, true},
	{"January 2 2006", true, true},
	{"Jan 2, 2006", true, true},
	{"Jan 2 2006", true, true},
	{"2 January 2006", true, true},
	{"2 Jan 2006", true, true},
	{"January 2006", true, false},
	{"Jan 2006", true, false},
}

// parseDate reads the date forms of rule 4. Times of day and time zones
// after an ISO date ("1990-07-04T00:00:00Z", "1990-07-04 12:00") are
// ignored.
func parseDate(s string) (date, bool) {
	t := strings.TrimSpace(s)
	if len(t) > 10 && t[4] == '-' && (t[10] == 'T' || t[10] == ' ') {
		t = t[:10]
	}
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		return date{}, false
	}
	for _, l := range dateLayouts {
		tm, err := time.Parse(l.layout, t)
		if err != nil {
			continue
		}
		d := date{year: tm.Year()}
		if l.month {
			d.month = int(tm.Month())
		}
		if l.day {
			d.day = tm.Day()
		}
		return d, true
	}
	return date{}, false
}
