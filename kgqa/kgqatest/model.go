// Package kgqatest is test support for the engine and the code built on
// it: a scripted planner and reasoner for the demo KG, served over HTTP by
// llmtest. Only tests import it; the parog binary never links it.
package kgqatest

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// Model is a scripted planner and reasoner for the demo Freebase KG. It
// answers every stage by reading the prompt it is sent, the way a
// competent model would: it gives the demo questions' gold plans, picks
// relations from the ones offered, answers a subgoal from the facts
// listed, and says "not aligned" when the facts are about something else.
// What it "knows" (its parametric knowledge) is explicit, set by Options,
// so a test can give it a wrong belief and see refinement fix it. Safe for
// concurrent use.
type Model struct {
	// plans are the plans it gives, by question.
	plans map[string]json.RawMessage
	// beliefs are its tentative answers, by a phrase of the subgoal text;
	// belief answers every other subgoal when set.
	beliefs map[string][]string
	belief  []string
	// answers are final answers it recognises when the evidence shows
	// them, by question; only then does it judge a question answerable
	// early.
	answers map[string][]string
	// refuse are questions whose plan request it answers with HTTP 400.
	refuse map[string]bool
	// rewrites are the follow-up messages it recognises, with their
	// standalone question; unsafe are the messages it judges unsafe.
	rewrites map[string]string
	unsafe   map[string]bool
	// distrust are subgoal phrases whose evidence it misjudges.
	distrust []string
	// mentions are names it recognises as entity mentions.
	mentions []string
	// countries are the names it knows to be countries.
	countries map[string]bool
	// inPlan makes it give tentative answers inside a plan when the
	// prompt asks, to every subgoal that reads the graph but those of
	// notInPlan.
	inPlan    bool
	notInPlan map[string]bool

	mu    sync.Mutex
	calls map[string]int // calls per stage
	total int
}

// Option sets what a Model knows or how it misbehaves.
type Option func(*Model)

// Believe makes the tentative answer to any subgoal whose text contains
// phrase (case-insensitively) the given names.
func Believe(phrase string, names ...string) Option {
	return func(m *Model) { m.beliefs[phrase] = names }
}

// BelieveAlways makes names the tentative answer to every subgoal that no
// Believe phrase matches; "Atlantis" makes every tentative answer wrong,
// so every right final answer is one refinement fixed.
func BelieveAlways(names ...string) Option {
	return func(m *Model) { m.belief = names }
}

// Recognise makes the model recognise answers to question when the facts
// in a prompt show one, and judge the question answerable then.
func Recognise(question string, answers ...string) Option {
	return func(m *Model) { m.answers[question] = answers }
}

// RefusePlan makes the plan request for question fail with HTTP 400, so
// the question fails.
func RefusePlan(question string) Option {
	return func(m *Model) { m.refuse[question] = true }
}

// RewriteFollowUp makes the model judge the chat message msg a follow-up
// and rewrite it into standalone; any other message is new.
func RewriteFollowUp(msg, standalone string) Option {
	return func(m *Model) { m.rewrites[msg] = standalone }
}

// Distrust makes refinement judge the facts of any subgoal whose text
// contains phrase (case-insensitively) misaligned, as a model that
// misreads aligned evidence does: the tentative answer then stands.
func Distrust(phrase string) Option {
	return func(m *Model) { m.distrust = append(m.distrust, strings.ToLower(phrase)) }
}

// AnswerInPlan makes the model give, when a plan prompt asks for them
// (engine.plan_tentatives), the tentative answer of every subgoal that
// reads the graph inside the plan, as it would answer the subgoal's own
// tentative prompt; the subgoals named by except get none, as a planner
// that left some out.
func AnswerInPlan(except ...string) Option {
	return func(m *Model) {
		m.inPlan = true
		for _, id := range except {
			m.notInPlan[id] = true
		}
	}
}

// Unsafe makes the model judge the chat message msg unsafe.
func Unsafe(msg string) Option {
	return func(m *Model) { m.unsafe[msg] = true }
}

// NewDemoModel returns the model with the Freebase demo questions' gold
// plans and topic entity names, changed by opts.
func NewDemoModel(opts ...Option) *Model {
	return newModel(demokg.FreebaseQuestions(), opts)
}

// NewWikidataDemoModel returns the model with the Wikidata demo questions'
// gold plans and topic entity names, changed by opts. The two demo sets
// share a question text with different plans (Wikidata has no border
// mediators), so each graph gets its own model.
func NewWikidataDemoModel(opts ...Option) *Model {
	return newModel(demokg.WikidataQuestions(), opts)
}

func newModel(qs []dataset.DemoRecord, opts []Option) *Model {
	m := &Model{plans: map[string]json.RawMessage{}, beliefs: map[string][]string{}, answers: map[string][]string{},
		refuse: map[string]bool{}, rewrites: map[string]string{}, unsafe: map[string]bool{}, countries: map[string]bool{}, calls: map[string]int{},
		notInPlan: map[string]bool{}}
	for _, c := range strings.Split("Germany,Netherlands,France,Italy,Spain,Luxembourg,Suriname,Switzerland,Andorra,Monaco,Belgium,Brazil,Austria,Liechtenstein,Poland,Denmark,Czech Republic,Portugal,Slovenia,San Marino,Vatican City", ",") {
		m.countries[c] = true
	}
	for _, q := range qs {
		m.plans[q.Question] = q.Plan
		for _, t := range q.TopicEntities {
			m.mentions = append(m.mentions, t.Name)
		}
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

// DemoModel is NewDemoModel(opts...).Handle, for a test that needs no call
// counts.
func DemoModel(opts ...Option) llmtest.Handler { return NewDemoModel(opts...).Handle }

// Calls is the number of requests the model answered for stage.
func (m *Model) Calls(stage string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[stage]
}

// Total is the number of requests the model answered.
func (m *Model) Total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// Reset sets the call counts to zero.
func (m *Model) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls, m.total = map[string]int{}, 0
}

// Handle answers a chat completion by stage; it is an llmtest.Handler.
func (m *Model) Handle(req openai.ChatCompletionRequest) llmtest.Reply {
	stage := llmtest.StageOf(req)
	m.mu.Lock()
	m.calls[stage]++
	m.total++
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
		return m.plan(user, req.Messages[0].Content)
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
	case "followup":
		return m.followUp(user)
	}
	return llmtest.Error(500, "scripted model: unknown stage "+stage)
}

var (
	questionLine = regexp.MustCompile(`(?m)^Question: (.*)$`)
	subgoalLine  = regexp.MustCompile(`(?m)^Current subgoal: (.*)$`)
	tentLine     = regexp.MustCompile(`(?m)^Tentative answer: (.*)$`)
	anchorsLine  = regexp.MustCompile(`(?m)^Anchor entities: (.*)$`)
	propertyID   = regexp.MustCompile(`\((P[1-9][0-9]*)\)$`)
	maxLine      = regexp.MustCompile(`(?m)^Keep at most (\d+)`)
	attrLine     = regexp.MustCompile(`(?m)by the attribute "([^"]*)"`)
	factLine     = regexp.MustCompile(`(?m)^[FC](\d+)\. (.*) -\[(.*)\]-> (.*)$`)
	lastMsgLine  = regexp.MustCompile(`(?m)^Last user message: (.*)$`)
	idRef        = regexp.MustCompile(`\[([a-z]\.[A-Za-z0-9_]+|Q[1-9][0-9]*)\]$`)
)

func find(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

func (m *Model) plan(user, system string) llmtest.Reply {
	q := strings.TrimSpace(strings.TrimPrefix(user, "Question: "))
	if m.refuse[q] {
		return llmtest.Error(400, "scripted: this request is refused")
	}
	p, ok := m.plans[q]
	if !ok {
		p, _ = json.Marshal(map[string]any{"version": 1, "subgoals": []map[string]any{{"id": "s1", "text": q, "op": "find"}}})
	}
	if !m.inPlan || !strings.Contains(system, `"tentative":{`) {
		return llmtest.Text(string(p))
	}
	var plan kgqa.Plan
	if err := json.Unmarshal(p, &plan); err != nil {
		return llmtest.Error(500, "scripted model: bad plan: "+err.Error())
	}
	for i := range plan.Subgoals {
		s := &plan.Subgoals[i]
		switch {
		case m.notInPlan[s.ID], s.Op == kgqa.OpIntersect, s.Op == kgqa.OpUnion, s.Op == kgqa.OpCount:
			continue
		}
		ans, names := m.believed(strings.ToLower(s.Text))
		s.Tentative = &kgqa.Tentative{Answer: ans, Names: names}
	}
	return llmtest.JSON(plan)
}

func (m *Model) mention(user string) llmtest.Reply {
	q := strings.ToLower(user)
	found := []string{}
	for _, n := range m.mentions {
		if i := strings.Index(q, strings.ToLower(n)); i >= 0 {
			found = append(found, user[i:i+len(n)])
		}
	}
	return llmtest.JSON(map[string]any{"mentions": dedupe(found)})
}

func (m *Model) tentative(user string) llmtest.Reply {
	ans, names := m.believed(strings.ToLower(find(subgoalLine, user)))
	return llmtest.JSON(map[string]any{"answer": ans, "entities": names})
}

// believed is the model's own answer to a subgoal whose text, lower
// case, is sub.
func (m *Model) believed(sub string) (string, []string) {
	for phrase, names := range m.beliefs {
		if strings.Contains(sub, strings.ToLower(phrase)) {
			return strings.Join(names, ", "), names
		}
	}
	if m.belief != nil {
		return strings.Join(m.belief, ", "), m.belief
	}
	return "I am not sure.", []string{}
}

// followUp judges the last message of a conversation by the rewrites and
// unsafe messages it was given; any other message is new.
func (m *Model) followUp(user string) llmtest.Reply {
	msg := find(lastMsgLine, user)
	switch {
	case m.unsafe[msg]:
		return llmtest.JSON(map[string]any{"reason": "scripted: asks for harm", "verdict": "unsafe", "question": msg})
	case m.rewrites[msg] != "":
		return llmtest.JSON(map[string]any{"reason": "scripted: refers to the conversation", "verdict": "follow_up", "question": m.rewrites[msg]})
	}
	return llmtest.JSON(map[string]any{"reason": "scripted: stands alone", "verdict": "new", "question": msg})
}
