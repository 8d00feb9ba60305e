package explore

import (
	"math"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
)

// wordSeparators turn relation ids ("people.person.place_of_birth") into
// words.
var wordSeparators = strings.NewReplacer("_", " ", ".", " ", ":", " ")

// Tokens splits s into lower-case content words with a light stemming, so
// that "bordering" meets "borders" and "airports" meets "airport".
func Tokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(naming.Fold(wordSeparators.Replace(s))) {
		if naming.Stopword(w) || strings.HasPrefix(w, "#") {
			continue
		}
		out[naming.Stem(w)] = true
	}
	return out
}

// Overlap scores how many of b's words are in a, normalised by b's size
// so that short, exact relation names are not beaten by long ones.
func Overlap(a, b map[string]bool) float64 {
	if len(b) == 0 {
		return 0
	}
	n := 0
	for w := range b {
		if a[w] {
			n++
		}
	}
	return float64(n) + float64(n)/float64(len(b))
}

// WeightedOverlap scores b against a as Overlap does, each word counted
// at its weight (missing: 1): a shared word that most of an offer's
// relations have says less of which one answers than a word only one
// has.
func WeightedOverlap(a, b map[string]bool, weight map[string]float64) float64 {
	shared, all := 0.0, 0.0
	for w := range b {
		v, ok := weight[w]
		if !ok {
			v = 1
		}
		all += v
		if a[w] {
			shared += v
		}
	}
	if all == 0 {
		return 0
	}
	return shared + shared/all
}

// offerWeights weighs each word of an offer's relations by its inverse
// document frequency among them, ln(1+N/df) / ln(1+N) for N relations,
// df of which have the word: 1 for a word of one relation, about 0.15
// for a word of all of 93. A subgoal's "illuminance units" then picks
// "measurement system: illuminance units" out of a measurement system's
// forty "... units" relations as the clear top, where plain overlap saw
// forty relations sharing half its words.
func offerWeights(words []map[string]bool) map[string]float64 {
	df := map[string]int{}
	for _, ws := range words {
		for w := range ws {
			df[w]++
		}
	}
	n := float64(len(words))
	weight := make(map[string]float64, len(df))
	for w, k := range df {
		weight[w] = math.Log1p(n/float64(k)) / math.Log1p(n)
	}
	return weight
}

// FactWords are the words a fact offers to a lexical match; a date also
// offers its year, which is how questions name dates ("in 1980").
func FactWords(d kg.Dialect, f kgqa.Fact) map[string]bool {
	s := f.Tail.Name
	if y, ok := yearOf(s); ok {
		s += " " + y
	}
	for _, r := range f.Path {
		s += " " + d.Readable(r)
	}
	return Tokens(s)
}

// yearOf returns the year of a date literal such as "1980-01-20" or
// "1980-01-20T00:00:00Z".
func yearOf(s string) (string, bool) {
	if len(s) < 7 || s[4] != '-' {
		return "", false
	}
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	return s[:4], true
}
