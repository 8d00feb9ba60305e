package llm

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// readEnvelope reads what the client uses of a chat completion reply (the
// first choice's message content, the number of choices, the token
// counts) in one pass without reflection, skipping the rest. It reports
// false for anything it does not read exactly as json.Unmarshal into
// wireReply would (a key that matches a field only when case is folded,
// a duplicate key, a field of another type, a token count that is not a
// plain integer, invalid JSON); the caller then decodes with
// json.Unmarshal, so the result and the errors are always
// encoding/json's. envelope_test.go holds it to that by fuzzing.
func readEnvelope(b []byte) (reply, bool) {
	s := scanner{b: b}
	var r reply
	ok := s.fields([]string{"choices", "usage"}, func(k int) bool {
		if k == 0 {
			return s.null() || s.choices(&r)
		}
		return s.null() || s.fields([]string{"prompt_tokens", "completion_tokens"}, func(k int) bool {
			if k == 0 {
				return s.count(&r.promptTokens)
			}
			return s.count(&r.completionTokens)
		})
	})
	if !ok {
		return reply{}, false
	}
	s.space()
	return r, s.i == len(s.b)
}

// choices reads the choices array: every element must decode as
// json.Unmarshal would decode it into wireReply's element; the first one's
// content is kept.
func (s *scanner) choices(r *reply) bool {
	return s.array(func(i int) bool {
		r.choices = i + 1
		return s.null() || s.fields([]string{"message"}, func(int) bool {
			return s.null() || s.fields([]string{"content"}, func(int) bool {
				if s.null() {
					return true
				}
				text, ok := s.str()
				if ok && i == 0 {
					r.content = text
				}
				return ok
			})
		})
	})
}

// fields reads an object whose fields named in names (at most 8) are read
// by read, given the name's index, and every other field skipped. A key
// that equals a name only with case folded, or a name met twice, is
// declined: encoding/json would match the first to the field too, and
// decode the second over the first.
func (s *scanner) fields(names []string, read func(k int) bool) bool {
	var seen uint8
	return s.object(func(key []byte) bool {
		for k, name := range names {
			switch {
			case string(key) == name && seen&(1<<k) == 0:
				seen |= 1 << k
				return read(k)
			case bytes.EqualFold(key, []byte(name)):
				return false
			}
		}
		return s.skip()
	})
}

// scanner walks JSON text; each method reports false on anything it does
// not accept, which the caller takes as "decode this another way".
type scanner struct {
	b     []byte
	i     int
	depth int // objects and arrays open
}

// maxDepth is the nesting the scanner reads; deeper text is left to
// encoding/json, which has its own limit.
const maxDepth = 200

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte after spaces, 0 at the end.
func (s *scanner) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// null consumes a null literal if one comes next.
func (s *scanner) null() bool { return s.peek() == 'n' && s.literal("null") }

// object reads an object, calling field with each key positioned at its
// value; field must consume the value.
func (s *scanner) object(field func(key []byte) bool) bool {
	return s.seq('{', '}', func(int) bool {
		key, ok := s.key()
		if !ok || s.peek() != ':' {
			return false
		}
		s.i++
		return field(key)
	})
}

// array reads an array, calling elem with each index positioned at its
// element; elem must consume it.
func (s *scanner) array(elem func(i int) bool) bool { return s.seq('[', ']', elem) }

// seq reads the comma-separated items between open and close, calling
// item with each item's index; item must consume it.
func (s *scanner) seq(open, close byte, item func(i int) bool) bool {
	if s.peek() != open || s.depth >= maxDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	if s.peek() == close {
		s.i++
		return true
	}
	for i := 0; ; i++ {
		if !item(i) {
			return false
		}
		switch s.peek() {
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
func (s *scanner) key() ([]byte, bool) {
	if s.peek() != '"' {
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

// str reads a string value. One without escapes is its bytes (valid
// UTF-8 checked); any other is decoded by encoding/json itself (its rules
// for invalid UTF-8 and surrogates are its own) once the scanner has found
// where it ends.
func (s *scanner) str() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	start := s.i
	escaped, wide := false, false
	for j := start + 1; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			body := s.b[start+1 : j]
			if !escaped && (!wide || utf8.Valid(body)) {
				return string(body), true
			}
			var out string
			if json.Unmarshal(s.b[start:s.i], &out) != nil {
				return "", false
			}
			return out, true
		case c < 0x20:
			return "", false
		case c == '\\':
			escaped = true
			j++ // the escaped byte cannot end the string
		case c >= utf8.RuneSelf:
			wide = true
		}
	}
	return "", false
}

// count reads a token count: a plain non-negative integer that fits an int
// (a fraction, an exponent, a sign or a huge number is declined, and
// encoding/json decides).
func (s *scanner) count(n *int) bool {
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

// skip consumes one JSON value of any kind, checking it strictly.
func (s *scanner) skip() bool {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(func(int) bool { return s.skip() })
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

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// skipString consumes a string, checking its escapes (\uXXXX with four hex
// digits); invalid UTF-8 is left to encoding/json, which accepts it.
func (s *scanner) skipString() bool {
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
func (s *scanner) number() bool {
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
