package pogrule

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/internal/clip"
)

// The PoG scoring rule reproduces the evaluation script published with
// Plan-on-Graph (PoG, eval/eval.py and eval/utils.py) so that our report
// can quote the figure PoG's authors would compute. It is not a correct
// metric; its defects are reproduced on purpose and listed here:
//
//  1. Substring matching. A prediction is a hit when, after stripping,
//     removing spaces and lower-casing, it equals a gold name, is a
//     substring of one, or contains one ("Paris" is a hit for "Paris
//     Hilton", "1" for "1961 NBA Finals").
//  2. Empty answers are hits. The empty string is a substring of every
//     gold name, so "" (and a reply whose answer is only spaces) counts as
//     correct. So does a gold name that is empty (WebQSP test has 83).
//  3. A row whose answer cannot be found reuses the previous row's answer.
//     When the reply is not valid JSON, lacks "Answer", or "A" is not an
//     object, and neither of the script's two regular expressions finds an
//     answer, the script scores the variable left over from an earlier row
//     (the last item it compared, for a list answer). Scores therefore
//     depend on the order of the file.
//  4. Python's str() of the answer is compared: a list answer becomes
//     "['a', 'b']", so any item or fragment of the list text can match.
//  5. A question answered twice in the file counts once (the last answer,
//     at the position of the first); the denominator is the number of
//     distinct questions.
//  6. Aliases are added by question text (and by gold name), from PoG's
//     alias files, when given.
//
// Where the script would crash (a question with no gold record, an
// unparsable list after "Answer":, no earlier row to reuse) PoGRule
// returns an error and the row counts as a miss.

// PoGGold holds the gold names PoG's script compares against, keyed by
// question text (PoG aligns result rows to gold records by the exact
// question string).
type PoGGold map[string][]string

// ErrNoPoGGold is returned for a question with no gold record.
var ErrNoPoGGold = errors.New("dataset: pog rule: no gold record for the question")

// LoadPoGGold reads the gold names of a benchmark file as PoG's script
// does (utils.align): CWQ the "answer" name; GrailQA each answer's
// "entity_name" when the key is present, else its "answer_argument";
// WebQSP each answer's "EntityName", or its "AnswerArgument" when the name
// is null, over all Parses (or the record's own "Answers" in the
// answer-only shape). The first record of a question text wins. aliases,
// when not nil, adds names keyed by question text or by gold name.
func LoadPoGGold(data []byte, f dataset.Format, aliases *score.Aliases) (PoGGold, error) {
	recs, err := pogGoldRecords(data)
	if err != nil {
		return nil, err
	}
	qkey := "question"
	if f == dataset.WebQSP {
		qkey = "RawQuestion"
	}
	g := PoGGold{}
	for _, rec := range recs {
		var q string
		if json.Unmarshal(rec[qkey], &q) != nil {
			continue
		}
		if _, ok := g[q]; ok {
			continue
		}
		names := pogRecordNames(rec, f)
		g[q] = addPoGAliases(q, names, aliases)
	}
	return g, nil
}

func pogGoldRecords(data []byte) ([]map[string]json.RawMessage, error) {
	var recs []map[string]json.RawMessage
	if err := json.Unmarshal(data, &recs); err == nil {
		return recs, nil
	}
	var env struct {
		Questions []map[string]json.RawMessage `json:"Questions"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("%w: pog rule: want a JSON array of questions or {\"Questions\": [...]}: %v", dataset.ErrBadFile, err)
	}
	return env.Questions, nil
}

func pogRecordNames(rec map[string]json.RawMessage, f dataset.Format) []string {
	var names []string
	switch f {
	case dataset.CWQ:
		var s string
		if json.Unmarshal(rec["answer"], &s) == nil {
			names = append(names, s)
		}
		var list []struct {
			Answer   string `json:"answer"`
			AnswerID string `json:"answer_id"`
		}
		if json.Unmarshal(rec["answers"], &list) == nil {
			for _, a := range list {
				names = append(names, cmpOr(a.Answer, a.AnswerID))
			}
		}
	case dataset.WebQSP:
		var parses []struct {
			Answers []struct {
				AnswerArgument string  `json:"AnswerArgument"`
				EntityName     *string `json:"EntityName"`
			} `json:"Answers"`
		}
		if json.Unmarshal(rec["Parses"], &parses) != nil || len(parses) == 0 {
			_ = json.Unmarshal([]byte("[{\"Answers\":"+string(cmpOr(rec["Answers"], json.RawMessage("[]")))+"}]"), &parses)
		}
		for _, p := range parses {
			for _, a := range p.Answers {
				if a.EntityName == nil {
					names = append(names, a.AnswerArgument)
				} else {
					names = append(names, *a.EntityName)
				}
			}
		}
	default:
		var answers []map[string]json.RawMessage
		_ = json.Unmarshal(rec["answer"], &answers)
		for _, a := range answers {
			var s string
			if n, ok := a["entity_name"]; ok && json.Unmarshal(n, &s) == nil {
				names = append(names, s)
				continue
			}
			_ = json.Unmarshal(a["answer_argument"], &s)
			names = append(names, s)
		}
	}
	return names
}

func cmpOr[T ~string | ~[]byte](a, b T) T {
	if len(a) > 0 {
		return a
	}
	return b
}

// addPoGAliases adds the names keyed by the question text, then those keyed
// by each name, as PoG's script does with its alias files.
func addPoGAliases(q string, names []string, a *score.Aliases) []string {
	if a == nil {
		return names
	}
	names = append(append([]string(nil), a.ForKey(q)...), names...)
	for _, n := range names {
		names = append(names, a.ForKey(n)...)
	}
	return names
}

// PoGRule scores PoG result rows in file order with PoG's script (see the
// list of its defects above). It keeps the previous row's answer, so one
// PoGRule scores one file, row by row, in order.
type PoGRule struct {
	// Gold are the gold names by question text.
	Gold PoGGold
	prev any
	has  bool
}

var (
	rePoGAnswerString = regexp.MustCompile(`"Answer":\s*["']([^"']+)["']`)
	rePoGAnswerList   = regexp.MustCompile(`"Answer":\s*(\[[^\]]+\])`)
)

// ScoreResults scores a row of PoG's result file: its question text and
// its "results" text.
func (r *PoGRule) ScoreResults(question, results string) (bool, error) {
	gold, ok := r.Gold[question]
	if !ok {
		return false, ErrNoPoGGold
	}
	start := strings.IndexByte(results, '{')
	if start < 0 {
		r.prev, r.has = results, true
		return PoGExactMatch(results, gold), nil
	}
	sub := results[start:]
	if v, ok := pogScriptAnswer(sub); ok {
		r.prev, r.has = v, true
		return PoGExactMatch(pyStr(v), gold), nil
	}
	if m := rePoGAnswerString.FindAllStringSubmatch(sub, -1); len(m) > 0 {
		r.prev, r.has = m[len(m)-1][1], true
		return PoGExactMatch(m[len(m)-1][1], gold), nil
	}
	if m := rePoGAnswerList.FindStringSubmatch(sub); m != nil {
		var items []any
		if err := pyJSON(m[1], &items); err != nil {
			return false, fmt.Errorf("dataset: pog rule: answer list %q: %w", clip.Text(m[1], 60), err)
		}
		for _, it := range items {
			r.prev, r.has = it, true
			if PoGExactMatch(pyStr(it), gold) {
				return true, nil
			}
		}
		return false, nil
	}
	if !r.has {
		return false, errors.New("dataset: pog rule: no answer found and no earlier row to reuse")
	}
	return PoGExactMatch(pyStr(r.prev), gold), nil
}

// ScorePrediction scores one of our predictions (the top answer's name)
// under PoG's matching (defects 1, 2 and 6; the others concern PoG's
// reply text).
func (r *PoGRule) ScorePrediction(question, prediction string) (bool, error) {
	gold, ok := r.Gold[question]
	if !ok {
		return false, ErrNoPoGGold
	}
	return PoGExactMatch(prediction, gold), nil
}

// pogScriptAnswer is the script's json.loads(text)['A']['Answer'] (or
// ['Answer'] without "A"): the whole text must be one JSON value.
func pogScriptAnswer(s string) (any, bool) {
	var obj map[string]any
	if pyJSON(s, &obj) != nil {
		return nil, false
	}
	if a, ok := obj["A"]; ok {
		inner, ok := a.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok := inner["Answer"]
		return v, ok
	}
	v, ok := obj["Answer"]
	return v, ok
}

// pyJSON decodes one JSON value filling the whole of s, like Python's
// json.loads (numbers kept as written).
func pyJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if strings.Trim(s[dec.InputOffset():], " \t\n\r") != "" {
		return errors.New("extra data")
	}
	return nil
}

// PoGExactMatch is PoG's exact_match: both sides stripped, spaces removed
// and lower-cased, then equal or either a substring of the other.
func PoGExactMatch(response string, answers []string) bool {
	clean := pyClean(response)
	for _, a := range answers {
		ca := pyClean(a)
		if clean == ca || strings.Contains(ca, clean) || strings.Contains(clean, ca) {
			return true
		}
	}
	return false
}

// pyClean is Python's s.strip().replace(" ", "").lower().
func pyClean(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
	return strings.ToLower(strings.ReplaceAll(s, " ", ""))
}
