// Package relprior is the relation prior: which KG relations gold queries
// use for subgoals with given words, learned from the planner's training
// data (the SFT records sparql2plan writes, train splits only). The engine
// ranks a relation offer by it, with word overlap and embeddings, before
// it pages or cuts the offer.
//
// Two associations are counted over the training subgoals: a word of the
// subgoal with a relation its gold query uses (smoothed P(relation |
// word)), and a word of the subgoal with a word of such a relation's name
// (so that "wife" favours people.person.spouse_s and also an unseen
// relation whose name says spouse). A relation the data never used scores
// by the second alone.
package relprior

import (
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/parog/parog-go/internal/naming"
)

// Version is the file format written by this code.
const Version = 1

// smoothing is added to a word's subgoal count: a word seen in few
// subgoals says less about the relation.
const smoothing = 1.0

// Prior holds the counts of the two associations. The zero value is not
// usable: build one with NewBuilder or read one with Read.
type Prior struct {
	// Version is the file format (Version).
	Version int `json:"version"`
	// Source says which records it was built from.
	Source string `json:"source,omitempty"`
	// Subgoals is the number of subgoals learned from.
	Subgoals int `json:"subgoals"`
	// Words counts the subgoals that hold each word.
	Words map[string]int `json:"words"`
	// Relations counts, by word, the subgoals with the word whose gold
	// query uses each relation.
	Relations map[string]map[string]int `json:"relations"`
	// NameWords counts, by word, the subgoals with the word whose gold
	// relations' names hold each name word.
	NameWords map[string]map[string]int `json:"name_words"`
	// NameTotals counts the subgoals whose gold relations' names hold
	// each name word.
	NameTotals map[string]int `json:"name_totals"`

	// names caches the name words of relation ids (id -> []string): a
	// schema has some tens of thousands, and an offer scores thousands.
	names sync.Map
}

// wordSeparators turn relation ids ("people.person.place_of_birth") into
// words.
var wordSeparators = strings.NewReplacer("_", " ", ".", " ", ":", " ", "/", " ")

// Words splits s into the content words the prior counts: folded to
// lower case, stopwords and "#1" references dropped, lightly stemmed
// ("bordering" and "borders" meet), each once.
func Words(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.Fields(naming.Fold(wordSeparators.Replace(s))) {
		if naming.Stopword(w) || strings.HasPrefix(w, "#") {
			continue
		}
		w = naming.Stem(w)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// nameWords are the words of a relation's name that the prior counts:
// its type and property ("people.person.spouse_s" -> person, spouse),
// not its domain, which the type repeats.
func nameWords(id string) []string {
	if i := strings.IndexByte(id, '.'); i >= 0 && strings.Count(id, ".") >= 2 {
		id = id[i+1:]
	}
	return Words(id)
}

// Scorer scores relations for one subgoal text.
type Scorer struct {
	p *Prior
	// weights are the known words of the text with their weight (the
	// log inverse share of subgoals that hold them), summing to 1.
	weights map[string]float64
}

// For returns the scorer of a subgoal text. Words the prior never saw
// are ignored; a text with none scores every relation 0.
func (p *Prior) For(text string) *Scorer { return p.ForWords(Words(text)) }

// ForWords is For of words as Words returns them.
func (p *Prior) ForWords(words []string) *Scorer {
	s := &Scorer{p: p, weights: map[string]float64{}}
	if p == nil || p.Subgoals == 0 {
		return s
	}
	total := 0.0
	for _, w := range words {
		n := p.Words[w]
		if n == 0 {
			continue
		}
		idf := math.Log(float64(p.Subgoals+1) / float64(n))
		if idf <= 0 {
			continue
		}
		s.weights[w] = idf
		total += idf
	}
	for w := range s.weights {
		s.weights[w] /= total
	}
	return s
}

// Known reports whether the text had a word the prior knows.
func (s *Scorer) Known() bool { return len(s.weights) > 0 }

// Score is the prior of relation id for the text, between 0 and 2: the
// weighted P(relation | word) over the text's known words, plus how much
// more often than at random the gold relations of subgoals with those
// words had the relation's name words.
func (s *Scorer) Score(id string) float64 {
	if len(s.weights) == 0 {
		return 0
	}
	direct := 0.0
	for w, wt := range s.weights {
		direct += wt * float64(s.p.Relations[w][id]) / (float64(s.p.Words[w]) + smoothing)
	}
	var vs []string
	if v, ok := s.p.names.Load(id); ok {
		vs = v.([]string)
	} else {
		vs = nameWords(id)
		s.p.names.Store(id, vs)
	}
	if len(vs) == 0 {
		return direct
	}
	lift := 0.0
	for _, v := range vs {
		p := 0.0
		for w, wt := range s.weights {
			p += wt * float64(s.p.NameWords[w][v]) / (float64(s.p.Words[w]) + smoothing)
		}
		base := float64(s.p.NameTotals[v]) / float64(s.p.Subgoals)
		lift += max(0, p-base)
	}
	return direct + lift/float64(len(vs))
}

// Rank returns the ranks (0 best) of ids by the prior for the text, ties
// in the given order.
func (s *Scorer) Rank(ids []string) []int {
	idx := make([]int, len(ids))
	score := make([]float64, len(ids))
	for i, id := range ids {
		idx[i], score[i] = i, s.Score(id)
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	rank := make([]int, len(ids))
	for r, i := range idx {
		rank[i] = r
	}
	return rank
}

// DefaultWeight is the prior's weight against word overlap (which scores
// a relation about 1 to 3 per shared word) when the engine ranks an
// offer; chosen on WebQSP train's held-out split (see the tests).
const DefaultWeight = 4.0
