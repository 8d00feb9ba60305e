// Package naming folds entity names for comparison. It holds the two
// foldings the project uses, side by side, because they answer different
// questions and must stay different:
//
//   - Fold is the engine's: it finds, among the names of the evidence a
//     model was shown, the one the model wrote back. Both sides come from
//     the same graph (the model copies what it read), so Fold forgives only
//     what copying loses: case, and punctuation and spacing of any script
//     (’ – « and a no-break space fold like ' - and a space). It keeps
//     accents, apostrophes' word breaks and articles, so that names which
//     differ in the graph stay apart: a name resolves only when exactly one
//     term of the evidence has it, and every merge makes a name ambiguous.
//   - Canonical is the scorer's: it decides whether a predicted answer names
//     a gold answer written by someone else (a benchmark's annotators, a
//     different dump). It also drops accents ("Zürich" is "zurich"), joins
//     dotted initialisms ("U.S.A." is "usa"), lets an apostrophe join
//     ("Don't" is "dont") and drops a leading English article ("The
//     Beatles" is "beatles"), because those are the spelling differences
//     between people, not between entities.
//
// On the FB15k-237 names, Canonical merges more distinct entities than Fold
// (see the package tests): fine for scoring one prediction against one
// gold answer, wrong for picking one term out of many.
package naming

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold is the engine's folding of a name: lower case, every character that
// is not a letter, number or mark a word break, runs of breaks one space.
func Fold(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), unicode.IsMark(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// Canonical is the scorer's folding of a name: Unicode compatibility
// decomposition with combining marks removed ("Zürich" -> "zurich", "ﬁ" ->
// "fi"), dotted initialisms written as one word, lower case, apostrophes
// removed, every other character that is not a letter or digit turned into
// a space, a leading English article (a, an, the) dropped, and runs of
// spaces collapsed.
//
// Articles go only as the first of two or more words: "The Beatles!" and
// "beatles" fold alike, "A Tale of Two Cities" is "tale of two cities", but
// "Alexander the Great" keeps its "the", "The" alone stays "the", and
// "Theater" is one word. A dotted initialism is two or more single letters
// each joined to the next by a period, standing alone as a word: "U.S.A."
// -> "usa", "Washington, D.C." -> "washington dc", "J.R.R. Tolkien" -> "jrr
// tolkien". So "U.S.A." matches "USA" (but not "U.S.", which is "us");
// spaced initials ("J. R. R.") stay separate letters.
func Canonical(s string) string {
	s = joinInitialisms(foldMarks(s))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '\u2019':
			// "Don't" -> "dont": an apostrophe joins, it does not split.
		default:
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	if len(words) > 1 && (words[0] == "a" || words[0] == "an" || words[0] == "the") {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// joinInitialisms removes the periods of dotted initialisms ("U.S.A." ->
// "USA", "D.C." -> "DC"): runs of two or more single letters joined by
// periods, with no letter or digit right before or after the run.
func joinInitialisms(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	rs := []rune(s)
	alnum := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	single := func(i int) bool { return i < len(rs) && unicode.IsLetter(rs[i]) && !alnum(i-1) && !alnum(i+1) }
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(rs); i++ {
		j := i
		for single(j) && j+2 < len(rs) && rs[j+1] == '.' && single(j+2) {
			j += 2
		}
		if j == i {
			b.WriteRune(rs[i])
			continue
		}
		for k := i; k <= j; k += 2 {
			b.WriteRune(rs[k])
		}
		i = j
	}
	return b.String()
}

// foldMarks applies NFKD and drops nonspacing marks.
func foldMarks(s string) string {
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		return s
	}
	return out
}

// stopwords say nothing about a relation: question words, articles,
// auxiliaries and the plan's own verbs.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "in": true, "on": true, "to": true, "for": true,
	"and": true, "or": true, "is": true, "are": true, "was": true, "were": true, "be": true, "by": true,
	"what": true, "which": true, "who": true, "whom": true, "when": true, "where": true, "how": true,
	"that": true, "this": true, "with": true, "as": true, "at": true, "from": true, "it": true,
	"find": true, "does": true, "did": true, "do": true, "has": true, "have": true, "type": true,
	"both": true, "all": true, "their": true, "its": true, "s": true,
}

// Stopword reports whether w, a lower-case word, says nothing about a
// relation.
func Stopword(w string) bool { return stopwords[w] }

// Stem strips one common English inflection (-ing, -ed, -es, -s) from a
// lower-case word that keeps more than three letters without it, so that
// word matching pairs "films" with "film" and "directed" with "direct". It
// is deliberately crude ("genres" gives "genr", "genre" stays): a matching
// key for words that both sides of a comparison pass through, not a
// linguistic stem.
func Stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}
