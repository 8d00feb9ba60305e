package score

import (
	"strings"

	"github.com/parog/parog-go/dataset"
)

// PredEntity is one predicted answer: an entity (ID set) or a literal
// (ID empty, Name holds the value).
type PredEntity struct {
	// ID is the entity id, empty for literals.
	ID string `json:"id,omitempty"`
	// Name is the entity's name or the literal's value.
	Name string `json:"name,omitempty"`
	// Datatype is the XSD datatype IRI of a literal, when known.
	Datatype string `json:"datatype,omitempty"`
}

// Label is the entity's name, or its id when it has no name.
func (e PredEntity) Label() string {
	if strings.TrimSpace(e.Name) != "" {
		return e.Name
	}
	return e.ID
}

// Score is the outcome of scoring one prediction against the gold answers.
type Score struct {
	// Hit is Hits@1: the top prediction matches a gold answer.
	Hit bool `json:"hit"`
	// F1 is the answer-set F1 of the predicted set against the gold set.
	F1 float64 `json:"f1"`
	// Precision and Recall are the parts of F1.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// Top is the prediction scored for Hits@1 (its name, or id).
	Top string `json:"top,omitempty"`
}

// Scorer scores predictions under the matching rules of this package
// (see naming.Canonical and NamesMatch), with optional aliases.
type Scorer struct {
	// Aliases adds accepted names; nil adds none.
	Aliases *Aliases
}

// goldSet is the gold answers of a question with all their accepted names.
type goldSet struct {
	answers []dataset.Answer
	names   [][]string // names[i]: accepted names of answers[i]
	extra   []string   // question-level aliases: match any answer
}

func (s Scorer) gold(q dataset.Question) goldSet {
	g := goldSet{answers: q.Answers, names: make([][]string, len(q.Answers))}
	for i, a := range q.Answers {
		ns := append([]string{a.Name}, a.Aliases...)
		g.names[i] = append(ns, s.Aliases.ForAnswer(a)...)
	}
	g.extra = s.Aliases.ForQuestion(q.ID)
	if q.Text != q.ID {
		// Alias files keyed by question text (PoG's) apply too.
		g.extra = append(append([]string(nil), g.extra...), s.Aliases.ForKey(q.Text)...)
	}
	return g
}

// matches reports which gold answer p matches: the index, -1 for a
// question-level alias, or ok=false.
func (g goldSet) matches(p PredEntity) (int, bool) {
	if IsNonAnswer(p.Name) && (p.ID == "" || IsNonAnswer(p.ID)) {
		return 0, false
	}
	pid, _ := dataset.NormalizeMID(p.ID)
	if pid != "" {
		for i, a := range g.answers {
			if a.ID != "" && a.ID == pid {
				return i, true
			}
		}
	}
	name := p.Label()
	for i, ns := range g.names {
		for _, n := range ns {
			if NamesMatch(name, n) {
				return i, true
			}
		}
	}
	for _, n := range g.extra {
		if NamesMatch(name, n) {
			return -1, true
		}
	}
	return 0, false
}

// PredictedSet turns a prediction into the ranked list that is scored: its
// entities when it has any, otherwise its text as one literal. Non-answers
// (empty text, "Yes", ...) are dropped.
func PredictedSet(entities []PredEntity, text string) []PredEntity {
	var out []PredEntity
	for _, e := range entities {
		if e.ID == "" && IsNonAnswer(e.Name) {
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 && !IsNonAnswer(text) {
		out = append(out, PredEntity{Name: strings.TrimSpace(text)})
	}
	return out
}

// Score scores a ranked prediction (as from PredictedSet) for question q.
// Hits@1 looks at the first element only. F1 counts a predicted element as
// correct when it matches any gold answer, and a gold answer as recalled
// when some prediction matches it; a question-level alias match counts as
// recalling one gold answer. An empty prediction scores zero everywhere; a
// question without gold answers too.
func (s Scorer) Score(q dataset.Question, pred []PredEntity) Score {
	var sc Score
	if len(pred) == 0 {
		return sc
	}
	sc.Top = pred[0].Label()
	if len(q.Answers) == 0 {
		return sc
	}
	g := s.gold(q)
	recalled := make([]bool, len(q.Answers))
	extraRecall := false
	correct := 0
	for i, p := range pred {
		j, ok := g.matches(p)
		if !ok {
			continue
		}
		if i == 0 {
			sc.Hit = true
		}
		correct++
		if j >= 0 {
			recalled[j] = true
		} else {
			extraRecall = true
		}
	}
	nRecalled := 0
	for _, r := range recalled {
		if r {
			nRecalled++
		}
	}
	if nRecalled == 0 && extraRecall {
		nRecalled = 1
	}
	sc.Precision = float64(correct) / float64(len(pred))
	sc.Recall = float64(nRecalled) / float64(len(q.Answers))
	if sc.Precision+sc.Recall > 0 {
		sc.F1 = 2 * sc.Precision * sc.Recall / (sc.Precision + sc.Recall)
	}
	return sc
}

// TextHit reports whether a free-text answer (a tentative answer, a PoG
// result) names a gold answer under the same rules; the text is read as
// one name, and as the items of a "{...}" or comma list when it has them.
func (s Scorer) TextHit(q dataset.Question, text string) bool {
	items := AnswerItems(text)
	if len(items) == 0 {
		return false
	}
	return s.Score(q, []PredEntity{{Name: items[0]}}).Hit
}

// AnswerItems splits a free-text answer into candidate answers: the
// contents of "{...}" groups when there are any (PoG and ToG write answers
// as "{Germany}"), else the text itself. Non-answers such as "{Yes}" are
// dropped, so the first item is the top prediction.
func AnswerItems(text string) []string {
	var items []string
	rest := text
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			break
		}
		items = append(items, rest[i+1:i+j])
		rest = rest[i+j+1:]
	}
	if len(items) == 0 {
		items = []string{text}
	}
	out := items[:0]
	for _, it := range items {
		it = strings.TrimSpace(it)
		if !IsNonAnswer(it) {
			out = append(out, it)
		}
	}
	return out
}
