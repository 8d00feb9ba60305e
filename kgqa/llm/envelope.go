package llm

import (
	"bytes"

	"github.com/parog/parog-go/internal/jsonscan"
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
	s := jsonscan.New(b)
	var r reply
	ok := fields(s, []string{"choices", "usage"}, func(k int) bool {
		if k == 0 {
			return s.Null() || choices(s, &r)
		}
		return s.Null() || fields(s, []string{"prompt_tokens", "completion_tokens"}, func(k int) bool {
			if k == 0 {
				return s.Count(&r.promptTokens)
			}
			return s.Count(&r.completionTokens)
		})
	})
	if !ok {
		return reply{}, false
	}
	return r, s.End()
}

// choices reads the choices array: every element must decode as
// json.Unmarshal would decode it into wireReply's element; the first one's
// content is kept.
func choices(s *jsonscan.Scanner, r *reply) bool {
	return s.Array(func(i int) bool {
		r.choices = i + 1
		return s.Null() || fields(s, []string{"message"}, func(int) bool {
			return s.Null() || fields(s, []string{"content"}, func(int) bool {
				if s.Null() {
					return true
				}
				text, ok := s.Str()
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
func fields(s *jsonscan.Scanner, names []string, read func(k int) bool) bool {
	var seen uint8
	return s.Object(func(key []byte) bool {
		for k, name := range names {
			switch {
			case string(key) == name && seen&(1<<k) == 0:
				seen |= 1 << k
				return read(k)
			case bytes.EqualFold(key, []byte(name)):
				return false
			}
		}
		return s.Skip()
	})
}
