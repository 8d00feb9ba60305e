package generate

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Question text is rendered from a relation's readable name: the last
// part of its id in words ("people.person.place_of_birth" reads "place of
// birth"). Relations fall in two families by how that name reads:
//   - a noun ("capital", "place of birth", "films"): "the capital of X",
//     "has Y as its capital";
//   - a verb phrase ending in a preposition ("directed by", "member of",
//     "contained by"): "the films X is directed by" reads wrong, so the set
//     is named by the relation's range type ("the persons Inception is
//     directed by") and a fact by the phrase itself ("is directed by Y").

// prepositions end the names of the verb-phrase family.
var prepositions = []string{"by", "of", "in", "at", "for", "from", "to", "with", "on", "into", "about", "as", "under"}

// fused are Freebase property names written as one word.
var fused = map[string]string{
	"containedby":          "contained by",
	"partiallycontains":    "partially contains",
	"partiallycontainedby": "partially contained by",
}

// words is a relation's readable name.
func words(rel string) string {
	f := strings.FieldsFunc(lastPart(rel), func(r rune) bool { return r == '_' })
	for i, w := range f {
		if s, ok := fused[w]; ok {
			f[i] = s
		}
	}
	return strings.Join(f, " ")
}

// prepositional reports whether a relation's name is a verb phrase ending
// in a preposition.
func prepositional(rel string) bool {
	f := strings.Fields(words(rel))
	return len(f) > 1 && slices.Contains(prepositions, f[len(f)-1])
}

// rangeNoun names what a relation's values are, from its range type
// ("film.director" reads "director").
func (m *maker) rangeNoun(rel string) string {
	if t := m.ranges[rel]; t != "" && !strings.HasPrefix(t, "type.") {
		return words(t)
	}
	return "entity"
}

// setPhrase names the values of (topic, rel).
func (m *maker) setPhrase(topic, rel string) string {
	if prepositional(rel) {
		return "the " + plural(m.rangeNoun(rel)) + " " + topic + " is " + words(rel)
	}
	return "the " + words(rel) + " of " + topic
}

// holds says that a value has rel to name, as a relative clause.
func (m *maker) holds(rel, name string) string {
	if prepositional(rel) {
		return "is " + words(rel) + " " + name
	}
	return "has " + name + " as its " + words(rel)
}

// plural makes an English plural of a noun phrase's last word.
func plural(noun string) string {
	switch {
	case noun == "person" || strings.HasSuffix(noun, " person"):
		return strings.TrimSuffix(noun, "person") + "people"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "x") || strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// capitalise upper-cases the first letter.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
