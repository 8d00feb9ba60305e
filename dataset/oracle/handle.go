package oracle

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"

	openai "github.com/sashabaranov/go-openai"
)

// Reply is the oracle's answer to one chat completion.
type Reply struct {
	// Content is the assistant message.
	Content string
	// FinishReason is "stop", or "length" for a reply cut off.
	FinishReason string
	// Status is 200, or the HTTP status of a refused request.
	Status int
	// Error explains a refused request.
	Error string
	// Stage is the prompt kind recognised ("" when none).
	Stage string
	// Noise is the kind of error injected ("" when none).
	Noise string
}

// Answer answers one chat completion request; header is the value of the
// request's stage header, if any. A request whose prompt kind is not
// recognised, or whose question is not in the file, is refused with 400:
// the oracle never guesses.
func (m *Model) Answer(req openai.ChatCompletionRequest, header string) Reply {
	stage := Stage(req, header)
	m.mu.Lock()
	if stage == "" {
		m.stats.Unrecognised++
		m.mu.Unlock()
		return Reply{Status: http.StatusBadRequest, Error: "oracle: prompt kind not recognised"}
	}
	m.stats.Calls[stage]++
	m.mu.Unlock()
	user := firstUser(req)
	q := m.lookup(questionText(user))
	if q == nil {
		m.mu.Lock()
		m.stats.UnknownQuestion++
		m.mu.Unlock()
		return Reply{Status: http.StatusBadRequest, Stage: stage, Error: fmt.Sprintf("oracle: question %q is not in the question file", clip(questionText(user), 120))}
	}
	m.observe(q, len(factLine.FindAllStringIndex(user, -1))+len(candLine.FindAllStringIndex(user, -1)))
	t := &turn{m: m, q: q, stage: stage, sys: system(req), user: user}
	if cur := currentSubgoal(user); cur != "" {
		t.step, t.isAnswer = q.steps[cur], cur == q.answer
	}
	obj, content := t.reply()
	if obj != nil {
		content = marshal(obj)
	}
	if obj == nil && asksTentatives(stage, t.sys) {
		content = m.withTentatives(req, t, content)
	}
	content, finish, kind := m.noise.corrupt(m.rng(req), &draft{stage: stage, obj: obj, content: content, t: t})
	m.noted(q, kind)
	return Reply{Content: content, FinishReason: finish, Status: http.StatusOK, Stage: stage, Noise: kind}
}

// noted counts a reply about q corrupted with kind ("" for none).
func (m *Model) noted(q *question, kind string) {
	if kind == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.Noisy[kind]++
	qs := m.entry(q)
	if qs.Noisy == nil {
		qs.Noisy = map[string]int{}
	}
	qs.Noisy[kind]++
}

// rng is the random source of one request: the seed, the messages, and
// how many times this exact request was seen before; part, when given,
// names one answer of several in the reply (a subgoal's tentative answer
// in a plan), which then draws apart from the others.
func (m *Model) rng(req openai.ChatCompletionRequest, part ...string) *rand.Rand {
	parts := []string{strconv.FormatInt(m.noise.Seed, 10)}
	for _, msg := range req.Messages {
		parts = append(parts, msg.Role, msg.Content)
	}
	parts = append(parts, part...)
	h := hash64(parts...)
	m.mu.Lock()
	n := m.attempts[h]
	m.attempts[h]++
	m.mu.Unlock()
	return rand.New(rand.NewPCG(h, uint64(n)))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
