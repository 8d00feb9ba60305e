package kgqatest

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/prompts"
)

// synonyms bridge the words of questions and of Freebase relation names,
// as a model's understanding of language would.
var synonyms = map[string][]string{
	"border": {"adjoin", "adjoins"}, "bordering": {"adjoin", "adjoins"},
	"serve": {"serves", "served"}, "contain": {"contains"}, "flow": {"basin"}, "rivers": {"basin", "river"},
	"won": {"championships", "champion"}, "championship": {"championships"}, "director": {"directed"},
	"born": {"birth"}, "stadium": {"arena", "stadium"}, "use": {"used"}, "ended": {"end"}, "started": {"start"},
	"released": {"release"}, "mountains": {"contains"}, "mountain": {"contains"},
}

// words are the lower-case words of s, weighted 1, and the words they
// bring to mind, weighted 3: understanding that "bordering" means
// "adjoins" counts for more than sharing the word "country".
func words(s string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.Fields(naming.Fold(s)) {
		if len(w) < 3 || naming.Stopword(w) {
			continue
		}
		out[w] = max(out[w], 1)
		out[strings.TrimSuffix(w, "s")] = max(out[strings.TrimSuffix(w, "s")], 1)
		if base, ok := strings.CutSuffix(w, "ies"); ok {
			out[base+"y"] = max(out[base+"y"], 1) // "countries" is about a "country"
		}
		for _, syn := range synonyms[w] {
			out[syn] = 3
		}
	}
	return out
}

func score(query map[string]int, s string) int {
	n := 0
	for w := range words(s) {
		n += query[w]
	}
	return n
}

// strip removes entity names from a subgoal: that the anchor is an
// airport says nothing about which relation answers the subgoal.
func strip(sub string, names []string) string {
	for _, n := range names {
		if n != "" {
			sub = strings.ReplaceAll(sub, n, " ")
		}
	}
	return sub
}

// offeredRelation is one relation a relations prompt offers.
type offeredRelation struct {
	id, dir string
	words   string // what the relation is about: its type's last part and its name
}

// offered reads the prompt's relation list (prompts.ReadRelationGroups);
// an untyped group lists readable names that end in their id ("shares
// border with (P47)").
func offered(user string) []offeredRelation {
	var out []offeredRelation
	groupsOut, groupsIn := prompts.ReadRelationGroups(user)
	for _, d := range []struct {
		dir    string
		groups []prompts.RelationGroup
	}{{"out", groupsOut}, {"in", groupsIn}} {
		for _, g := range d.groups {
			last := g.Type[strings.LastIndexByte(g.Type, '.')+1:]
			for _, name := range g.Names {
				if g.Type == "" {
					if id := propertyID.FindStringSubmatch(name); id != nil {
						out = append(out, offeredRelation{id[1], d.dir, name})
					}
					continue
				}
				out = append(out, offeredRelation{g.Type + "." + name, d.dir, last + " " + name})
			}
		}
	}
	return out
}

func (m *Model) relations(user string) llmtest.Reply {
	var anchors []string
	for _, a := range strings.Split(find(anchorsLine, user), "; ") {
		anchors = append(anchors, termName(a))
	}
	sub := strip(find(subgoalLine, user), anchors)
	if a := find(attrLine, user); a != "" {
		sub = a
	}
	q := words(sub)
	type cand struct {
		id, dir string
		s       int
	}
	var cs []cand
	for _, o := range offered(user) {
		cs = append(cs, cand{o.id, o.dir, score(q, o.words)})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].s > cs[j].s })
	if find(attrLine, user) != "" && (len(cs) == 0 || cs[0].s == 0) {
		// No offered relation carries the attribute: keep none.
		return llmtest.JSON(map[string]any{"relations": []any{}, "reason": "scripted: no relation carries the attribute"})
	}
	limit := 3
	if n := find(maxLine, user); n != "" {
		_ = json.Unmarshal([]byte(n), &limit)
	}
	var out []map[string]string
	for i, c := range cs {
		// Keep the best match, and others nearly as good, up to the limit.
		if len(out) < limit && (i == 0 || (c.s > 0 && 2*c.s >= cs[0].s+1)) {
			out = append(out, map[string]string{"id": c.id, "dir": c.dir})
		}
	}
	return llmtest.JSON(map[string]any{"relations": out, "reason": "scripted"})
}

func (m *Model) prune(user string) llmtest.Reply {
	k := 3
	if n := find(maxLine, user); n != "" {
		_ = json.Unmarshal([]byte(n), &k)
	}
	q := words(find(subgoalLine, user))
	type cand struct{ n, s int }
	var cs []cand
	for i, f := range factLine.FindAllStringSubmatch(user, -1) {
		cs = append(cs, cand{i + 1, score(q, f[4])})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].s > cs[j].s })
	keep := []int{}
	for _, c := range cs {
		if len(keep) < k {
			keep = append(keep, c.n)
		}
	}
	return llmtest.JSON(map[string]any{"keep": keep})
}

// refine answers the subgoal from the facts whose relation fits it best;
// with none fitting, the evidence is misaligned.
func (m *Model) refine(user string, fused bool) llmtest.Reply {
	sub := find(subgoalLine, user)
	facts := factLine.FindAllStringSubmatch(user, -1)
	var named []string
	for _, f := range facts {
		named = append(named, termName(f[2]), termName(f[4]))
	}
	q := words(strip(sub, named))
	best := 0
	for _, f := range facts {
		best = max(best, score(q, f[3]))
	}
	rep := map[string]any{"aligned": false, "answer": find(tentLine, user), "entities": []string{}, "used_facts": []int{}, "reason": "the facts are about something else"}
	if best > 0 && !m.distrusts(sub) {
		var ents, names []string
		var used []int
		for _, f := range facts {
			if score(q, f[3]) != best {
				continue
			}
			side := f[4]
			if !strings.Contains(sub, termName(f[2])) && strings.Contains(sub, termName(f[4])) {
				side = f[2]
			}
			if q["country"] > 0 && !m.countries[termName(side)] {
				continue // it knows a region is not a country
			}
			if id := find(idRef, side); id != "" {
				ents = append(ents, id)
			} else {
				ents = append(ents, side)
			}
			names = append(names, termName(side))
			var n int
			_ = json.Unmarshal([]byte(f[1]), &n)
			used = append(used, n)
		}
		rep = map[string]any{"aligned": true, "answer": strings.Join(dedupe(names), ", "), "entities": dedupe(ents), "used_facts": used, "reason": "scripted"}
	}
	if fused {
		ok, ans, ents := m.recognise(user)
		rep["sufficient"], rep["final_answer"], rep["final_entities"] = ok, ans, ents
	}
	return llmtest.JSON(rep)
}

// recognise reports whether the prompt's facts show an answer the model
// knows for the question.
func (m *Model) recognise(user string) (bool, string, []string) {
	want := m.answers[find(questionLine, user)]
	for _, f := range factLine.FindAllStringSubmatch(user, -1) {
		for _, side := range []string{f[2], f[4]} {
			for _, w := range want {
				if termName(side) == w {
					return true, w, []string{find(idRef, side)}
				}
			}
		}
	}
	return false, "", []string{}
}

// termName is the name part of a rendered term.
func termName(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.LastIndex(t, " ["); i > 0 && strings.HasSuffix(t, "]") {
		return t[:i]
	}
	return strings.Trim(t, "\"")
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// distrusts reports whether the model misjudges the evidence of subgoal
// sub (see Distrust).
func (m *Model) distrusts(sub string) bool {
	sub = strings.ToLower(sub)
	for _, p := range m.distrust {
		if strings.Contains(sub, p) {
			return true
		}
	}
	return false
}
