package sparqlsyntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the lexical class of a token.
type tokKind int

const (
	tEOF     tokKind = iota
	tIRI             // <...>: text is the IRI between the brackets
	tPName           // prefix:local: text as written
	tVar             // ?x or $x: text is the name
	tBlank           // _:label: text is the label
	tString          // a string literal: text is the unescaped value
	tLang            // @en: text is the tag
	tInteger         // digits
	tDecimal         // digits with a point
	tDouble          // with an exponent
	tWord            // a bare name: keyword, function name, a, true, false
	tPunct           // punctuation and operators: text is the symbol
)

var kindNames = map[tokKind]string{
	tEOF: "end of query", tIRI: "IRI", tPName: "prefixed name", tVar: "variable", tBlank: "blank node",
	tString: "string", tLang: "language tag", tInteger: "number", tDecimal: "number", tDouble: "number",
	tWord: "name", tPunct: "symbol",
}

type token struct {
	kind tokKind
	text string
	pos  int // byte offset in the query
}

// describe names a token for an error message.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tString:
		return "string " + strconv.Quote(t.text)
	case tVar:
		return "variable ?" + t.text
	case tIRI:
		return "IRI <" + t.text + ">"
	}
	return fmt.Sprintf("%s %q", kindNames[t.kind], t.text)
}

// lexer cuts a query into tokens.
type lexer struct {
	src string
	pos int
}

// twoChar are the operators of two characters.
var twoChar = []string{"^^", "&&", "||", "!=", "<=", ">="}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.pos++
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		default:
			return
		}
	}
}

// next returns the next token. A '?' or '$' followed by a name is a
// variable; a lone '?' is the path operator (p? : zero or one).
func (l *lexer) next() (token, error) {
	l.skipSpace()
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tEOF, pos: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '<':
		if end := iriEnd(l.src, l.pos); end > 0 {
			l.pos = end
			return token{kind: tIRI, text: l.src[start+1 : end-1], pos: start}, nil
		}
	case c == '"' || c == '\'':
		return l.string()
	case c == '?' || c == '$':
		n := l.nameEnd(l.pos+1, false)
		if n > l.pos+1 {
			l.pos = n
			return token{kind: tVar, text: l.src[start+1 : n], pos: start}, nil
		}
		if c == '$' {
			return token{}, newSyntaxError(l.src, start, "a variable name must follow $")
		}
	case c == '@':
		n := l.pos + 1
		for n < len(l.src) && (isASCIILetter(l.src[n]) || l.src[n] == '-' || (n > l.pos+1 && isDigit(l.src[n]))) {
			n++
		}
		if n == l.pos+1 {
			return token{}, newSyntaxError(l.src, start, "a language tag must follow @")
		}
		l.pos = n
		return token{kind: tLang, text: l.src[start+1 : n], pos: start}, nil
	case isDigit(c) || c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
		return l.number()
	case c == '_' && l.pos+1 < len(l.src) && l.src[l.pos+1] == ':':
		n := l.localEnd(l.pos + 2)
		if n == l.pos+2 {
			return token{}, newSyntaxError(l.src, start, "a label must follow _:")
		}
		l.pos = n
		return token{kind: tBlank, text: l.src[start+2 : n], pos: start}, nil
	case c == ':' || isNameStart(l.src, l.pos):
		return l.name()
	}
	for _, op := range twoChar {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += 2
			return token{kind: tPunct, text: op, pos: start}, nil
		}
	}
	if strings.IndexByte("{}()[].,;*/|^+-!?=<>", c) >= 0 {
		l.pos++
		return token{kind: tPunct, text: string(c), pos: start}, nil
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.pos:])
	return token{}, newSyntaxError(l.src, start, "unexpected character %q", r)
}

// iriEnd returns the offset past the IRI reference starting at i, or -1
// when '<' starts no IRI (then it is the less-than operator): an IRI holds
// no space and none of <>"{}|^`\ (SPARQL's IRIREF).
func iriEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '>':
			return j + 1
		case c <= ' ' || strings.IndexByte("<\"{}|^`\\", c) >= 0:
			return -1
		}
	}
	return -1
}

func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isNameStart reports whether a name (a keyword, or a prefix) starts at i.
func isNameStart(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// nameEnd returns the end of a run of name characters from i (letters,
// digits, _, and with dash also - and ., as a prefix allows inside).
func (l *lexer) nameEnd(i int, dash bool) int {
	start := i
	for i < len(l.src) {
		r, w := utf8.DecodeRuneInString(l.src[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\u00B7' || dash && (r == '-' || r == '.') {
			i += w
			continue
		}
		break
	}
	if dash {
		for i > start && l.src[i-1] == '.' {
			i--
		}
	}
	return i
}

// localEnd returns the end of a prefixed name's local part (or a blank
// node label) from i: name characters, - . : %hh and \-escapes, not
// ending in a point.
func (l *lexer) localEnd(i int) int {
	start := i
	for i < len(l.src) {
		r, w := utf8.DecodeRuneInString(l.src[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' || r == ':' || r == '\u00B7':
			i += w
		case r == '%' && i+2 < len(l.src) && isHex(l.src[i+1]) && isHex(l.src[i+2]):
			i += 3
		case r == '\\' && i+1 < len(l.src) && strings.IndexByte("_~.-!$&'()*+,;=/?#@%", l.src[i+1]) >= 0:
			i += 2
		default:
			goto done
		}
	}
done:
	for i > start && l.src[i-1] == '.' && (i-2 < start || l.src[i-2] != '\\') {
		i--
	}
	return i
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// name reads a bare word or a prefixed name.
func (l *lexer) name() (token, error) {
	start := l.pos
	end := l.nameEnd(l.pos, true)
	if end < len(l.src) && l.src[end] == ':' {
		l.pos = l.localEnd(end + 1)
		return token{kind: tPName, text: l.src[start:l.pos], pos: start}, nil
	}
	// A keyword or function name holds no dash or point.
	l.pos = l.nameEnd(l.pos, false)
	if l.pos == start {
		return token{}, newSyntaxError(l.src, start, "unexpected character %q", l.src[start])
	}
	return token{kind: tWord, text: l.src[start:l.pos], pos: start}, nil
}

func (l *lexer) number() (token, error) {
	start := l.pos
	kind := tInteger
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	if l.pos+1 < len(l.src) && l.src[l.pos] == '.' && isDigit(l.src[l.pos+1]) {
		kind = tDecimal
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		n := l.pos + 1
		if n < len(l.src) && (l.src[n] == '+' || l.src[n] == '-') {
			n++
		}
		if n < len(l.src) && isDigit(l.src[n]) {
			for n < len(l.src) && isDigit(l.src[n]) {
				n++
			}
			kind, l.pos = tDouble, n
		}
	}
	return token{kind: kind, text: l.src[start:l.pos], pos: start}, nil
}

// string reads a quoted literal ('..', "..", ”'..”', """..""") and
// unescapes it.
func (l *lexer) string() (token, error) {
	start := l.pos
	q := l.src[l.pos]
	long := strings.HasPrefix(l.src[l.pos:], strings.Repeat(string(q), 3))
	i := l.pos + 1
	if long {
		i = l.pos + 3
	}
	var b strings.Builder
	for {
		if i >= len(l.src) {
			return token{}, newSyntaxError(l.src, start, "unterminated string")
		}
		c := l.src[i]
		switch {
		case c == q && !long:
			l.pos = i + 1
			return token{kind: tString, text: b.String(), pos: start}, nil
		case c == q && strings.HasPrefix(l.src[i:], strings.Repeat(string(q), 3)):
			// A long string may end in up to two quotes of its own.
			for i+3 < len(l.src) && l.src[i+3] == q {
				b.WriteByte(q)
				i++
			}
			l.pos = i + 3
			return token{kind: tString, text: b.String(), pos: start}, nil
		case (c == '\n' || c == '\r') && !long:
			return token{}, newSyntaxError(l.src, i, "line break in a string (use \"\"\" for a long string)")
		case c == '\\':
			n, err := l.escape(&b, i)
			if err != nil {
				return token{}, err
			}
			i = n
		default:
			b.WriteByte(c)
			i++
		}
	}
}

// escape writes the character the escape at i stands for and returns the
// offset past it.
func (l *lexer) escape(b *strings.Builder, i int) (int, error) {
	if i+1 >= len(l.src) {
		return 0, newSyntaxError(l.src, i, "unterminated string")
	}
	simple := map[byte]byte{'t': '\t', 'n': '\n', 'r': '\r', 'b': '\b', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}
	e := l.src[i+1]
	if r, ok := simple[e]; ok {
		b.WriteByte(r)
		return i + 2, nil
	}
	width := map[byte]int{'u': 4, 'U': 8}[e]
	if width == 0 {
		return 0, newSyntaxError(l.src, i, "unknown escape \\%c in a string", e)
	}
	if i+2+width > len(l.src) {
		return 0, newSyntaxError(l.src, i, "short \\%c escape", e)
	}
	cp, err := strconv.ParseUint(l.src[i+2:i+2+width], 16, 32)
	if err != nil || cp > unicode.MaxRune || cp >= 0xD800 && cp <= 0xDFFF {
		return 0, newSyntaxError(l.src, i, "bad \\%c escape %q", e, l.src[i+2:i+2+width])
	}
	b.WriteRune(rune(cp))
	return i + 2 + width, nil
}
