package dataset

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Matching rules (what counts as "the prediction names a gold answer").
//
//  1. ID. A predicted entity whose id, after NormalizeMID, equals a gold
//     answer's id is a match. IDs are compared exactly otherwise (Wikidata
//     "Q42" is not "q42").
//  2. Name. The predicted name and the gold name (or any of its aliases,
//     from the file or an alias file) are normalised by NormalizeName and
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

// NormalizeName is the name normalisation of rule 2: Unicode compatibility
// decomposition with combining marks removed ("Zürich" -> "zurich", "ﬁ" ->
// "fi"), dotted initialisms written as one word, lower case, every
// character that is not a letter or digit turned into a space, a leading
// English article (a, an, the) dropped, and runs of spaces collapsed.
//
// Articles go only as the first of two or more words: "The Beatles!" and
// "beatles" normalise alike, "A Tale of Two Cities" is "tale of two
// cities", but "Alexander the Great" keeps its "the", "The" alone stays
// "the", and "Theater" is one word. A dotted initialism is two or more
// single letters each joined to the next by a period, standing alone as a
// word: "U.S.A." -> "usa", "Washington, D.C." -> "washington dc",
// "J.R.R. Tolkien" -> "jrr tolkien". So "U.S.A." matches "USA" (but not
// "U.S.", which is "us"); spaced initials ("J. R. R.") stay separate
// letters.
func NormalizeName(s string) string {
	s = joinInitialisms(foldMarks(s))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '\u2019':
			// "Don't" -> "dont": an apostrophe joins, it does not split.
		default:
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	if len(words) > 1 && (words[0] == "a" || words[0] == "an" || words[0] == "the") {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// joinInitialisms removes the periods of dotted initialisms ("U.S.A." ->
// "USA", "D.C." -> "DC"): runs of two or more single letters joined by
// periods, with no letter or digit right before or after the run.
func joinInitialisms(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	rs := []rune(s)
	alnum := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	single := func(i int) bool { return i < len(rs) && unicode.IsLetter(rs[i]) && !alnum(i-1) && !alnum(i+1) }
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(rs); i++ {
		j := i
		for single(j) && j+2 < len(rs) && rs[j+1] == '.' && single(j+2) {
			j += 2
		}
		if j == i {
			b.WriteRune(rs[i])
			continue
		}
		for k := i; k <= j; k += 2 {
			b.WriteRune(rs[k])
		}
		i = j
	}
	return b.String()
}

// foldMarks applies NFKD and drops nonspacing marks.
func foldMarks(s string) string {
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		return s
	}
	return out
}

// nonAnswers are normalised texts that are never an answer (rule 5).
var nonAnswers = map[string]bool{
	"": true, "yes": true, "no": true, "true": true, "false": true,
	"sufficient": true, "insufficient": true, "unknown": true, "none": true,
	"null": true, "nil": true, "n a": true, "na": true, "i dont know": true,
	"not sufficient": true, "no answer": true,
}

// IsNonAnswer reports whether a predicted text is empty or one of the
// texts of rule 5 that are never counted as an answer.
func IsNonAnswer(s string) bool { return nonAnswers[NormalizeName(s)] }

// NamesMatch reports whether a predicted name matches a gold name under
// rules 2 to 5.
func NamesMatch(pred, gold string) bool {
	np := NormalizeName(pred)
	if nonAnswers[np] {
		return false
	}
	if np == NormalizeName(gold) {
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
