// Package lexicon holds the word lists that the engine's lexical matching
// of questions and relation names shares with the scripted test models.
package lexicon

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
