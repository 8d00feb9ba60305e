package explore

import (
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
