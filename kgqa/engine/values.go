package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/parog/parog-go/kgqa"
)

const xsd = "http://www.w3.org/2001/XMLSchema#"

// value is a typed literal parsed for exact comparison: a number or an
// instant. Dates of different precision compare by their start.
type value struct {
	num    float64
	at     time.Time
	isTime bool
}

func (v value) String() string {
	if v.isTime {
		return v.at.Format("2006-01-02")
	}
	return strconv.FormatFloat(v.num, 'g', -1, 64)
}

// cmp returns -1, 0 or 1; ok is false when the kinds differ.
func (v value) cmp(w value) (int, bool) {
	if v.isTime != w.isTime {
		return 0, false
	}
	if v.isTime {
		return v.at.Compare(w.at), true
	}
	switch {
	case v.num < w.num:
		return -1, true
	case v.num > w.num:
		return 1, true
	}
	return 0, true
}

var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02Z07:00", "2006-01-02", "2006-01", "2006"}

// parseValue reads a literal by its datatype, or, for plain strings and
// unknown types, as a number or an ISO date.
func parseValue(t kgqa.Term) (value, bool) {
	if t.IsEntity() {
		return value{}, false
	}
	s := strings.TrimSpace(t.Name)
	switch strings.TrimPrefix(t.Datatype, xsd) {
	case "integer", "int", "long", "short", "decimal", "double", "float",
		"nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong":
		f, err := strconv.ParseFloat(s, 64)
		return value{num: f}, err == nil
	case "date", "dateTime", "gYear", "gYearMonth":
		return parseDate(s)
	}
	return parseText(s)
}

// parseText reads a constant from a plan ("1990", "2000-01-01", "3.5").
func parseText(s string) (value, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, ",", ""))
	if len(s) == 4 { // a bare year is a date in a KG question
		if v, ok := parseDate(s); ok {
			return v, true
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return value{num: f}, true
	}
	return parseDate(s)
}

func parseDate(s string) (value, bool) {
	s = wikidataTime(s)
	neg := strings.HasPrefix(s, "-")
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, strings.TrimPrefix(s, "-")); err == nil {
			if neg {
				t = t.AddDate(-2*t.Year(), 0, 0)
			}
			return value{at: t, isTime: true}, true
		}
	}
	return value{}, false
}

// sameMember reports whether two terms name the same thing: the same id,
// or the same normalised name when either has no id.
func sameMember(a, b kgqa.Term) bool {
	if a.ID != "" && b.ID != "" {
		return a.ID == b.ID
	}
	return normName(a) != "" && normName(a) == normName(b)
}

// wikidataTime rewrites a time in Wikidata's own form, as a graph converted
// from its JSON dump keeps it ("+2019-00-00T00:00:00Z": a sign, and zero
// month and day below day precision), to ISO 8601: no "+", and the first
// month or day of the period.
func wikidataTime(s string) string {
	s = strings.TrimPrefix(s, "+")
	body := strings.TrimPrefix(s, "-")
	i := strings.IndexByte(body, '-')
	if i < 4 || len(body) < i+6 || body[i+3] != '-' {
		return s
	}
	month, day := body[i+1:i+3], body[i+4:min(i+6, len(body))]
	if month == "00" {
		month, day = "01", "01"
	} else if day == "00" {
		day = "01"
	}
	return s[:len(s)-len(body)] + body[:i+1] + month + "-" + day + body[min(i+6, len(body)):]
}
