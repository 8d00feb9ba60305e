package ui_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/server"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

// newModellessServer runs the real server with no model configured:
// /v1/ask answers with an error.
func newModellessServer(t *testing.T) string {
	t.Helper()
	cfg := config.Default()
	cfg.KG.Files = []string{"builtin:demo-freebase"}
	cfg.Server.Addr = "127.0.0.1:0"
	cfg.Server.RateLimit = 0
	g, err := kg.Open(context.Background(), cfg.KG, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	client, err := llm.New(cfg.LLM)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	eng, err := engine.New(g, client, cfg.Engine)
	require.NoError(t, err)
	srv, err := server.New(cfg.Server, g, server.WithEngine(eng),
		server.WithLLMConfig(cfg.LLM), server.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// With no model configured the viewer says so in the body, where the
// trace would be, and stops saying "running…"; the header stays one line.
func TestViewerStatesTheErrorInTheBody(t *testing.T) {
	b := browsertest.New(t)
	url := newModellessServer(t)
	b.Run(30*time.Second, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#question"),
		chromedp.SendKeys("#question", nijmegen+"\n"))
	b.WaitTrue(30*time.Second, `document.getElementById("status").classList.contains("error")`)
	b.Screenshot(browsertest.ScreenshotDir(t), "viewer-no-model")
	body := browsertest.Eval[string](b, `document.getElementById("view").textContent`)
	assert.NotContains(t, body, "running…")
	assert.Contains(t, browsertest.Eval[string](b, `(document.querySelector("#view .failure") || {}).textContent || ""`), "model")
	lineH := browsertest.Eval[float64](b, `parseFloat(getComputedStyle(document.getElementById("status")).lineHeight)`)
	assert.LessOrEqual(t, browsertest.Eval[float64](b, `document.getElementById("status").getBoundingClientRect().height`), lineH*1.2, "the status is one line")
}

// trustAnswer is a saved answer shaped like the issue's: s1 feeds s4 and
// s5 across s3; the run stopped early after s4 (s5 skipped); one call
// reported no tokens; the transcript is on record.
func trustAnswer(t *testing.T) string {
	t.Helper()
	ans := map[string]any{
		"question": "Which airport serves the city where the team whose mascot is Lou Seal plays?",
		"answer":   "San Francisco International Airport", "entities": []any{},
		"plan": map[string]any{"version": 1, "subgoals": []any{
			map[string]any{"id": "s1", "text": "Find the team whose mascot is Lou Seal.", "op": "find"},
			map[string]any{"id": "s2", "text": "Find the cities of California.", "op": "find"},
			map[string]any{"id": "s3", "text": "Find the airports of #2.", "op": "find", "needs": []string{"s2"}},
			map[string]any{"id": "s4", "text": "Find which of #3 serve the home city of #1.", "op": "find", "needs": []string{"s1", "s3"}},
			map[string]any{"id": "s5", "text": "Find the one of #4 nearest #1.", "op": "superlative", "needs": []string{"s1", "s4"}},
		}},
		"plan_info":      map[string]any{"source": "planner"},
		"topic_entities": []any{},
		"subgoals": []any{
			sub("s1", "done", "San Francisco Giants", nil), sub("s2", "done", "San Francisco", nil),
			sub("s3", "done", "San Francisco International Airport", []string{"s2"}),
			sub("s4", "done", "San Francisco International Airport", []string{"s1", "s3"}),
			map[string]any{"id": "s5", "text": "Find the one of #4 nearest #1.", "op": "superlative", "needs": []string{"s1", "s4"}, "status": "skipped", "error": "question answered early"},
		},
		"final":       map[string]any{"source": "sufficiency", "after": "s4", "reason": "s4 answers it"},
		"stop_reason": "sufficient",
		"usage": map[string]any{"llm": map[string]any{"calls": 2, "total_tokens": 120}, "sparql_queries": 3, "wall_ms": 40,
			"calls": []any{
				map[string]any{"role": "reasoner", "stage": "tentative", "start_ms": 0, "ms": 10, "tokens": 120},
				map[string]any{"role": "reasoner", "stage": "refine", "start_ms": 12, "ms": 8, "tokens": 0},
			}},
		"transcript": map[string]any{
			"calls": []any{
				map[string]any{"subgoal": "s1", "role": "reasoner", "stage": "tentative", "messages": []any{
					map[string]any{"role": "system", "content": "You answer one subgoal."}, map[string]any{"role": "user", "content": "Current subgoal: Find the team whose mascot is Lou Seal."}},
					"reply": `{"answer":"San Francisco Giants"}`},
				map[string]any{"subgoal": "s1", "round": 1, "role": "reasoner", "stage": "refine", "messages": []any{
					map[string]any{"role": "user", "content": "F1. San Francisco Giants -[mascot]-> Lou Seal"}},
					"reply": `{"aligned":true}`},
			},
			"queries": []any{map[string]any{"subgoal": "s1", "round": 1, "sparql": "SELECT ?r WHERE { <x> ?r ?o }"}},
		},
	}
	b, err := json.Marshal(ans)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "trust.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

func sub(id, status, result string, needs []string) map[string]any {
	return map[string]any{"id": id, "text": "subgoal " + id, "op": "find", "needs": needs, "status": status,
		"tentative": map[string]any{"answer": "Atlantis"},
		"verdict":   map[string]any{"aligned": true, "reason": "the facts support it"},
		"result":    map[string]any{"text": result, "source": "evidence"}}
}

// edgeCrossings counts, over every plan edge, the points sampled along it
// that fall inside a node box other than at its ends (boxes shrunk by
// 1.5 px so that a port on a box side does not count).
const edgeCrossings = `(() => {
	const boxes = Array.from(document.querySelectorAll("#plan .node")).map(g => {
		const r = g.querySelector("rect"), m = g.transform.baseVal.consolidate().matrix;
		return {id: g.getAttribute("data-id"), x: m.e, y: m.f, w: r.width.baseVal.value, h: r.height.baseVal.value};
	});
	const out = [];
	document.querySelectorAll("#plan path.edge").forEach(p => {
		const len = p.getTotalLength();
		for (let i = 0; i <= 200; i++) {
			const pt = p.getPointAtLength(len * i / 200);
			boxes.forEach(b => {
				if (pt.x > b.x + 1.5 && pt.x < b.x + b.w - 1.5 && pt.y > b.y + 1.5 && pt.y < b.y + b.h - 1.5)
					out.push(p.getAttribute("data-from") + "->" + p.getAttribute("data-to") + " crosses " + b.id);
			});
		}
	});
	return Array.from(new Set(out));
})()`

// A saved trace opens on the subgoal that produced the answer, its edges
// go around the nodes, a legend says what the words mean, a zero-token
// call is drawn as such, and the prompts are there, folded.
func TestViewerDoesNotMislead(t *testing.T) {
	b := browsertest.New(t)
	url := newServer(t, t.TempDir())
	b.Run(30*time.Second, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#api-key"),
		chromedp.SendKeys("#api-key", apiKey+"\n"), chromedp.WaitVisible("#question"),
		chromedp.SetUploadFiles("#file", []string{trustAnswer(t)}))
	b.WaitTrue(30*time.Second, `document.getElementById("status").textContent === "opened trust.json"`)
	b.FullScreenshot(browsertest.ScreenshotDir(t), "viewer-trace")

	assert.Equal(t, "s4", browsertest.Eval[string](b, `document.querySelector("#plan .node.selected").getAttribute("data-id")`),
		"the subgoal whose judgement answered, not the last (skipped) one")
	assert.Equal(t, "San Francisco International Airport", browsertest.Eval[string](b, `document.querySelector(".detail .refined-answer").textContent`))

	assert.Equal(t, 5, browsertest.Eval[int](b, `document.querySelectorAll("#plan path.edge").length`), "s2→s3, s1→s4, s3→s4, s1→s5, s4→s5")
	assert.Empty(t, browsertest.Eval[[]string](b, edgeCrossings), "no edge crosses a node box")

	legend := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".legend-terms dt")).map(d => d.textContent)`)
	assert.Equal(t, []string{"tentative", "refined", "verdict", "kept", "recovery", "skipped"}, legend)

	zero := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".timeline.calls rect.zero title")).map(t => t.textContent)`)
	require.Len(t, zero, 1, "one zero-token call")
	assert.Contains(t, zero[0], "0 tokens")

	// s1's prompts: per round, folded.
	b.Run(10*time.Second, chromedp.Click(`#plan .node[data-id="s1"]`), chromedp.WaitVisible(`.subgoal[aria-label="subgoal s1"]`))
	rounds := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".prompts > details > summary")).map(s => s.textContent)`)
	assert.Equal(t, []string{"before exploration: 1 model call", "round 1: 1 model call, 1 SPARQL query"}, rounds)
	assert.False(t, browsertest.Eval[bool](b, `Array.from(document.querySelectorAll(".prompts details")).some(d => d.open)`), "folded by default")
	b.Run(10*time.Second, chromedp.Click(`.prompts > details:nth-of-type(2) > summary`))
	assert.True(t, browsertest.Eval[bool](b, `document.querySelector(".prompts > details:nth-of-type(2)").open`))
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector(".prompts > details:nth-of-type(2)").textContent`), "F1. San Francisco Giants -[mascot]-> Lou Seal")
	b.FullScreenshot(browsertest.ScreenshotDir(t), "viewer-prompts")
	assert.Empty(t, b.Errors(), "console errors")
}
