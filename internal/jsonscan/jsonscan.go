// Package jsonscan walks JSON text in one pass without reflection, for
// the hot paths that read a known shape (a model's reply envelope, the
// keys of a request body). It accepts strict JSON only, and declines
// (reports false) anything it does not read exactly as encoding/json
// would: its callers then hand the text to encoding/json, so results and
// errors stay encoding/json's.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner walks JSON text; each method reports false on anything it does
// not accept, which the caller takes as "decode this another way".
type Scanner struct {
	b     []byte
	i     int
	depth int // objects and arrays open
}

// maxDepth is the nesting the scanner reads; deeper text is left to
// encoding/json, which has its own limit.
const maxDepth = 200

// New returns a scanner at the start of b.
func New(b []byte) *Scanner { return &Scanner{b: b} }

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *Scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek is the next byte after spaces, 0 at the end.
func (s *Scanner) Peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// Null consumes a null literal if one comes next.
func (s *Scanner) Null() bool { return s.Peek() == 'n' && s.literal("null") }

// Object reads an object, calling field with each key positioned at its
// value; field must consume the value.
func (s *Scanner) Object(field func(key []byte) bool) bool {
	return s.seq('{', '}', func(int) bool {
		key, ok := s.key()
		if !ok || s.Peek() != ':' {
			return false
		}
		s.i++
		return field(key)
	})
}

// Array reads an array, calling elem with each index positioned at its
// element; elem must consume it.
func (s *Scanner) Array(elem func(i int) bool) bool { return s.seq('[', ']', elem) }

// seq reads the comma-separated items between open and close, calling
// item with each item's index; item must consume it.
func (s *Scanner) seq(open, close byte, item func(i int) bool) bool {
	if s.Peek() != open || s.depth >= maxDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	if s.Peek() == close {
		s.i++
		return true
	}
	for i := 0; ; i++ {
		if !item(i) {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case close:
			s.i++
			return true
		default:
			return false
		}
	}
}

// key reads an object key made of printable ASCII without escapes (any
// other key is declined: encoding/json folds some non-ASCII letters onto
// ASCII ones when it matches field names).
func (s *Scanner) key() ([]byte, bool) {
	if s.Peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// Str reads a string value. One without escapes is its bytes, and one
// with escapes is unescaped here (valid UTF-8 checked in both); a string
// with invalid UTF-8 or a \u escape of a surrogate not in a pair is decoded
// by encoding/json itself (its replacements are its own) once the scanner
// has found where it ends.
func (s *Scanner) Str() (string, bool) {
	body, escaped, wide, ok := s.str()
	switch {
	case !ok:
		return "", false
	case wide && !utf8.Valid(body):
		return viaJSON(s.b[s.i-len(body)-2 : s.i])
	case !escaped:
		return string(body), true
	}
	if out, ok := appendUnescaped(make([]byte, 0, len(body)), body); ok {
		return string(out), true
	}
	return viaJSON(s.b[s.i-len(body)-2 : s.i])
}

// AppendStr reads a string value as Str does and appends it to dst, for a
// caller that compares the strings it reads or gathers several in one
// allocation: it allocates only when dst grows or encoding/json decodes.
func (s *Scanner) AppendStr(dst []byte) ([]byte, bool) {
	body, escaped, wide, ok := s.str()
	switch {
	case !ok:
		return dst, false
	case wide && !utf8.Valid(body):
	case !escaped:
		return append(dst, body...), true
	default:
		if out, ok := appendUnescaped(dst, body); ok {
			return out, true
		}
	}
	out, ok := viaJSON(s.b[s.i-len(body)-2 : s.i])
	return append(dst, out...), ok
}

// str consumes a string and returns its body between the quotes, whether
// it has escapes and whether it has bytes outside ASCII.
func (s *Scanner) str() (body []byte, escaped, wide, ok bool) {
	if s.Peek() != '"' {
		return nil, false, false, false
	}
	start := s.i
	for j := start + 1; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return s.b[start+1 : j], escaped, wide, true
		case c < 0x20:
			return nil, false, false, false
		case c == '\\':
			escaped = true
			j++ // the escaped byte cannot end the string
		case c >= utf8.RuneSelf:
			wide = true
		}
	}
	return nil, false, false, false
}

func viaJSON(quoted []byte) (string, bool) {
	var out string
	if json.Unmarshal(quoted, &out) != nil {
		return "", false
	}
	return out, true
}

// appendUnescaped appends the decoded body of a string (valid UTF-8) to
// out; it reports false on a malformed escape and on a surrogate not in a
// pair, which it leaves to encoding/json, and then out is unchanged.
func appendUnescaped(out, body []byte) ([]byte, bool) {
	n := len(out)
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(body) {
			return out[:n], false
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(body, i+1)
			if !ok {
				return out[:n], false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u'
				if ok {
					r2, ok = hex4(body, i+3)
				}
				pair := utf16.DecodeRune(r, r2)
				if !ok || pair == utf8.RuneError {
					return out[:n], false
				}
				r = pair
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			return out[:n], false
		}
	}
	return out, true
}

// hex4 reads the four hex digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	return Hex(b[i : i+4])
}

// Hex reads b, hex digits only, as a number (the digits of an escape such
// as \uXXXX); it reports false for anything else, and for a number past
// what a rune holds.
func Hex(b []byte) (rune, bool) {
	var r uint32
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		if r > 0x7FFFFFF {
			return 0, false
		}
		r = r<<4 | uint32(d)
	}
	return rune(r), true
}

// Count reads a token count: a plain non-negative integer that fits an int
// (a fraction, an exponent, a sign or a huge number is declined, and
// encoding/json decides).
func (s *Scanner) Count(n *int) bool {
	s.space()
	j := s.i
	v := 0
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		if v > (1<<31-1)/10 {
			return false
		}
		v = v*10 + int(s.b[j]-'0')
		j++
	}
	if j == s.i || (s.b[s.i] == '0' && j-s.i > 1) {
		return false
	}
	if j < len(s.b) {
		switch s.b[j] {
		case '.', 'e', 'E':
			return false
		}
	}
	s.i = j
	*n = v
	return true
}

// Skip consumes one JSON value of any kind, checking it strictly.
func (s *Scanner) Skip() bool {
	switch c := s.Peek(); {
	case c == '{':
		return s.Object(func([]byte) bool { return s.Skip() })
	case c == '[':
		return s.Array(func(int) bool { return s.Skip() })
	case c == '"':
		return s.skipString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

func (s *Scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// skipString consumes a string, checking its escapes (\uXXXX with four hex
// digits); invalid UTF-8 is left to encoding/json, which accepts it.
func (s *Scanner) skipString() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if j+1 >= len(s.b) {
				return false
			}
			switch s.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+5 >= len(s.b) {
					return false
				}
				for _, h := range s.b[j+2 : j+6] {
					if !isHex(h) {
						return false
					}
				}
				j += 5
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) number() bool {
	j := s.i
	digits := func() bool {
		k := j
		for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	switch {
	case j < len(s.b) && s.b[j] == '0':
		j++
	case !digits():
		return false
	}
	if j < len(s.b) && s.b[j] == '.' {
		j++
		if !digits() {
			return false
		}
	}
	if j < len(s.b) && (s.b[j] == 'e' || s.b[j] == 'E') {
		j++
		if j < len(s.b) && (s.b[j] == '+' || s.b[j] == '-') {
			j++
		}
		if !digits() {
			return false
		}
	}
	s.i = j
	return true
}
