package sparqlgate

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// oneOperation refuses a request that chains operations with ';' (as
// SPARQL Update does): the parser stops at the end of the first query and
// would silently drop the rest. A ';' outside brackets, strings, IRIs and
// comments has no other use in a query. It refuses FROM and FROM NAMED,
// which the parser skips, for the same reason. Codepoint escapes are
// decoded first, as the parser does.
func oneOperation(text string) error {
	rs := []rune(decodeCodepoints(text))
	depth := 0
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '#':
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipString(rs, i)
		case '<':
			j := i + 1
			for j < len(rs) && rs[j] != '>' && rs[j] > ' ' {
				j++
			}
			if j < len(rs) && rs[j] == '>' {
				i = j
			}
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		case ';':
			if depth <= 0 {
				return refuse("one query per request: ';' chains operations")
			}
		default:
			if !wordStart(rs, i) {
				continue
			}
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_') {
				j++
			}
			word := strings.ToUpper(string(rs[i:j]))
			if j < len(rs) && rs[j] == ':' {
				word = "" // a prefix
			}
			switch word {
			case "FROM":
				// The parser skips dataset clauses; the query would run
				// over another dataset than the one it names.
				return refuse("FROM and FROM NAMED are not supported: queries run over the endpoint's default graph")
			case "LIMIT", "OFFSET":
				if err := rowCount(word, rs[j:]); err != nil {
					return err
				}
			}
			i = j - 1
		}
	}
	return nil
}

// rowCount checks the number after LIMIT or OFFSET (the parser's own
// error names neither the clause nor the text).
func rowCount(clause string, rest []rune) error {
	i := 0
	for i < len(rest) && unicode.IsSpace(rest[i]) {
		i++
	}
	j := i
	for j < len(rest) && !unicode.IsSpace(rest[j]) && !strings.ContainsRune("{}()#", rest[j]) {
		j++
	}
	n := string(rest[i:j])
	if n == "" {
		return refuse("%s takes a whole number of rows (0 or more), got nothing", clause)
	}
	if strings.Trim(n, "0123456789") != "" {
		return refuse("%s takes a whole number of rows (0 or more), got %q", clause, clip(n))
	}
	if _, err := strconv.Atoi(n); err != nil {
		return refuse("%s is larger than %d", clause, math.MaxInt)
	}
	return nil
}

// wordStart reports whether a bare word (a keyword, not part of a prefixed
// name, a variable or a number) starts at i.
func wordStart(rs []rune, i int) bool {
	if !unicode.IsLetter(rs[i]) {
		return false
	}
	if i == 0 {
		return true
	}
	p := rs[i-1]
	return !(unicode.IsLetter(p) || unicode.IsDigit(p) || strings.ContainsRune("_:?$-.", p))
}

// skipString returns the index of the last rune of the string literal
// that starts at i.
func skipString(rs []rune, i int) int {
	q := rs[i]
	long := i+2 < len(rs) && rs[i+1] == q && rs[i+2] == q
	j := i + 1
	if long {
		j = i + 3
	}
	for ; j < len(rs); j++ {
		switch {
		case rs[j] == '\\':
			j++
		case long && rs[j] == q && j+2 < len(rs) && rs[j+1] == q && rs[j+2] == q:
			return j + 2
		case !long && rs[j] == q:
			return j
		}
	}
	return len(rs) - 1
}

// decodeCodepoints expands \uXXXX and \UXXXXXXXX everywhere.
func decodeCodepoints(s string) string {
	if !strings.Contains(s, `\u`) && !strings.Contains(s, `\U`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		n := 0
		switch {
		case s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u':
			n = 4
		case s[i] == '\\' && i+9 < len(s) && s[i+1] == 'U':
			n = 8
		}
		if n > 0 {
			if cp, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32); err == nil {
				b.WriteRune(rune(cp))
				i += 1 + n
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
