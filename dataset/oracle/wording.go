package oracle

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/sparql2plan"
)

// The ways the oracle words the subgoals of the plans it writes.
const (
	// WordingGold writes the gold plan's template texts, which read the
	// gold relations ("Find the place of birth of Barack Obama"): the
	// relation offer meets the relation's own words.
	WordingGold = "gold"
	// WordingQuestion writes each subgoal from the question's own words
	// only: the template text with every word the question does not use
	// left out (entity names, "#k" references and function words kept),
	// or, when no word of substance is left, the question itself. An
	// attribute keeps only the question's words, and a time condition
	// whose attribute the question does not name is dropped. No relation
	// id and no word of a relation's name beyond the question's reaches
	// the engine: the relation offer meets the subgoal as a planner that
	// knows the question, not the schema, would write it.
	WordingQuestion = "question"
)

// Wordings lists the wordings ParseWording reads.
var Wordings = []string{WordingGold, WordingQuestion}

// ParseWording reads gold or question ("" is gold).
func ParseWording(s string) (string, error) {
	switch s {
	case "", WordingGold:
		return WordingGold, nil
	case WordingQuestion:
		return WordingQuestion, nil
	}
	return "", fmt.Errorf("oracle: wording %q: want gold or question", s)
}

// WithWording sets how the plan's subgoals are worded (default gold).
func WithWording(w string) Option { return func(m *Model) { m.wording = w } }

// questionWords are the words of a question, by matching key, as the
// question writes them (folded).
type questionWords map[string]string

// wordKeys are the keys a word matches by: its light stem, and that of
// its singular when it ends in -ies ("countries" meets "country").
func wordKeys(w string) []string {
	keys := []string{naming.Stem(w)}
	if s, ok := strings.CutSuffix(w, "ies"); ok && len(s) > 2 {
		keys = append(keys, naming.Stem(s+"y"))
	}
	return keys
}

func newQuestionWords(text string) questionWords {
	out := questionWords{}
	for _, w := range strings.Fields(naming.Fold(text)) {
		for _, k := range wordKeys(w) {
			if _, ok := out[k]; !ok {
				out[k] = w
			}
		}
	}
	return out
}

// word is the question's form of w, and whether the question uses it.
func (qw questionWords) word(w string) (string, bool) {
	for _, k := range wordKeys(naming.Fold(w)) {
		if s, ok := qw[k]; ok {
			return s, true
		}
	}
	return "", false
}

// planGrammar are the words the template gives an operation (keep,
// count, an order or a comparison), which the plan's op and args say
// already: the plan's grammar, not a relation's name.
var planGrammar = map[string]bool{
	"keep": true, "those": true, "count": true, "members": true, "also": true, "whose": true, "take": true, "everything": true,
	"than": true, "greater": true, "less": true, "least": true, "most": true, "equal": true, "not": true,
	"earliest": true, "latest": true, "largest": true, "smallest": true, "highest": true, "lowest": true, "longest": true, "shortest": true,
}

// wordingRef is a "#k" reference to an earlier subgoal.
var wordingRef = regexp.MustCompile(`^#\d+$`)

// phraser rewrites a plan's texts in one question's words.
type phraser struct {
	question string
	words    questionWords
	// names are the topic entities' names, longest first: kept whole.
	names []string
}

func newPhraser(q dataset.Question) *phraser {
	p := &phraser{question: strings.TrimSpace(q.Text), words: newQuestionWords(q.Text)}
	for _, e := range q.TopicEntities {
		if e.Name != "" {
			p.names = append(p.names, e.Name)
		}
	}
	slices.SortFunc(p.names, func(a, b string) int { return len(b) - len(a) })
	return p
}

// filter keeps, of text, the entity names, "#k" references, function
// words and the words the question uses (in the question's form); it
// reports whether a word of substance (a question word that is not a
// function word) is among them.
func (p *phraser) filter(text string) (string, bool) {
	const mark = "\x00"
	var kept []string
	for i, n := range p.names {
		text = replaceFold(text, n, fmt.Sprintf(" %s%d%s ", mark, i, mark))
	}
	substance := false
	for _, tok := range strings.Fields(text) {
		if strings.HasPrefix(tok, mark) {
			var i int
			if _, err := fmt.Sscanf(strings.Trim(tok, mark), "%d", &i); err == nil && i < len(p.names) {
				kept = append(kept, p.names[i])
			}
			continue
		}
		core := strings.TrimRight(tok, ".,;:?!")
		tail := tok[len(core):]
		switch f := naming.Fold(core); {
		case f == "":
			kept = append(kept, tail)
		case wordingRef.MatchString(core), core[0] >= '0' && core[0] <= '9':
			// A reference, or a value (a year, a number): not a relation.
			kept = append(kept, tok)
		case !strings.Contains(f, " ") && (naming.Stopword(f) || planGrammar[f]):
			kept = append(kept, tok)
		default:
			if w, ok := p.words.word(core); ok && !strings.Contains(f, " ") {
				kept = append(kept, w+tail)
				substance = true
			} else if tail != "" {
				kept = append(kept, tail)
			}
		}
	}
	out := strings.Join(kept, " ")
	for _, punct := range []string{".", "?", ",", ";", ":", "!"} {
		out = strings.ReplaceAll(out, " "+punct, punct)
	}
	return strings.TrimSpace(out), substance
}

// replaceFold replaces every case-insensitive occurrence of old in s.
func replaceFold(s, old, repl string) string {
	if old == "" {
		return s
	}
	lower, lo := strings.ToLower(s), strings.ToLower(old)
	var b strings.Builder
	for {
		i := strings.Index(lower, lo)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s, lower = s[i+len(old):], lower[i+len(lo):]
	}
}

// Reword rewrites the subgoal texts, attributes and time conditions of
// c's plan in q's own words (see WordingQuestion), on a copy. The names of
// the constants a step starts from ("Male") are kept with the topic
// entities': values, not relations.
func Reword(q dataset.Question, c *sparql2plan.Conversion) *kgqa.Plan {
	p := c.Plan
	out := &kgqa.Plan{Version: p.Version, Answer: p.Answer, Subgoals: make([]kgqa.Subgoal, len(p.Subgoals))}
	anchors := map[string][]string{}
	for _, st := range c.Steps {
		anchors[st.ID] = st.Anchors
	}
	for i, s := range p.Subgoals {
		ph := newPhraser(q)
		for _, a := range anchors[s.ID] {
			if n := sparql2plan.ConstantName(a); n != "" {
				ph.names = append(ph.names, n)
			}
		}
		s.Needs = slices.Clone(s.Needs)
		text, substance := ph.filter(s.Text)
		if s.Op == kgqa.OpFind && !substance {
			text = ph.restated(q, s, anchors[s.ID])
		}
		s.Text = text
		if s.Args != nil {
			a := ph.args(*s.Args)
			s.Args = &a
		}
		out.Subgoals[i] = s
	}
	return out
}

// restated is a find's text when the template leaves no word of the
// question: the question itself, from the subgoal's own anchors (named
// as the topic entities are, so that the engine anchors the subgoal
// there) or references, with the other topic entities' names left out
// (the engine starts a subgoal from the topic entities its text names).
func (p *phraser) restated(q dataset.Question, s kgqa.Subgoal, anchors []string) string {
	text := p.question
	var own []string
	for _, e := range q.TopicEntities {
		switch {
		case e.Name == "":
		case slices.Contains(anchors, e.ID):
			own = append(own, e.Name)
		default:
			text = replaceFold(text, e.Name, " ")
		}
	}
	text = strings.TrimRight(strings.Join(strings.Fields(text), " "), "?.! ")
	lead := "Find"
	if len(own) > 0 {
		lead += ", from " + strings.Join(own, " and ")
	}
	if len(s.Needs) > 0 {
		refs := make([]string, len(s.Needs))
		for i, n := range s.Needs {
			refs[i] = "#" + strings.TrimPrefix(n, "s")
		}
		lead += ", for " + strings.Join(refs, " and ")
	}
	return lead + ": " + text + "?"
}

// args rewrites an attribute in the question's words and drops the time
// conditions whose attribute the question does not name.
func (p *phraser) args(a kgqa.Args) kgqa.Args {
	if a.Attribute != "" {
		attr, _ := p.filter(strings.NewReplacer(".", " ", "_", " ").Replace(a.Attribute))
		a.Attribute = strings.TrimSpace(strings.Join(contentWords(attr), " "))
		if a.Attribute == "" && a.Literal != "" {
			// A find from a literal must name what holds it: the
			// question's words are all a planner has.
			a.Attribute = strings.TrimRight(p.question, "?.! ")
		}
	}
	var valid []kgqa.TimeCond
	for _, c := range a.Valid {
		attr, _ := p.filter(strings.NewReplacer(".", " ", "_", " ").Replace(c.Attribute))
		if naming.Fold(attr) == naming.Fold(strings.NewReplacer(".", " ", "_", " ").Replace(c.Attribute)) {
			c.Attribute = attr
			valid = append(valid, c)
		}
	}
	a.Valid = valid
	return a
}

// contentWords are the words of s that are not function words.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(naming.Fold(s)) {
		if !naming.Stopword(w) {
			out = append(out, w)
		}
	}
	return out
}
