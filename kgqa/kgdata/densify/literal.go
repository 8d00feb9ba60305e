package densify

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
)

const xsd = "http://www.w3.org/2001/XMLSchema#"

// The lexical forms Freebase writes type.datetime values in.
var dateForms = []string{"date", "gYear", "gYearMonth", "dateTime"}

// hash64 is a stable hash of the parts, the seed of every per-node draw.
func hash64(seed uint64, parts ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(seed >> (8 * i))
	}
	_, _ = h.Write(b[:])
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

func newRand(seed uint64, parts ...string) *rand.Rand {
	h := hash64(seed, parts...)
	return rand.New(rand.NewPCG(h, h^0x9e3779b97f4a7c15))
}

// literal returns a value of p's literal kind in N-Triples form. Dates
// take the form the property mostly uses (one per property, as in
// Freebase, where a birth date is a day and a founding date often a year).
func literal(r *rand.Rand, seed uint64, p *Property) string {
	switch p.Range {
	case KindDatetime:
		form := dateForms[hash64(seed, p.ID)%uint64(len(dateForms))]
		if r.IntN(5) == 0 {
			form = dateForms[r.IntN(len(dateForms))]
		}
		return dateLiteral(r, form)
	case KindInt:
		return fmt.Sprintf(`"%d"^^<%sint>`, int64(math.Exp(r.Float64()*math.Log(1e7))), xsd)
	case KindFloat:
		return fmt.Sprintf(`"%.3f"^^<%sfloat>`, math.Exp(r.Float64()*math.Log(1e5))/10, xsd)
	case KindBoolean:
		return fmt.Sprintf(`"%t"^^<%sboolean>`, r.IntN(2) == 0, xsd)
	case KindText:
		return `"` + phrase(r, 2+r.IntN(4)) + `"@en`
	default:
		return `"` + strings.ToLower(word(r)) + `"`
	}
}

// dateLiteral draws a date between 1800 and 2020, recent years likelier.
func dateLiteral(r *rand.Rand, form string) string {
	u := r.Float64()
	y := 2020 - int(220*u*u)
	m, d := 1+r.IntN(12), 1+r.IntN(28)
	var lex string
	switch form {
	case "gYear":
		lex = fmt.Sprintf("%04d", y)
	case "gYearMonth":
		lex = fmt.Sprintf("%04d-%02d", y, m)
	case "dateTime":
		lex = fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:00", y, m, d, r.IntN(24), r.IntN(60))
	default:
		lex = fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	}
	return `"` + lex + `"^^<` + xsd + form + `>`
}

var (
	onsets = []string{"b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr", "r", "s", "sh", "st", "t", "tr", "v", "w", "z"}
	vowels = []string{"a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y"}
	codas  = []string{"", "", "n", "r", "l", "s", "th", "nd", "rk", "x", "m", "ck"}
)

// word is a pronounceable made-up word, capitalised.
func word(r *rand.Rand) string {
	var b strings.Builder
	for i, n := 0, 2+r.IntN(2); i < n; i++ {
		b.WriteString(onsets[r.IntN(len(onsets))])
		b.WriteString(vowels[r.IntN(len(vowels))])
		if i == n-1 || r.IntN(3) == 0 {
			b.WriteString(codas[r.IntN(len(codas))])
		}
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

func phrase(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = word(r)
		if i > 0 {
			ws[i] = strings.ToLower(ws[i])
		}
	}
	return strings.Join(ws, " ")
}

// name makes a synthetic entity's name: two words for people and works,
// one or two for the rest, always made up so it names no real thing.
func name(r *rand.Rand, typ string) string {
	if strings.HasPrefix(typ, "people.") || strings.Contains(typ, "person") || r.IntN(3) == 0 {
		return word(r) + " " + word(r)
	}
	return word(r)
}
