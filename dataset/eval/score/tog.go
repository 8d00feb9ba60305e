package score

import (
	"strings"

	"github.com/parog/parog-go/dataset"
)

// ToGRuleFormats are the benchmarks Think-on-Graph's own evaluation script
// (eval/eval.py and eval/utils.py of its public code) scores, among the
// formats this module loads from ToG's files.
var ToGRuleFormats = map[dataset.Format]bool{dataset.WebQuestions: true, dataset.SimpleQuestions: true, dataset.QALD: true}

// ToGHit reproduces Think-on-Graph's exact_match: the response and each
// gold name lose their spaces and case, and the response hits when it
// equals a gold name or either contains the other. The gold names are
// ToG's align(): WebQuestions' answers, SimpleQuestions' one answer,
// QALD-10's answer labels. Like PoG's rule it is lenient (substrings
// either way: "the" names "Netherlands"); it is reported beside the strict
// rule, never instead of it. An empty response is a miss here, as the
// empty string is a substring of every name and ToG's script only reaches
// the comparison with a non-empty extracted answer.
func ToGHit(q dataset.Question, response string) bool {
	clean := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(response), " ", ""))
	if clean == "" {
		return false
	}
	for _, a := range q.Answers {
		gold := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(a.Name), " ", ""))
		if gold == "" {
			continue
		}
		if clean == gold || strings.Contains(gold, clean) || strings.Contains(clean, gold) {
			return true
		}
	}
	return false
}
