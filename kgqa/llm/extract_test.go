package llm

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkExtractJSONAdversarial measures ExtractJSON on replies with no
// JSON value in them, where every bracket is a candidate start: runs of
// unclosed braces, a run closed by the wrong bracket, and braces
// alternating with quotes (so that half of them sit inside a string as
// seen from the other half).
func BenchmarkExtractJSONAdversarial(b *testing.B) {
	for _, size := range []int{16 << 10, 64 << 10, 1 << 20} {
		for _, bc := range []struct{ name, reply string }{
			{"unclosed", strings.Repeat("{", size)},
			{"mismatched", strings.Repeat("[", size-1) + "}"},
			{"quoted", strings.Repeat(`{"`, size/2)},
		} {
			b.Run(bc.name+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(len(bc.reply)))
				for b.Loop() {
					if _, err := ExtractJSON(bc.reply); err == nil {
						b.Fatal("found JSON in a reply without any")
					}
				}
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}

// quadraticFirstBalanced is firstBalanced as it was before scans that
// fail settled the brackets left open: every bracket scanned afresh. It is
// the reference of TestFirstBalancedMatchesFreshScans.
func quadraticFirstBalanced(s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		var stack []byte
		inStr, esc, end := false, false, -1
	scan:
		for k := i; k < len(s); k++ {
			ch := s[k]
			if inStr {
				switch {
				case esc:
					esc = false
				case ch == '\\':
					esc = true
				case ch == '"':
					inStr = false
				}
				continue
			}
			switch ch {
			case '"':
				inStr = true
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != ch {
					break scan
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					end = k + 1
					break scan
				}
			}
		}
		if end > 0 && json.Valid([]byte(s[i:end])) {
			return []byte(s[i:end]), true
		}
	}
	return nil, false
}

// Skipping the brackets a failed scan left open finds the same value as
// scanning from every bracket, on random strings of JSON punctuation.
func TestFirstBalancedMatchesFreshScans(t *testing.T) {
	const alphabet = `{}[]"\ 1,:a`
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 50000 {
		b := make([]byte, 1+rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		want, wantOK := quadraticFirstBalanced(s)
		got, gotOK := firstBalanced(s)
		if gotOK != wantOK || string(got) != string(want) {
			t.Fatalf("case %d %q: got %q %v, want %q %v", n, s, got, gotOK, want, wantOK)
		}
	}
}
