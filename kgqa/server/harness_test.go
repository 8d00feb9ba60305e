package server_test

// The harness runs the real server wiring (kg.Open on the embedded demo KG,
// llm.New against the scripted OpenAI-compatible server, kgqa.New, the Gin
// handler) behind httptest. The scripted model answers by reading its
// prompts: it keeps the offered relations that share a word with the
// subgoal and answers from the facts they bring.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/server"
)

const (
	capitalQ = "What is the capital of France?"
	france   = "m.0f8l9c"
	paris    = "m.05qtj"
)

type harness struct {
	t      testing.TB
	cfg    config.Config
	graph  kg.Graph
	llm    *llmtest.Server
	srv    *server.Server
	http   *httptest.Server
	client *api.Client
	model  *llm.Client
}

type setup struct {
	noLLM   bool
	delay   time.Duration
	handler llmtest.Handler
	edit    func(*config.Config)
	graph   kg.Graph
}

func newHarness(tb testing.TB, s setup) *harness {
	tb.Helper()
	h := &harness{t: tb, cfg: config.Default()}
	h.cfg.KG.Files = []string{"builtin:demo-freebase"}
	h.cfg.KG.CacheSize = 1000
	h.cfg.Server.Addr = "127.0.0.1:0"
	h.cfg.Server.RateLimit = 0
	h.cfg.Engine.Deadline = 20 * time.Second
	var opts []server.Option
	if !s.noLLM {
		handler := s.handler
		if handler == nil {
			handler = scripted
		}
		h.llm = llmtest.New(tb, llmtest.WithHandler(handler), llmtest.WithDelay(s.delay))
		h.cfg.LLM.Reasoner.BaseURL, h.cfg.LLM.Reasoner.Model = h.llm.URL(), "scripted"
		h.cfg.LLM.Reasoner.Concurrency = 1024
		h.cfg.LLM.Reasoner.Retries = 1
	}
	if s.edit != nil {
		s.edit(&h.cfg)
	}
	g := s.graph
	if g == nil {
		var err error
		g, err = kg.Open(context.Background(), h.cfg.KG, "")
		require.NoError(tb, err)
		tb.Cleanup(func() { _ = g.Close() })
	}
	h.graph = g
	m := server.NewMetrics()
	client, err := llm.New(h.cfg.LLM, llm.WithObserver(m.ObserveLLM), llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = client.Close() })
	h.model = client
	opts = append(opts, server.WithEngine(kgqa.New(g, client, h.cfg.Engine)), server.WithLLMConfig(h.cfg.LLM),
		server.WithBudgets(h.cfg.Engine), server.WithMetrics(m), server.WithLogger(discardLogger()))
	h.srv, err = server.New(h.cfg.Server, g, opts...)
	require.NoError(tb, err)
	h.http = httptest.NewServer(h.srv.Handler())
	tb.Cleanup(h.http.Close)
	h.client, err = api.NewClient(h.http.URL)
	require.NoError(tb, err)
	return h
}

var (
	subgoalLine = regexp.MustCompile(`(?m)^Current subgoal: (.*)$`)
	offeredLine = regexp.MustCompile(`(?m)^- (\S+) \((out|in)\): (.*) \[.*\]$`)
	factLine    = regexp.MustCompile(`(?m)^[FC](\d+)\. (.*) -\[(.*)\]-> (.*)$`)
	idRef       = regexp.MustCompile(`\[([a-z]\.[A-Za-z0-9_]+)\]$`)
)

func find(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// overlap counts the words of at least four letters that a and b share.
func overlap(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	}
	have := map[string]bool{}
	for _, w := range split(a) {
		if len(w) >= 4 {
			have[w] = true
		}
	}
	n := 0
	for _, w := range split(b) {
		if have[w] {
			n++
			have[w] = false
		}
	}
	return n
}

// scripted is the model: one-subgoal plans, relations and facts chosen by
// shared words, the question judged answerable once facts answer it.
func scripted(req openai.ChatCompletionRequest) llmtest.Reply {
	user := llmtest.LastUser(req)
	sub := find(subgoalLine, user)
	switch llmtest.StageOf(req) {
	case "plan", "plan_fewshot":
		q := strings.TrimSpace(strings.TrimPrefix(user, "Question: "))
		if i := strings.IndexByte(q, '\n'); i >= 0 {
			q = q[:i]
		}
		return llmtest.JSON(kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find " + strings.TrimSuffix(q, "?") + ".", Op: kgqa.OpFind}}})
	case "mentions":
		if strings.Contains(user, "France") {
			return llmtest.JSON(map[string]any{"mentions": []string{"France"}})
		}
		return llmtest.JSON(map[string]any{"mentions": []string{}})
	case "tentative":
		return llmtest.JSON(map[string]any{"answer": "I am not sure.", "entities": []string{}})
	case "relations":
		var out []map[string]string
		for _, o := range offeredLine.FindAllStringSubmatch(user, -1) {
			if overlap(sub, o[3]) > 0 && len(out) < 1 {
				out = append(out, map[string]string{"id": o[1], "dir": o[2]})
			}
		}
		return llmtest.JSON(map[string]any{"relations": out, "reason": "scripted"})
	case "prune":
		return llmtest.JSON(map[string]any{"keep": []int{1}})
	case "refine", "sufficiency", "final":
		var ents, names []string
		var used []int
		for i, f := range factLine.FindAllStringSubmatch(user, -1) {
			if overlap(sub+" "+user[:min(len(user), 200)], f[3]) > 0 {
				ents = append(ents, find(idRef, f[4]))
				names = append(names, strings.TrimSpace(strings.Split(f[4], " [")[0]))
				used = append(used, i+1)
			}
		}
		ok := len(ents) > 0
		answer := strings.Join(names, ", ")
		return llmtest.JSON(map[string]any{
			"aligned": ok, "answer": answer, "entities": ents, "used_facts": used, "reason": "scripted",
			"sufficient": ok, "final_answer": answer, "final_entities": ents,
		})
	case "select":
		return llmtest.JSON(map[string]any{"entities": []string{}, "reason": "scripted"})
	}
	return llmtest.Error(500, "scripted: unknown stage "+llmtest.StageOf(req))
}

func kgRel(id, dir string) kg.Relation { return kg.Relation{ID: id, Dir: kg.Direction(dir)} }

type openaiRequest = openai.ChatCompletionRequest

// inFlight reads the server's in-flight request gauge.
func inFlight(t testing.TB, h *harness) float64 {
	mfs, err := h.srv.Metrics().Registry().Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "parog_http_in_flight_requests" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("no in-flight gauge")
	return 0
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func decodeJSON(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
