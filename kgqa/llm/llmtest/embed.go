package llmtest

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// HashedWordsDims is the length of the vectors HashedWords returns.
const HashedWordsDims = 64

// HashedWords is an Embedder for WithEmbedder: a hashed bag of the text's
// lower-case words (split at anything not a letter or digit, so
// "location.location.adjoin_s" gives location, adjoin and s), normalised
// to length 1. Texts sharing words are similar; it needs no model and is
// the same on every run. The model name is ignored.
func HashedWords(_, text string) []float32 {
	v := make([]float32, HashedWordsDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%HashedWordsDims]++
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
	}
	return v
}
