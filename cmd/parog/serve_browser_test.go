package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

// TestViewerDemoQuestionsOnMakeRun boots what `make run` runs (serve
// --config configs/demo.yaml, no model) and drives the viewer in headless
// Chromium: it names the scripted demo model, lists the demo questions,
// and clicking one shows its answer and its trace.
func TestViewerDemoQuestionsOnMakeRun(t *testing.T) {
	b := browsertest.New(t)
	base, _ := serveDemo(t)
	url := base + "/"

	qs := demokg.FreebaseQuestions()
	b.Run(30*time.Second, chromedp.Navigate(url), chromedp.WaitVisible("#demo-questions button"))
	assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("status").textContent`), demoModelLabel)
	assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("demo-model").textContent`), demoModelLabel)
	listed := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#demo-questions button")).map(b => b.textContent)`)
	require.Len(t, listed, len(qs))
	for i, q := range qs {
		assert.Equal(t, q.Question, listed[i])
	}

	q := qs[0]
	b.Run(30*time.Second, chromedp.Click(`#demo-questions button[data-id="`+q.ID+`"]`), chromedp.WaitVisible(".trace .answer-text"))
	b.WaitTrue(60*time.Second, `document.querySelector(".answer-text").textContent !== "…"`)
	answer := browsertest.Eval[string](b, `document.querySelector(".answer-text").textContent`)
	for _, a := range q.Answers {
		assert.Contains(t, answer, a.Name)
	}
	assert.Positive(t, browsertest.Eval[int](b, `document.querySelectorAll("#plan .node").length`), "the trace's plan")
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector(".trace").textContent`), "stop reason:")
	b.FullScreenshot(browsertest.ScreenshotDir(t), "viewer-demo-model")
	assert.Empty(t, b.Errors(), "console errors")
}
