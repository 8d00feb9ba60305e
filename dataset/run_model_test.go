package dataset

// A scripted reasoner and planner for the end-to-end evaluation tests,
// served over HTTP by llmtest. It answers each stage by reading the prompt
// as a competent model would: the demo questions' gold plans, relations
// picked from those offered by word overlap with the subgoal, answers taken
// from the facts listed. Its parametric knowledge is deliberately wrong
// (every tentative answer is "Atlantis"), so every right final answer is
// one that refinement fixed.

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/refine"
)

type evalModel struct {
	plans map[string]json.RawMessage
	// panicOn makes the plan reply for this question an HTTP 400, so the
	// question fails (the runner must record it and go on).
	failOn string
	calls  atomic.Int64
}

func newEvalModel() *evalModel {
	m := &evalModel{plans: map[string]json.RawMessage{}}
	for _, q := range demokg.FreebaseQuestions() {
		m.plans[q.Question] = q.Plan
	}
	return m
}

var (
	mSubgoal = regexp.MustCompile(`(?m)^Current subgoal: (.*)$`)
	mOffered = regexp.MustCompile(`(?m)^- (\S+) \((out|in)\): (.*) \[.*\]$`)
	mMax     = regexp.MustCompile(`(?m)^Keep at most (\d+)`)
	mAttr    = regexp.MustCompile(`(?m)by the attribute "([^"]*)"`)
	mFact    = regexp.MustCompile(`(?m)^[FC](\d+)\. (.*) -\[(.*)\]-> (.*)$`)
	mIDRef   = regexp.MustCompile(`\[([a-z]\.[A-Za-z0-9_]+)\]$`)
)

func (m *evalModel) handler(req openai.ChatCompletionRequest) llmtest.Reply {
	m.calls.Add(1)
	user := llmtest.LastUser(req)
	switch llmtest.StageOf(req) {
	case "plan", "plan_fewshot":
		q := strings.TrimSpace(strings.TrimPrefix(user, "Question: "))
		if m.failOn != "" && q == m.failOn {
			return llmtest.Error(400, "scripted: this request is refused")
		}
		if p, ok := m.plans[q]; ok {
			return llmtest.Reply{Content: string(p)}
		}
		return llmtest.JSON(map[string]any{"version": 1, "subgoals": []map[string]any{{"id": "s1", "text": q, "op": "find"}}})
	case "mentions":
		return llmtest.JSON(map[string]any{"mentions": []string{}})
	case "tentative":
		return llmtest.JSON(map[string]any{"answer": "Atlantis", "entities": []string{"Atlantis"}})
	case "relations":
		return m.relations(user)
	case "prune":
		return m.prune(user)
	case "refine":
		rep := m.refine(user)
		if strings.Contains(req.Messages[0].Content, "Also judge whether the whole question") {
			rep["sufficient"], rep["final_answer"], rep["final_entities"] = false, "", []string{}
		}
		return llmtest.JSON(rep)
	case "sufficiency":
		return llmtest.JSON(map[string]any{"sufficient": false, "answer": "", "entities": []string{}, "reason": "scripted"})
	case "final":
		return llmtest.JSON(map[string]any{"answer": "unknown", "entities": []string{}})
	case "select":
		return llmtest.JSON(map[string]any{"entities": []string{}, "reason": "no fact settles it"})
	}
	return llmtest.Error(500, "scripted model: unknown stage")
}

func mFind(re *regexp.Regexp, s string) string {
	if x := re.FindStringSubmatch(s); x != nil {
		return strings.TrimSpace(x[1])
	}
	return ""
}

var mSynonyms = map[string][]string{
	"border": {"adjoin", "adjoins"}, "bordering": {"adjoin", "adjoins"},
	"serve": {"serves"}, "contain": {"contains"}, "flow": {"basin"}, "rivers": {"basin", "river"},
	"won": {"championships"}, "championship": {"championships"}, "director": {"directed"},
	"born": {"birth"}, "stadium": {"arena", "stadium"}, "use": {"used"}, "ended": {"end"}, "started": {"start"},
	"released": {"release"}, "mountains": {"contains"}, "mountain": {"contains"},
}

var mStop = map[string]bool{"the": true, "and": true, "what": true, "which": true, "who": true, "that": true,
	"this": true, "with": true, "from": true, "does": true, "did": true, "has": true, "have": true, "type": true,
	"both": true, "all": true, "their": true, "its": true, "find": true, "for": true, "are": true, "was": true}

func mWords(s string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.Fields(refine.Normalize(strings.NewReplacer("_", " ", ".", " ").Replace(s))) {
		if len(w) < 3 || mStop[w] {
			continue
		}
		out[w] = max(out[w], 1)
		out[strings.TrimSuffix(w, "s")] = max(out[strings.TrimSuffix(w, "s")], 1)
		for _, syn := range mSynonyms[w] {
			out[syn] = 3
		}
	}
	return out
}

func mScore(q map[string]int, s string) int {
	n := 0
	for w := range mWords(s) {
		n += q[w]
	}
	return n
}

func (m *evalModel) relations(user string) llmtest.Reply {
	sub := mFind(mSubgoal, user)
	if a := mFind(mAttr, user); a != "" {
		sub = a
	}
	q := mWords(sub)
	type cand struct {
		id, dir string
		s       int
	}
	var cs []cand
	for _, o := range mOffered.FindAllStringSubmatch(user, -1) {
		cs = append(cs, cand{o[1], o[2], mScore(q, o[3])})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].s > cs[j].s })
	out := []map[string]string{}
	for i, c := range cs {
		if i == 0 || (c.s > 0 && c.s == cs[0].s) {
			out = append(out, map[string]string{"id": c.id, "dir": c.dir})
		}
	}
	return llmtest.JSON(map[string]any{"relations": out, "reason": "scripted"})
}

func (m *evalModel) prune(user string) llmtest.Reply {
	k := 3
	if n := mFind(mMax, user); n != "" {
		_ = json.Unmarshal([]byte(n), &k)
	}
	q := mWords(mFind(mSubgoal, user))
	type cand struct{ n, s int }
	var cs []cand
	for i, f := range mFact.FindAllStringSubmatch(user, -1) {
		cs = append(cs, cand{i + 1, mScore(q, f[4])})
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

func (m *evalModel) refine(user string) map[string]any {
	sub := mFind(mSubgoal, user)
	q := mWords(sub)
	facts := mFact.FindAllStringSubmatch(user, -1)
	best := 0
	for _, f := range facts {
		best = max(best, mScore(q, f[3]))
	}
	if best == 0 {
		return map[string]any{"aligned": false, "answer": "Atlantis", "entities": []string{}, "used_facts": []int{}, "reason": "the facts are about something else"}
	}
	var ents, names []string
	var used []int
	for _, f := range facts {
		if mScore(q, f[3]) != best {
			continue
		}
		side := f[4]
		if !strings.Contains(sub, mTermName(f[2])) && strings.Contains(sub, mTermName(f[4])) {
			side = f[2]
		}
		if id := mFind(mIDRef, side); id != "" {
			ents = append(ents, id)
		} else {
			ents = append(ents, side)
		}
		names = append(names, mTermName(side))
		var n int
		_ = json.Unmarshal([]byte(f[1]), &n)
		used = append(used, n)
	}
	return map[string]any{"aligned": true, "answer": strings.Join(mDedupe(names), ", "), "entities": mDedupe(ents), "used_facts": used, "reason": "scripted"}
}

func mTermName(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.LastIndex(t, " ["); i > 0 && strings.HasSuffix(t, "]") {
		return t[:i]
	}
	return strings.Trim(t, "\"")
}

func mDedupe(ss []string) []string {
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
