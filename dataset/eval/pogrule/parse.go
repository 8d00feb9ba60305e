package pogrule

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/parog/parog-go/dataset/eval/score"
)

// PoGAnswer is the answer read from the "results" field of a PoG result
// line. PoG writes there the model's final reply: a JSON object
// {"A": {"Sufficient": "Yes", "Answer": ...}, "R": "reasoning"}, sometimes
// with prose before or after it, sometimes with "Known" for "Sufficient",
// sometimes broken JSON, and sometimes plain text.
type PoGAnswer struct {
	// Answers are the answer items in order: the "Answer" string, or the
	// items of an "Answer" list; numbers are written as in the reply.
	Answers []string
	// Sufficient is the "Sufficient" (or "Known") verdict, when given.
	Sufficient string
	// Parsed is how the answer was found: "json" (a JSON object),
	// "pattern" (an "Answer": value in text that is not JSON), "braces"
	// (items written "{Germany}"), "text" (no braces: the text itself) or
	// "none".
	Parsed string
}

// ParsePoGAnswer reads PoG's "results" text. It decodes the first JSON
// object, at any '{' in the text, that has an "A" object or an "Answer"
// field, ignoring text around it; failing that it takes the last
// "Answer": [...] or "Answer": "..." it finds, then the items in braces
// ("{Germany}"); a text without braces is the answer itself.
func ParsePoGAnswer(text string) PoGAnswer {
	if !strings.Contains(text, "{") {
		if strings.TrimSpace(text) == "" {
			return PoGAnswer{Parsed: "none"}
		}
		return PoGAnswer{Answers: []string{strings.TrimSpace(text)}, Parsed: "text"}
	}
	for i := strings.IndexByte(text, '{'); i >= 0; {
		if a, ok := pogObjectAt(text[i:]); ok {
			return a
		}
		j := strings.IndexByte(text[i+1:], '{')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if m := reAnswerList.FindAllStringSubmatch(text, -1); len(m) > 0 {
		var raw []json.RawMessage
		if json.Unmarshal([]byte(m[len(m)-1][1]), &raw) == nil {
			return PoGAnswer{Answers: jsonItems(raw), Parsed: "pattern"}
		}
	}
	if m := reAnswerString.FindAllStringSubmatch(text, -1); len(m) > 0 {
		return PoGAnswer{Answers: []string{strings.TrimSpace(m[len(m)-1][1])}, Parsed: "pattern"}
	}
	if items := score.AnswerItems(text); len(items) > 0 && items[0] != strings.TrimSpace(text) {
		// ToG's style: "{Yes}. The answer is {Germany}."
		return PoGAnswer{Answers: items, Parsed: "braces"}
	}
	return PoGAnswer{Parsed: "none"}
}

var (
	reAnswerString = regexp.MustCompile(`"Answer"\s*:\s*["']([^"']*)["']`)
	reAnswerList   = regexp.MustCompile(`"Answer"\s*:\s*(\[[^\]]*\])`)
)

// pogObjectAt decodes one JSON object at the start of s (text may follow)
// and reads its answer.
func pogObjectAt(s string) (PoGAnswer, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]json.RawMessage
	if dec.Decode(&obj) != nil {
		return PoGAnswer{}, false
	}
	inner := obj
	if a, ok := obj["A"]; ok {
		if json.Unmarshal(a, &inner) != nil {
			return PoGAnswer{}, false
		}
	}
	ans, ok := inner["Answer"]
	if !ok {
		return PoGAnswer{}, false
	}
	out := PoGAnswer{Parsed: "json"}
	for _, k := range []string{"Sufficient", "Known"} {
		var v string
		if json.Unmarshal(inner[k], &v) == nil && v != "" {
			out.Sufficient = v
			break
		}
	}
	ans = bytes.TrimSpace(ans)
	if len(ans) > 0 && ans[0] == '[' {
		var raw []json.RawMessage
		if json.Unmarshal(ans, &raw) == nil {
			out.Answers = jsonItems(raw)
		}
		return out, true
	}
	out.Answers = jsonItems([]json.RawMessage{ans})
	return out, true
}

// jsonItems turns JSON scalars into answer texts: strings unquoted,
// numbers and booleans as written; null and empty strings are dropped.
func jsonItems(raw []json.RawMessage) []string {
	var out []string
	for _, r := range raw {
		r = bytes.TrimSpace(r)
		var s string
		switch {
		case len(r) == 0 || string(r) == "null":
			continue
		case r[0] == '"':
			if json.Unmarshal(r, &s) != nil {
				continue
			}
		default:
			s = string(r)
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
