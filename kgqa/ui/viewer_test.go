package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/server"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

const (
	nijmegen = "What country bordering France contains an airport that serves Nijmegen?"
	apiKey   = "viewer-test-key"
)

// newServer runs the real server (embedded demo KG, the scripted model
// behind the OpenAI protocol, the engine) with an API key, and files
// served from dir.
func newServer(t *testing.T, dir string) string {
	t.Helper()
	cfg := config.Default()
	cfg.KG.Files = []string{"builtin:demo-freebase"}
	cfg.Server.Addr = "127.0.0.1:0"
	cfg.Server.RateLimit = 0
	cfg.Server.APIKeys = []string{apiKey}
	cfg.Engine.Deadline = 30 * time.Second
	model := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel()))
	cfg.LLM.Reasoner.BaseURL, cfg.LLM.Reasoner.Model = model.URL(), "scripted"
	g, err := kg.Open(context.Background(), cfg.KG, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	client, err := llm.New(cfg.LLM)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	eng, err := engine.New(g, client, cfg.Engine)
	require.NoError(t, err)
	srv, err := server.New(cfg.Server, g, server.WithEngine(eng),
		server.WithLLMConfig(cfg.LLM), server.WithFiles(dir),
		server.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestViewerAsksNijmegen drives the viewer in headless Chromium: it gives
// the API key, asks the paper's conjunction question, watches the stream
// and checks the plan's four subgoal nodes and the answer Germany.
func TestViewerAsksNijmegen(t *testing.T) {
	b := browsertest.New(t)
	url := newServer(t, t.TempDir())
	shots := browsertest.ScreenshotDir(t)

	b.Run(30*time.Second, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#api-key"))
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("app").hidden`), "nothing shows before the key")
	b.Screenshot(shots, "viewer-key")

	require.Empty(t, b.Errors(), "console errors before the key")

	b.Run(30*time.Second,
		chromedp.SendKeys("#api-key", "wrong-key\n"),
		chromedp.WaitVisible("#status.error"))
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("app").hidden`), "a wrong key shows nothing")
	// The refused key is the one error the browser logs: the 401 itself.
	require.Eventually(t, func() bool { return len(b.Errors()) > 0 }, 10*time.Second, 20*time.Millisecond, "the 401 is logged")
	refused := b.Errors()
	require.Len(t, refused, 1, "errors: %v", refused)
	assert.Contains(t, refused[0], "401")

	b.Run(30*time.Second,
		chromedp.SendKeys("#api-key", apiKey+"\n"),
		chromedp.WaitVisible("#question"),
		chromedp.SendKeys("#question", nijmegen+"\n"),
		chromedp.WaitVisible(".trace .answer-text"))
	b.WaitTrue(60*time.Second, `document.querySelector(".answer-text").textContent !== "…"`)

	assert.Equal(t, "Germany", browsertest.Eval[string](b, `document.querySelector(".answer-text").textContent`))
	ids := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#plan .node")).map(n => n.getAttribute("data-id"))`)
	assert.Len(t, ids, 4, "plan nodes: %v", ids)
	classes := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#plan .node")).map(n => n.getAttribute("class"))`)
	for _, c := range classes {
		assert.Contains(t, c, "st-done")
	}
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector(".trace").textContent`), "stop reason: plan_complete")
	// The page opens on a subgoal with something to show, not on the
	// intersect that answered (no tentative answer, no facts of its own).
	opened := browsertest.Eval[string](b, `document.querySelector(".detail .subgoal").getAttribute("aria-label")`)
	assert.NotEqual(t, "subgoal "+ids[len(ids)-1], opened, "plan nodes %v", ids)
	assert.NotEqual(t, "—", browsertest.Eval[string](b, `document.querySelector(".detail .subgoal .tentative p").textContent`), "the opened subgoal has a tentative answer")
	calls := browsertest.Eval[int](b, `parseInt(document.querySelector(".cost p").textContent, 10)`)
	assert.Positive(t, calls)
	assert.Equal(t, calls, browsertest.Eval[int](b, `document.querySelectorAll(".timeline.calls rect").length`), "one bar per model call")
	assert.GreaterOrEqual(t, browsertest.Eval[int](b, `document.querySelectorAll(".timeline:not(.calls) rect").length`), 4, "step timeline segments")

	// The keyboard selects a subgoal: focus its node and press Enter. The
	// airports serving Nijmegen (s2): France's neighbours (s1) are a
	// check of s3's candidates, with no facts of their own to draw.
	b.Run(10*time.Second, chromedp.Focus(`#plan .node[data-id="`+ids[1]+`"]`), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`.subgoal[aria-label="subgoal `+ids[1]+`"]`))
	assert.Positive(t, browsertest.Eval[int](b, `document.querySelectorAll(".facts .node").length`), "facts graph of the selected subgoal")

	b.FullScreenshot(shots, "viewer-nijmegen")
	assert.Empty(t, b.Errors()[len(refused):], "console errors after the key")
}

// TestViewerOpensFiles opens a results file by its path on the server,
// filters it and opens a row's trace, then opens a saved answer through
// the file input (what dropping a file does).
func TestViewerOpensFiles(t *testing.T) {
	b := browsertest.New(t)
	dir := t.TempDir()
	url := newServer(t, dir)
	client, err := api.NewClient(url, api.WithAPIKey(apiKey))
	require.NoError(t, err)
	resp, err := client.Ask(context.Background(), api.AskRequest{Question: nijmegen})
	require.NoError(t, err)
	require.Equal(t, "Germany", resp.Answer)

	saved, err := json.Marshal(resp)
	require.NoError(t, err)
	answerFile := filepath.Join(t.TempDir(), "answer.json")
	require.NoError(t, os.WriteFile(answerFile, saved, 0o600))
	trace, err := json.Marshal(resp.EngineAnswer())
	require.NoError(t, err)
	var lines []byte
	for _, r := range []eval.Result{
		{ID: "demo-01", Question: nijmegen, Type: "conjunction", Prediction: "Germany", Gold: []string{"Germany"}, Hit: true, Trace: trace},
		{ID: "demo-99", Question: "Which river is the longest?", Type: "superlative", Prediction: "Rhine", Gold: []string{"Danube"}},
	} {
		line, err := json.Marshal(r)
		require.NoError(t, err)
		lines = append(append(lines, line...), '\n')
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.jsonl"), lines, 0o600))
	shots := browsertest.ScreenshotDir(t)

	b.Run(30*time.Second, chromedp.Navigate(url+"/ui/"), chromedp.WaitVisible("#api-key"),
		chromedp.SendKeys("#api-key", apiKey+"\n"), chromedp.WaitVisible("#path"),
		chromedp.SendKeys("#path", "results.jsonl\n"), chromedp.WaitVisible(".results-table"))
	assert.Equal(t, 2, browsertest.Eval[int](b, `document.querySelectorAll(".results-table tbody tr").length`))
	b.Run(10*time.Second, chromedp.SetValue(".filters select[id$=-hit]", "miss"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(".filters select[id$=-hit]").dispatchEvent(new Event("change", {bubbles: true}))`))
	assert.Equal(t, []string{"demo-99"}, browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".results-table tbody tr td:nth-child(2)")).map(td => td.textContent)`))
	b.Screenshot(shots, "viewer-results")

	b.Run(10*time.Second, chromedp.SetValue(".filters select[id$=-hit]", "hit"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(".filters select[id$=-hit]").dispatchEvent(new Event("change", {bubbles: true}))`),
		chromedp.Click(".results-table button.open"), chromedp.WaitVisible("#plan .node"))
	assert.Len(t, browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#plan .node")).map(n => n.getAttribute("data-id"))`), 4)
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector(".trace .meta").textContent`), "gold: Germany")

	b.Run(30*time.Second, chromedp.SetUploadFiles("#file", []string{answerFile}),
		chromedp.WaitVisible(`#status`))
	b.WaitTrue(30*time.Second, `document.getElementById("status").textContent === "opened answer.json"`)
	assert.Equal(t, "Germany", browsertest.Eval[string](b, `document.querySelector(".answer-text").textContent`))
	assert.Equal(t, 4, browsertest.Eval[int](b, `document.querySelectorAll("#plan .node").length`))
	assert.Empty(t, b.Errors(), "console errors")
}

// TestViewerReplaysDroppedStream drops a saved NDJSON stream on the page:
// the viewer replays it, answer, plan and the timeline of its steps.
func TestViewerReplaysDroppedStream(t *testing.T) {
	b := browsertest.New(t)
	url := newServer(t, "")
	body := strings.NewReader(`{"question":"` + nijmegen + `","stream":true}`)
	req, err := http.NewRequest(http.MethodPost, url+"/v1/ask", body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	stream, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", stream)
	steps := strings.Count(string(stream), "\n")
	require.Greater(t, steps, 5)

	b.Run(30*time.Second, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#api-key"),
		chromedp.SendKeys("#api-key", apiKey+"\n"), chromedp.WaitVisible("#question"))
	text, err := json.Marshal(string(stream))
	require.NoError(t, err)
	b.Run(10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([`+string(text)+`], "nijmegen.ndjson", {type: "application/x-ndjson"}));
		document.body.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`))
	b.WaitTrue(30*time.Second, `document.getElementById("status").textContent.startsWith("replayed")`)
	assert.Equal(t, fmt.Sprintf("replayed %d events of nijmegen.ndjson", steps), browsertest.Eval[string](b, `document.getElementById("status").textContent`))
	assert.Equal(t, "Germany", browsertest.Eval[string](b, `document.querySelector(".answer-text").textContent`))
	assert.Equal(t, 4, browsertest.Eval[int](b, `document.querySelectorAll("#plan .node.st-done").length`))
	assert.Equal(t, []string{"plan", "s1", "s2", "s3", "s4"}, browsertest.Eval[[]string](b,
		`Array.from(document.querySelectorAll(".timeline:not(.calls) .bar-label")).map(t => t.textContent).sort()`), "one lane per subgoal")
	b.Screenshot(browsertest.ScreenshotDir(t), "viewer-dropped-stream")
	assert.Empty(t, b.Errors(), "console errors")
}
