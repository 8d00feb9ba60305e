package refine

import (
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa"
)

// Resolve maps the entity references in a model's reply to terms of the
// evidence. A reference may be an id ("m.0345h"), a rendered term
// ("Germany [m.0345h]", "[m.0345h]"), a literal value (quoted or not), or
// a name that names exactly one term of the evidence. References that match
// nothing in the evidence are returned as rejected: a model cannot
// introduce an entity that was not offered.
func Resolve(facts []kgqa.Fact, refs []string) (terms []kgqa.Term, rejected []string) {
	byKey := map[string]kgqa.Term{}
	byName := map[string][]kgqa.Term{}
	add := func(t kgqa.Term) {
		k := t.Key()
		if _, ok := byKey[k]; ok {
			return
		}
		byKey[k] = t
		if t.IsEntity() {
			byKey["id:"+t.ID] = t
		} else {
			byKey["lit:"+t.Name] = t
		}
		if t.Name != "" {
			n := naming.Fold(t.Name)
			byName[n] = append(byName[n], t)
		}
	}
	for _, f := range facts {
		add(f.Head)
		add(f.Tail)
	}
	seen := map[string]bool{}
	for _, ref := range refs {
		t, ok := lookup(ref, byKey, byName)
		if !ok {
			rejected = append(rejected, ref)
			continue
		}
		if !seen[t.Key()] {
			seen[t.Key()] = true
			terms = append(terms, t)
		}
	}
	return terms, rejected
}

func lookup(ref string, byKey map[string]kgqa.Term, byName map[string][]kgqa.Term) (kgqa.Term, bool) {
	ref = strings.TrimSpace(ref)
	if i, j := strings.LastIndexByte(ref, '['), strings.LastIndexByte(ref, ']'); i >= 0 && j > i {
		if t, ok := byKey["id:"+strings.TrimSpace(ref[i+1:j])]; ok {
			return t, true
		}
	}
	if t, ok := byKey["id:"+ref]; ok {
		return t, true
	}
	lit := ref
	if i := strings.Index(lit, "\" ("); i > 0 && strings.HasPrefix(lit, "\"") {
		lit = lit[:i+1]
	}
	lit = strings.Trim(lit, "\"")
	if t, ok := byKey["lit:"+lit]; ok {
		return t, true
	}
	if ts := byName[naming.Fold(ref)]; len(ts) == 1 {
		return ts[0], true
	}
	return kgqa.Term{}, false
}
