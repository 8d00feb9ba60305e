package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/prompts"
)

// Names that look odd are still input: a backslash is escaped, a \u
// escape that an engine would decode is refused with 400, never a 500.
func TestEntitySearchOddNames(t *testing.T) {
	h := newHarness(t, setup{noLLM: true})
	tests := []struct {
		name string
		want int
	}{
		{`C:\users\bob`, http.StatusOK},
		{`a\b "quoted" \\ end\`, http.StatusOK},
		{`\u0022 } SERVICE`, http.StatusBadRequest},
		{`\U0001F600`, http.StatusBadRequest},
		{"nul\x00byte", http.StatusBadRequest},
		{"esc\x1b[31m", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call(t, "GET", "/v1/entities?name="+url.QueryEscape(tt.name), "", nil)
			require.Equal(t, tt.want, r.status, "%s", r.body)
			if tt.want == http.StatusBadRequest {
				assert.NotContains(t, string(r.body), "internal")
			}
		})
	}
}

// mentionModel is the demo model, except that the mentions it finds are
// the ones the test names: a model that copies odd text from the question.
type mentionModel struct {
	demo     *kgqatest.Model
	mu       sync.Mutex
	mentions []string
	calls    atomic.Int64
}

func (m *mentionModel) set(mentions ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mentions = mentions
}

func (m *mentionModel) handle(req openaiRequest) llmtest.Reply {
	m.calls.Add(1)
	if llmtest.StageOf(req) == prompts.Mentions {
		m.mu.Lock()
		defer m.mu.Unlock()
		return llmtest.JSON(map[string]any{"reason": "copied from the question", "mentions": m.mentions})
	}
	return m.demo.Handle(req)
}

// An earlier user message is read by the follow-up classifier, which may
// copy it into the question: odd text there is refused before any model
// call too.
func TestChatOddHistory(t *testing.T) {
	m := &mentionModel{demo: kgqatest.NewDemoModel()}
	h := newHarness(t, setup{handler: m.handle})
	for _, earlier := range []string{"Who is nul\x00byte?", `Who is \u0022 } SERVICE?`, "Who is esc\x1b[31m?"} {
		body, _ := json.Marshal(map[string]any{"model": "parog", "messages": []map[string]string{
			{"role": "user", "content": earlier}, {"role": "assistant", "content": "I do not know."},
			{"role": "user", "content": "And where was he born?"}}})
		before := m.calls.Load()
		r := h.call(t, "POST", "/v1/chat/completions", "application/json", body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%q: %s", earlier, r.body)
		assert.Zero(t, m.calls.Load()-before, "%q: model calls spent", earlier)
	}
}

// Questions whose text cannot become a query literal (a \u escape an
// engine would decode, NUL, ESC) are refused with 400 before any model
// call, on /v1/ask and /v1/chat/completions; a backslash or a tab is
// input like any other. Never a 500.
func TestAskOddQuestions(t *testing.T) {
	m := &mentionModel{demo: kgqatest.NewDemoModel()}
	h := newHarness(t, setup{handler: m.handle})
	tests := []struct {
		question, mention string
		refused           bool
	}{
		{`Where does C:\users\bob live?`, `C:\users\bob`, false},
		{`What borders a\b "quoted" \\ France\?`, `France\`, false},
		{"What is the capital of\tFrance?", "of\tFrance", false},
		{`Who is \u0022 } SERVICE <http://x/> { ?"?`, `\u0022 } SERVICE`, true},
		{`Who is \U0001F600?`, `\U0001F600`, true},
		{"Who is nul\x00byte?", "nul\x00byte", true},
		{"Who is esc\x1b[31m red?", "esc\x1b[31m", true},
		{"Who is bell\a?", "bell\a", true},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			m.set(tt.mention)
			for _, route := range []string{"/v1/ask", "/v1/ask stream", "/v1/chat/completions"} {
				path := strings.Fields(route)[0]
				var body []byte
				switch route {
				case "/v1/ask", "/v1/ask stream":
					body, _ = json.Marshal(api.AskRequest{Question: tt.question, Stream: route != "/v1/ask"})
				default:
					body, _ = json.Marshal(map[string]any{"model": "parog", "messages": []map[string]string{{"role": "user", "content": tt.question}}})
				}
				before := m.calls.Load()
				r := h.call(t, "POST", path, "application/json", body)
				assert.Less(t, r.status, 500, "%s: %s", route, r.body)
				if tt.refused {
					assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", route, r.body)
					assert.Contains(t, string(r.body), "question", "%s: the refusal names the question", route)
					assert.Zero(t, m.calls.Load()-before, "%s: model calls spent on a refused question", route)
				} else {
					assert.NotEqual(t, http.StatusBadRequest, r.status, "%s: %s", route, r.body)
					assert.Positive(t, m.calls.Load()-before, "%s", route)
				}
			}
		})
	}
}
