package oracle

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/parog/parog-go/kgqa/prompts"
)

// The semantic errors the oracle makes on purpose: the reply stays well
// formed JSON of the stage's schema, names only what was offered, and is
// wrong in what it says, as the costly errors of real models are. Plan
// errors are in noise_plan.go.
const (
	// NoiseWrongRelation chooses, instead of the gold relation, the
	// offered relation nearest to it by words.
	NoiseWrongRelation = "wrong_relation"
	// NoiseWrongEntity answers with another candidate of the same kind:
	// a term the prompt shows in the same place of a fact along the same
	// relation (or another member of the same set), not chosen; in a
	// prune reply it keeps such a candidate line instead of the first one
	// kept.
	NoiseWrongEntity = "wrong_entity"
	// NoisePrematureSufficient judges the question answerable when it is
	// not, answering with the candidates in hand.
	NoisePrematureSufficient = "premature_sufficient"
	// NoiseAlignedAsMisaligned judges aligned facts misaligned and keeps
	// the tentative answer.
	NoiseAlignedAsMisaligned = "aligned_as_misaligned"
	// NoiseMisalignedAsAligned judges facts off the subgoal aligned and
	// answers from them.
	NoiseMisalignedAsAligned = "misaligned_as_aligned"
	// NoiseOverconfidentTentative gives a wrong tentative answer with
	// confidence where the model does not know or knows better.
	NoiseOverconfidentTentative = "overconfident_tentative"
)

// SemanticKinds lists the semantic family, in a fixed order.
var SemanticKinds = []string{NoiseWrongRelation, NoiseWrongEntity, NoisePlanDroppedConstraint, NoisePlanMergedSubgoals,
	NoisePlanReversedDirection, NoisePlanMissingDependency, NoisePrematureSufficient, NoiseAlignedAsMisaligned,
	NoiseMisalignedAsAligned, NoiseOverconfidentTentative}

var semanticTable = map[string]noiseKind{
	NoiseWrongRelation: {func(d *draft) bool { _, ok := nearestRelation(d); return ok }, stopped(func(_ *rand.Rand, d *draft) string {
		alt, _ := nearestRelation(d)
		out := copyObj(d.obj)
		rs := slices.Clone(out["relations"].([]map[string]string))
		rs[0] = alt
		out["relations"] = rs
		return marshal(out)
	})},
	NoiseWrongEntity: {func(d *draft) bool { return len(sameKind(d)) > 0 || len(prunedAlternatives(d)) > 0 }, stopped(func(r *rand.Rand, d *draft) string {
		if d.stage == prompts.Prune {
			alts := prunedAlternatives(d)
			out := copyObj(d.obj)
			keep := slices.Clone(out["keep"].([]int))
			keep[0] = alts[r.IntN(len(alts))]
			out["keep"] = keep
			return marshal(out)
		}
		alts := sameKind(d)
		return marshal(swapEntity(d, alts[r.IntN(len(alts))]))
	})},
	NoisePrematureSufficient: {func(d *draft) bool { _, _, ok := premature(d); return ok }, stopped(func(_ *rand.Rand, d *draft) string {
		refs, labels, _ := premature(d)
		out := copyObj(d.obj)
		if d.stage == prompts.Refine {
			out["sufficient"], out["final_answer"], out["final_entities"] = true, strings.Join(labels, ", "), refs
		} else {
			out["sufficient"], out["answer"], out["entities"] = true, strings.Join(labels, ", "), refs
		}
		return marshal(out)
	})},
	NoiseAlignedAsMisaligned: {func(d *draft) bool { return d.stage == prompts.Refine && d.obj["aligned"] == true },
		stopped(func(_ *rand.Rand, d *draft) string {
			out := copyObj(d.obj)
			out["aligned"], out["answer"], out["entities"], out["used_facts"] = false, d.t.tentativeText(), []string{}, []int{}
			out["reason"] = "the facts are not about what the subgoal asks"
			return marshal(out)
		})},
	NoiseMisalignedAsAligned: {func(d *draft) bool { _, ok := offPath(d); return ok }, stopped(func(_ *rand.Rand, d *draft) string {
		f, _ := offPath(d)
		x := f.right
		if d.t.isTopic(x) {
			x = f.left
		}
		out := copyObj(d.obj)
		out["aligned"], out["answer"], out["entities"], out["used_facts"] = true, x.label(), []string{x.ref()}, []int{f.n}
		out["reason"] = "the facts answer the subgoal"
		return marshal(out)
	})},
	NoiseOverconfidentTentative: {func(d *draft) bool {
		es, _ := d.obj["entities"].([]string)
		return d.stage == prompts.Tentative && !slices.Contains(es, d.t.wrongName())
	}, stopped(func(_ *rand.Rand, d *draft) string {
		w := d.t.wrongName()
		return marshal(map[string]any{"answer": w, "entities": []string{w}})
	})},
}

// nearestRelation is the offered relation, not chosen, that shares most
// words with the first relation chosen (ties: same direction first, then
// by id), and whether there is one.
func nearestRelation(d *draft) (map[string]string, bool) {
	if !choosesRelations(d) {
		return nil, false
	}
	chosen := d.obj["relations"].([]map[string]string)
	taken := map[string]bool{}
	for _, c := range chosen {
		taken[c["id"]+" "+c["dir"]] = true
	}
	gold := chosen[0]
	var offered []string
	for k := range offeredRelations(d.t.user) {
		if !taken[k] {
			offered = append(offered, k)
		}
	}
	if len(offered) == 0 {
		return nil, false
	}
	sort.Strings(offered)
	score := func(k string) float64 {
		id, dir, _ := strings.Cut(k, " ")
		s := wordOverlap(gold["id"], id)
		if dir == gold["dir"] {
			s += 0.001
		}
		return s
	}
	best := offered[0]
	for _, k := range offered[1:] {
		if score(k) > score(best) {
			best = k
		}
	}
	id, dir, _ := strings.Cut(best, " ")
	return map[string]string{"id": id, "dir": dir}, true
}

// wordOverlap is the Jaccard similarity of two relation ids' words.
func wordOverlap(a, b string) float64 {
	words := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '_' }) {
			out[w] = true
		}
		return out
	}
	wa, wb := words(a), words(b)
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// answerKey is the field of a reply that holds its answer's entities.
func answerKey(d *draft) string {
	switch d.stage {
	case prompts.Refine, prompts.Select, prompts.Sufficiency, prompts.Final:
		return "entities"
	}
	return ""
}

// sameKind are the terms of the prompt of the same kind as the reply's
// first answer entity and not in the reply: in a select prompt the other
// members; elsewhere the terms in the same place of a fact along the
// same relations.
func sameKind(d *draft) []term {
	key := answerKey(d)
	es, _ := d.obj[key].([]string)
	if key == "" || len(es) == 0 {
		return nil
	}
	in := map[string]bool{}
	for _, e := range es {
		in[e] = true
	}
	var out []term
	seen := map[string]bool{}
	add := func(x term) {
		if !in[x.ref()] && !seen[x.ref()] && x.ref() != "" {
			seen[x.ref()] = true
			out = append(out, x)
		}
	}
	if d.stage == prompts.Select {
		for _, x := range members(d.t.user) {
			add(x)
		}
		return out
	}
	facts := parseFacts(factLine, d.t.user)
	for _, f := range facts {
		for side, x := range []term{f.left, f.right} {
			if x.ref() != es[0] {
				continue
			}
			for _, g := range facts {
				if slices.Equal(g.rels, f.rels) {
					add([]term{g.left, g.right}[side])
				}
			}
		}
	}
	return out
}

// prunedAlternatives are, for a prune reply of the answer subgoal whose
// first line kept reaches a gold answer, the numbers of the candidate
// lines along the same relations that reach none and were not kept: the
// same kind of entity, reached the same way, and not the right one.
func prunedAlternatives(d *draft) []int {
	keep, _ := d.obj["keep"].([]int)
	if d.stage != prompts.Prune || len(keep) == 0 || !d.t.isAnswer {
		return nil
	}
	gold := func(f fact) bool { return d.t.isGold(f.left) || d.t.isGold(f.right) }
	cands := parseFacts(candLine, d.t.user)
	i := slices.IndexFunc(cands, func(f fact) bool { return f.n == keep[0] })
	if i < 0 || !gold(cands[i]) {
		return nil
	}
	var out []int
	for _, g := range cands {
		if slices.Equal(g.rels, cands[i].rels) && !slices.Contains(keep, g.n) && !gold(g) {
			out = append(out, g.n)
		}
	}
	return out
}

// swapEntity replaces the reply's first answer entity by alt, in its
// entity list and in its answer text.
func swapEntity(d *draft, alt term) map[string]any {
	out := copyObj(d.obj)
	key := answerKey(d)
	es := slices.Clone(out[key].([]string))
	old := es[0]
	es[0] = alt.ref()
	out[key] = es
	oldLabel := old
	for _, f := range parseFacts(factLine, d.t.user) {
		for _, x := range []term{f.left, f.right} {
			if x.ref() == old {
				oldLabel = x.label()
			}
		}
	}
	if a, ok := out["answer"].(string); ok {
		if strings.Contains(a, oldLabel) {
			out["answer"] = strings.Replace(a, oldLabel, alt.label(), 1)
		} else {
			out["answer"] = alt.label()
		}
	}
	return out
}

// premature is the answer of a premature "sufficient": the candidates in
// hand (the current subgoal's in a folded refine call, else the last
// complete result set shown), when the reply says "not sufficient".
func premature(d *draft) (refs, labels []string, ok bool) {
	if d.obj["sufficient"] != false {
		return nil, nil, false
	}
	if d.stage == prompts.Refine {
		es, _ := d.obj["entities"].([]string)
		a, _ := d.obj["answer"].(string)
		return es, []string{a}, len(es) > 0 && a != ""
	}
	if d.stage != prompts.Sufficiency {
		return nil, nil, false
	}
	_, rest, found := strings.Cut(d.t.user, "Answered so far:")
	if !found {
		return nil, nil, false
	}
	rest, _, _ = strings.Cut(rest, "\nFacts:")
	var last []string
	for _, m := range knownSetLine.FindAllStringSubmatch(rest, -1) {
		if v := strings.TrimSpace(m[2]); !strings.HasSuffix(v, "...") && v != "" {
			last = strings.Split(v, "; ")
		}
	}
	return last, last, len(last) > 0
}

// offPath is the first fact of a refine prompt judged misaligned, which
// a misaligned-as-aligned error answers from.
func offPath(d *draft) (fact, bool) {
	if d.stage != prompts.Refine || d.obj["aligned"] != false {
		return fact{}, false
	}
	facts := parseFacts(factLine, d.t.user)
	if len(facts) == 0 {
		return fact{}, false
	}
	return facts[0], true
}

// isTopic reports whether x is one of the question's topic entities.
func (t *turn) isTopic(x term) bool {
	for _, e := range t.q.q.TopicEntities {
		if x.id != "" && x.id == e.ID {
			return true
		}
	}
	return false
}
