package engine

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
)

// lintPlan checks a valid plan against the question it plans, for the
// errors a planner makes while its reply stays a valid plan: a step that
// uses "#k" without needing subgoal k (a dependency left out, or the
// hops put the wrong way round), a comparison or superlative whose
// direction contradicts the question's words, a number or date of the
// question that no subgoal carries (a constraint dropped), and a find
// that bundles two steps with "then". It reads only the question's text
// and the plan, so it costs no call; a plan it rejects is sent back to
// the planner once with the reason (see Engine.Plan).
func lintPlan(question string, p *kgqa.Plan) error {
	var errs []string
	dir := readDirection(question)
	for _, s := range p.Subgoals {
		anc := p.Ancestors(s.ID)
		for _, m := range refPattern.FindAllStringSubmatch(s.Text, -1) {
			if id := "s" + m[1]; id != s.ID && !anc[id] {
				errs = append(errs, fmt.Sprintf("subgoal %s uses #%s but does not need %s (list it in needs, and order the hops as the question does)", s.ID, m[1], id))
			}
		}
		if s.Op == kgqa.OpFind && thenStep.MatchString(s.Text) {
			errs = append(errs, fmt.Sprintf("subgoal %s bundles two steps (%q): give each step a subgoal of its own", s.ID, s.Text))
		}
		if e := dir.lint(s); e != "" {
			errs = append(errs, e)
		}
	}
	if e := valuesLint(question, p); e != "" {
		errs = append(errs, e)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("the plan does not fit the question: %s", strings.Join(errs, "; "))
}

var (
	thenStep = regexp.MustCompile(`(?i)(,|\band)\s+then\b|\b(and|then) find\b`)
	// The question's words for a comparison's direction, and a
	// superlative's order. Words that read both ways ("over", "first")
	// are left out: the check speaks only when the question is plain.
	moreWords = newWordSet([]string{"more", "greater", "larger", "higher", "bigger", "later", "longer", "taller", "heavier"},
		"after", "above", "exceeding", "exceeds")
	lessWords = newWordSet([]string{"less", "fewer", "smaller", "lower", "earlier", "shorter", "lighter"}, "before", "below")
	maxWords  = newWordSet(nil, "largest", "highest", "greatest", "biggest", "latest", "longest", "tallest", "heaviest", "maximum", "most recent")
	minWords  = newWordSet(nil, "smallest", "lowest", "fewest", "earliest", "shortest", "lightest", "minimum")
	// A number or date written in the question: a constraint's value.
	questionValue = regexp.MustCompile(`\b\d+\.\d+\b|\b\d{4}(-\d{2}){0,2}\b`)
)

// direction is which of the direction words a question has, read once
// per plan.
type direction struct{ more, less, hi, lo bool }

func readDirection(question string) direction {
	lower := strings.ToLower(question)
	return direction{
		more: moreWords.in(question, lower), less: lessWords.in(question, lower),
		hi: maxWords.in(question, lower), lo: minWords.in(question, lower),
	}
}

// wordSet matches, in any case, one of its words as a whole word, or one
// of its comparatives followed by " than".
type wordSet struct {
	re    *regexp.Regexp
	words []string // every word a match holds, lower case
}

func newWordSet(than []string, alone ...string) wordSet {
	alts := []string{`\b(` + strings.Join(alone, "|") + `)\b`}
	if len(than) > 0 {
		alts = append([]string{`\b(` + strings.Join(than, "|") + `) than\b`}, alts...)
	}
	return wordSet{re: regexp.MustCompile(`(?i)` + strings.Join(alts, "|")), words: append(slices.Clip(than), alone...)}
}

// in reports whether the question (and lower, its lower case) holds a
// match. An ASCII question without any of the words as a substring has
// none, which a substring scan tells for a fraction of the regexp's cost;
// a question with other letters goes to the regexp, whose case folding
// reaches beyond ASCII.
func (w wordSet) in(question, lower string) bool {
	if isASCII(question) && !slices.ContainsFunc(w.words, func(s string) bool { return strings.Contains(lower, s) }) {
		return false
	}
	return w.re.MatchString(question)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lint is the reason a compare or superlative subgoal s goes the other
// way than the question says, or "".
func (d direction) lint(s kgqa.Subgoal) string {
	switch {
	case s.Op == kgqa.OpCompare && s.Args != nil:
		up := strings.HasPrefix(s.Args.Cmp, ">")
		down := strings.HasPrefix(s.Args.Cmp, "<")
		if (d.more && !d.less && down) || (d.less && !d.more && up) {
			return fmt.Sprintf("subgoal %s compares with %q but the question asks for the other direction", s.ID, s.Args.Cmp)
		}
	case s.Op == kgqa.OpSuperlative && s.Args != nil:
		if (d.hi && !d.lo && s.Args.Order == "min") || (d.lo && !d.hi && s.Args.Order == "max") {
			return fmt.Sprintf("subgoal %s takes the %s but the question asks for the other end", s.ID, s.Args.Order)
		}
	}
	return ""
}

// valuesLint is the reason the plan lost a number or date of the
// question, or "": each must appear in some subgoal's text or arguments
// (a date may be written more fully there, 1959-05 as 1959-05-01).
func valuesLint(question string, p *kgqa.Plan) string {
	var b strings.Builder
	for _, s := range p.Subgoals {
		b.WriteString(s.Text)
		b.WriteByte(' ')
		if s.Args != nil {
			b.WriteString(s.Args.Value)
			b.WriteByte(' ')
		}
	}
	planText := b.String()
	var lost []string
	for _, v := range questionValue.FindAllString(question, -1) {
		if !strings.Contains(planText, v) {
			lost = append(lost, v)
		}
	}
	if len(lost) == 0 {
		return ""
	}
	return fmt.Sprintf("no subgoal carries the question's %s: a constraint of the question is missing", strings.Join(lost, ", "))
}

// unplannedTopics are the names of the topic entities that the question
// names and no subgoal of p does (names compared folded).
func unplannedTopics(question string, p *kgqa.Plan, topics []kgqa.Topic) []string {
	q := naming.Fold(question)
	var texts []string
	for _, s := range p.Subgoals {
		texts = append(texts, naming.Fold(s.Text))
	}
	var out []string
	for _, t := range topics {
		n := naming.Fold(t.Name)
		if n == "" || !strings.Contains(q, n) || slices.Contains(out, t.Name) {
			continue
		}
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, n) }) {
			out = append(out, t.Name)
		}
	}
	return out
}
