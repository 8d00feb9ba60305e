package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSkip holds the scanner's notion of JSON to encoding/json's: a text
// it reads whole as one value is valid JSON, and valid JSON it declines is
// nested deeper than it reads or has a key it leaves to encoding/json (an
// escape or a byte outside ASCII; the test allows those anywhere).
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,true,false,null,"x\u00e9\n"]}`, `[]`, `{}`, ` "s" `, `-0`, `01`, `1.`, `{"a" 1}`,
		`[1,]`, `"\ud800"`, "\"\xff\"", `{"a":{"b":{"c":[[[]]]}}}`, strings.Repeat("[", 201) + strings.Repeat("]", 201), `nul`, `1 2`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := New(b)
		ok := s.Skip() && s.End()
		valid := json.Valid(b)
		switch {
		case ok && !valid:
			t.Fatalf("%q: read as one value, but encoding/json finds it invalid", b)
		case valid && !ok && depth(b) <= maxDepth && !bytes.ContainsFunc(b, func(r rune) bool { return r == '\\' || r >= utf8.RuneSelf }):
			t.Fatalf("%q: valid JSON declined", b)
		}
	})
}

// depth is the deepest nesting of brackets outside strings in valid JSON.
func depth(b []byte) int {
	d, most, inStr := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '[' || c == '{'):
			d++
			most = max(most, d)
		case !inStr && (c == ']' || c == '}'):
			d--
		}
	}
	return most
}

// TestStrAndCount reads the values the envelope reader takes out.
func TestStrAndCount(t *testing.T) {
	s := New([]byte(` ["caf\u00e9", "plain", 42, 4.2, null] `))
	var got []any
	ok := s.Array(func(i int) bool {
		switch i {
		case 0, 1:
			v, ok := s.Str()
			got = append(got, v)
			return ok
		case 2:
			var n int
			ok := s.Count(&n)
			got = append(got, n)
			return ok
		case 3:
			var n int
			if s.Count(&n) {
				t.Errorf("Count read 4.2 as %d", n)
			}
			return s.Skip()
		}
		return s.Null()
	})
	if !ok || !s.End() {
		t.Fatalf("declined: %v", got)
	}
	if want := []any{"café", "plain", 42}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// FuzzStr holds Str to encoding/json: a string it reads is the string
// json.Unmarshal decodes from the same text; AppendStr appends what Str
// reads.
func FuzzStr(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"caf\u00e9 \u00E9"`, `"\ud83d\ude00 smile"`, `"\ud83d alone"`,
		`"\ude00\ud83d"`, `"\u12"`, "\"\xff\"", `"{\"reason\":\"x\",\"relations\":[{\"id\":\"a.b\",\"dir\":\"out\"}]}"`, `"\x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := New(b).Str()
		appended, appendOK := New(b).AppendStr([]byte("prefix "))
		if appendOK != ok || ok && string(appended) != "prefix "+got || !ok && string(appended) != "prefix " {
			t.Fatalf("%q: Str read %q (%v), AppendStr %q (%v)", b, got, ok, appended, appendOK)
		}
		if !ok {
			return
		}
		var want string
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%q: Str read %q, encoding/json fails: %v", b, got, err)
		}
		if got != want {
			t.Fatalf("%q: Str read %q, encoding/json %q", b, got, want)
		}
	})
}

// TestHex reads escape digits, and refuses what is not hex or does not
// fit a rune.
func TestHex(t *testing.T) {
	for in, want := range map[string]rune{"00e9": 0xe9, "D83D": 0xd83d, "0010FFFF": 0x10ffff, "7FFFFFFF": 0x7fffffff, "": 0} {
		if r, ok := Hex([]byte(in)); !ok || r != want {
			t.Errorf("Hex(%q) = %#x, %v; want %#x", in, r, ok, want)
		}
	}
	for _, in := range []string{"FFFFFFFF", "80000000", "123456789", "00g0", "-1", " 1"} {
		if r, ok := Hex([]byte(in)); ok {
			t.Errorf("Hex(%q) = %#x, want a refusal", in, r)
		}
	}
}
