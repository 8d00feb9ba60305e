package ui_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

// recoveredAnswer asks "Who is the mascot of the San Francisco Giants?" of
// the engine on the demo KG with a model whose first refine verdict
// answers with the team itself: the engine asks again, and the answer
// carries the recovery.
func recoveredAnswer(t *testing.T) *api.AskResponse {
	t.Helper()
	var q dataset.DemoRecord
	for _, d := range demokg.FreebaseQuestions() {
		if d.ID == "demo-22" {
			q = d
		}
	}
	require.NotEmpty(t, q.TopicEntities)
	topic := []string{q.TopicEntities[0].ID}
	m := kgqatest.NewDemoModel()
	var mu sync.Mutex
	done := false
	model := llmtest.New(t, llmtest.WithoutLog(), llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		mu.Lock()
		hit := !done && strings.HasPrefix(llmtest.StageOf(req), "refine") && strings.Contains(llmtest.LastUser(req), "mascot")
		done = done || hit
		mu.Unlock()
		if hit {
			return llmtest.JSON(map[string]any{"reason": "the facts name the team", "aligned": true, "answer": "San Francisco Giants",
				"entities": topic, "used_facts": []int{1}})
		}
		return m.Handle(req)
	}))
	cfg := config.Default()
	cfg.KG.Files = []string{"builtin:demo-freebase"}
	cfg.LLM.Reasoner.BaseURL, cfg.LLM.Reasoner.Model = model.URL(), "scripted"
	g, err := kg.Open(context.Background(), cfg.KG, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	client, err := llm.New(cfg.LLM)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	eng, err := engine.New(g, client, cfg.Engine)
	require.NoError(t, err)
	ans, err := eng.Ask(context.Background(), engine.Request{Question: q.Question, TopicEntities: topic})
	require.NoError(t, err)
	require.Len(t, ans.Recoveries, 1, "the engine asked the echoing verdict again")
	require.Equal(t, kgqa.RecoveryAlignedRecheck, ans.Recoveries[0].Kind)
	return api.FromAnswer(ans)
}

// TestViewerShowsRecoveries opens an answer whose verdict the engine
// asked again: the summary lists the answer's recoveries (what was
// revisited, in which subgoal, what the engine had and what it took), and
// the subgoal's own detail lists its recovery beside its verdict.
func TestViewerShowsRecoveries(t *testing.T) {
	resp := recoveredAnswer(t)
	rec := resp.Trace.Recoveries[0]
	body, err := json.Marshal(resp)
	require.NoError(t, err)
	literal, err := json.Marshal(string(body)) // a JavaScript string literal
	require.NoError(t, err)

	b := browsertest.New(t)
	url := newServer(t, t.TempDir())
	b.Run(30*time.Second, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#api-key"),
		chromedp.SendKeys("#api-key", apiKey+"\n"), chromedp.WaitVisible("#question"))
	b.Run(10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([`+string(literal)+`], "recovered.json", {type: "application/json"}));
		document.body.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`))
	b.WaitTrue(10*time.Second, `document.getElementById("status").textContent === "opened recovered.json"`)

	want := rec.Subgoal + ": aligned verdict asked again — " + rec.From + " → " + rec.To
	assert.Equal(t, []string{want}, browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".answer-recoveries li")).map(li => li.textContent)`))
	assert.Equal(t, "Recoveries (1)", browsertest.Eval[string](b, `document.querySelector(".answer-recoveries h4").textContent`))
	assert.Contains(t, rec.From, "San Francisco Giants", "the first verdict answered with the team")

	b.Run(10*time.Second, chromedp.Click(`#plan .node[data-id="`+rec.Subgoal+`"]`), chromedp.WaitVisible(`.subgoal[aria-label="subgoal `+rec.Subgoal+`"]`))
	assert.Equal(t, []string{"aligned verdict asked again — " + rec.From + " → " + rec.To},
		browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".detail .subgoal-recoveries li")).map(li => li.textContent)`))
	b.FullScreenshot(browsertest.ScreenshotDir(t), "viewer-recoveries")
	assert.Empty(t, b.Errors(), "console errors")
}
