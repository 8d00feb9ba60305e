package kg

import (
	"fmt"
	"strings"
	"unicode"
)

// updateWords are the SPARQL Update keywords; a bare one anywhere outside a
// string, IRI or comment makes a query unacceptable for Select.
var updateWords = map[string]bool{
	"INSERT": true, "DELETE": true, "LOAD": true, "CLEAR": true, "DROP": true,
	"CREATE": true, "ADD": true, "MOVE": true, "COPY": true, "WITH": true,
	"USING": true, "DEFINE": true, "SERVICE": true,
}

// checkReadOnlySelect accepts a SELECT query (after PREFIX/BASE
// declarations) with no update keyword and no SERVICE call. It is lexical on
// purpose: endpoint dialects (Virtuoso) accept syntax a strict parser
// refuses, and the check must hold for both backends.
func checkReadOnlySelect(q string) error {
	words := bareWords(q)
	i := 0
	for i < len(words) && (words[i] == "PREFIX" || words[i] == "BASE") {
		i++
	}
	if i >= len(words) || words[i] != "SELECT" {
		return fmt.Errorf("kg: select: %w: only SELECT queries are accepted", ErrQuery)
	}
	for _, w := range words {
		if updateWords[w] {
			return fmt.Errorf("kg: select: %w: %s is not allowed", ErrQuery, w)
		}
	}
	return nil
}

// bareWords returns the upper-cased keyword-like tokens of q, skipping
// strings, IRIs, comments, variables and prefixed names.
func bareWords(q string) []string {
	var words []string
	rs := []rune(q)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '#':
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case r == '"' || r == '\'':
			i = skipString(rs, i)
		case r == '<':
			j := i + 1
			for j < len(rs) && rs[j] != '>' && !unicode.IsSpace(rs[j]) {
				j++
			}
			if j < len(rs) && rs[j] == '>' {
				i = j
			}
		case r == '?' || r == '$' || unicode.IsLetter(r) || r == '_':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || strings.ContainsRune("_-.:?$", rs[j])) {
				j++
			}
			tok := string(rs[i:j])
			if r != '?' && r != '$' && !strings.Contains(tok, ":") {
				words = append(words, strings.ToUpper(strings.TrimRight(tok, ".")))
			}
			i = j - 1
		}
	}
	return words
}

// skipString returns the index of the last rune of the string literal that
// starts at i (single, double, or long-quoted).
func skipString(rs []rune, i int) int {
	quote := rs[i]
	long := i+2 < len(rs) && rs[i+1] == quote && rs[i+2] == quote
	j := i + 1
	if long {
		j = i + 3
	}
	for j < len(rs) {
		switch {
		case rs[j] == '\\':
			j += 2
			continue
		case long && rs[j] == quote && j+2 < len(rs) && rs[j+1] == quote && rs[j+2] == quote:
			return j + 2
		case !long && rs[j] == quote:
			return j
		}
		j++
	}
	return len(rs) - 1
}
