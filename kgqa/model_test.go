package kgqa

// The scripted reasoner and planner used by the engine tests. It answers
// every stage by reading the prompt it is sent, the way a competent model
// would: it picks relations from the ones offered, answers a subgoal from
// the facts listed, and says "not aligned" when the facts are about
// something else. What it "knows" (its parametric knowledge) is explicit
// per test, so a test can give it a wrong belief and see refinement fix it.

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/refine"
	openai "github.com/sashabaranov/go-openai"
)

// model is the scripted model's knowledge and habits.
type model struct {
	// plans are the plans it gives, by question (the demo questions' gold
	// plans are added by newModel: a well-trained planner).
	plans map[string]*Plan
	// beliefs are its tentative answers, by a phrase of the subgoal text.
	beliefs map[string][]string
	// answers are final answers it recognises when the evidence shows
	// them, by question; only then does it judge a question answerable
	// early.
	answers map[string][]string
	// mentions are names it recognises as entity mentions.
	mentions []string
	// countries are the names it knows to be countries.
	countries map[string]bool

	mu    sync.Mutex
	calls map[string]int // calls per stage
}

func newModel() *model {
	m := &model{plans: map[string]*Plan{}, beliefs: map[string][]string{}, answers: map[string][]string{}, calls: map[string]int{}, countries: map[string]bool{}}
	for _, c := range strings.Split("Germany,Netherlands,France,Italy,Spain,Luxembourg,Suriname,Switzerland,Andorra,Monaco,Belgium,Brazil,Austria,Liechtenstein,Poland,Denmark,Czech Republic,Portugal,Slovenia,San Marino,Vatican City", ",") {
		m.countries[c] = true
	}
	for _, q := range demokg.FreebaseQuestions() {
		p, err := ParsePlan(q.Plan)
		if err != nil {
			panic(err)
		}
		m.plans[q.Question] = p
		for _, t := range q.TopicEntities {
			m.mentions = append(m.mentions, t.Name)
		}
	}
	return m
}

func (m *model) count(stage string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[stage]
}

// handler answers a chat completion by stage.
func (m *model) handler(req openai.ChatCompletionRequest) llmtest.Reply {
	stage := llmtest.StageOf(req)
	m.mu.Lock()
	m.calls[stage]++
	m.mu.Unlock()
	// The task is in the first user message; a repair turn only repeats it.
	user := ""
	for _, msg := range req.Messages {
		if msg.Role == openai.ChatMessageRoleUser {
			user = msg.Content
			break
		}
	}
	switch stage {
	case "plan", "plan_fewshot":
		return m.plan(user)
	case "mentions":
		return m.mention(user)
	case "tentative":
		return m.tentative(user)
	case "relations":
		return m.relations(user)
	case "prune":
		return m.prune(user)
	case "refine":
		return m.refine(user, strings.Contains(req.Messages[0].Content, "Also judge whether the whole question"))
	case "sufficiency":
		ok, ans, ents := m.recognise(user)
		return llmtest.JSON(map[string]any{"sufficient": ok, "answer": ans, "entities": ents, "reason": "scripted"})
	case "final":
		_, ans, ents := m.recognise(user)
		if ans == "" {
			ans = "unknown"
		}
		return llmtest.JSON(map[string]any{"answer": ans, "entities": ents})
	case "select":
		return llmtest.JSON(map[string]any{"entities": []string{}, "reason": "no fact settles it"})
	}
	return llmtest.Error(500, "scripted model: unknown stage "+stage)
}

var (
	questionLine = regexp.MustCompile(`(?m)^Question: (.*)$`)
	subgoalLine  = regexp.MustCompile(`(?m)^Current subgoal: (.*)$`)
	tentLine     = regexp.MustCompile(`(?m)^Tentative answer: (.*)$`)
	offeredLine  = regexp.MustCompile(`(?m)^- (\S+) \((out|in)\): (.*) \[.*\]$`)
	maxLine      = regexp.MustCompile(`(?m)^Keep at most (\d+)`)
	attrLine     = regexp.MustCompile(`(?m)by the attribute "([^"]*)"`)
	factLine     = regexp.MustCompile(`(?m)^[FC](\d+)\. (.*) -\[(.*)\]-> (.*)$`)
	idRef        = regexp.MustCompile(`\[([a-z]\.[A-Za-z0-9_]+)\]$`)
)

func find(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

func (m *model) plan(user string) llmtest.Reply {
	q := strings.TrimSpace(strings.TrimPrefix(user, "Question: "))
	if p := m.plans[q]; p != nil {
		return llmtest.JSON(p)
	}
	return llmtest.JSON(Plan{Version: 1, Subgoals: []Subgoal{{ID: "s1", Text: q, Op: OpFind}}})
}

func (m *model) mention(user string) llmtest.Reply {
	q := strings.ToLower(user)
	found := []string{}
	for _, n := range m.mentions {
		if i := strings.Index(q, strings.ToLower(n)); i >= 0 {
			found = append(found, user[i:i+len(n)])
		}
	}
	return llmtest.JSON(map[string]any{"mentions": dedupe(found)})
}

func (m *model) tentative(user string) llmtest.Reply {
	sub := strings.ToLower(find(subgoalLine, user))
	for phrase, names := range m.beliefs {
		if strings.Contains(sub, strings.ToLower(phrase)) {
			return llmtest.JSON(map[string]any{"answer": strings.Join(names, ", "), "entities": names})
		}
	}
	return llmtest.JSON(map[string]any{"answer": "I am not sure.", "entities": []string{}})
}

// synonyms bridge the words of questions and of Freebase relation names,
// as a model's understanding of language would.
var synonyms = map[string][]string{
	"border": {"adjoin", "adjoins"}, "bordering": {"adjoin", "adjoins"},
	"serve": {"serves"}, "contain": {"contains"}, "flow": {"basin"}, "rivers": {"basin", "river"},
	"won": {"championships", "champion"}, "championship": {"championships"}, "director": {"directed"},
	"born": {"birth"}, "stadium": {"arena", "stadium"}, "use": {"used"}, "ended": {"end"}, "started": {"start"},
	"released": {"release"}, "mountains": {"contains"}, "mountain": {"contains"},
}

// words are the lower-case words of s, weighted 1, and the words they
// bring to mind, weighted 3: understanding that "bordering" means
// "adjoins" counts for more than sharing the word "country".
func words(s string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.Fields(refine.Normalize(strings.NewReplacer("_", " ", ".", " ").Replace(s))) {
		if len(w) < 3 || stopwords[w] {
			continue
		}
		out[w] = max(out[w], 1)
		out[strings.TrimSuffix(w, "s")] = max(out[strings.TrimSuffix(w, "s")], 1)
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

var anchorsLine = regexp.MustCompile(`(?m)^Anchor entities: (.*)$`)

func (m *model) relations(user string) llmtest.Reply {
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
	for _, o := range offeredLine.FindAllStringSubmatch(user, -1) {
		cs = append(cs, cand{o[1], o[2], score(q, o[3])})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].s > cs[j].s })
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

func (m *model) prune(user string) llmtest.Reply {
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
func (m *model) refine(user string, fused bool) llmtest.Reply {
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
	if best > 0 {
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
func (m *model) recognise(user string) (bool, string, []string) {
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
