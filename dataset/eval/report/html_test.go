package report

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parog/parog-go/internal/realdata"

	"github.com/parog/parog-go/dataset/eval/evaltest"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

// demoRun runs the engine over the demo questions with a model whose every
// tentative answer is wrong and that refuses the last question's plan, and
// returns the results file.
func demoRun(t *testing.T) string {
	t.Helper()
	qs := evaltest.DemoQuestions(t)
	m := kgqatest.NewDemoModel(kgqatest.BelieveAlways("Atlantis"), kgqatest.RefusePlan(qs[len(qs)-1].Text))
	srv := llmtest.New(t, llmtest.WithHandler(m.Handle))
	ans := evaltest.NewAnswerer(t, evaltest.DemoConfig(t, srv.URL()))
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	w, err := eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	_, err = eval.Run(context.Background(), ans, qs, w, eval.RunOptions{Concurrency: 4})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return path
}

// TestHTMLReportInBrowser writes the HTML report of a demo run beside the
// excerpt of PoG's released GrailQA results (in testdata, so that a fresh
// clone runs it too) and loads it in headless Chromium: it must render
// without console errors, and a failed question's trace must open from the
// failure table.
func TestHTMLReportInBrowser(t *testing.T) {
	b := browsertest.New(t)
	ours, err := LoadRun(demoRun(t), Gold{})
	require.NoError(t, err)
	pog, err := LoadRun(realdata.Excerpt(t, "pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl"), Gold{})
	require.NoError(t, err)
	runs := []ResultSet{ours, pog}
	h := NewHTMLReport(BuildReport(runs, ReportOptions{BootstrapRounds: 200}), runs)

	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	require.NoError(t, err)
	require.NoError(t, h.WriteHTML(f))
	require.NoError(t, f.Close())
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	for _, load := range []string{"src=", "href=", "url(http", "url(//", "@import", "fetch("} {
		assert.False(t, strings.Contains(string(html), load), "the page loads nothing, but it has %q", load)
	}

	b.Run(60*time.Second, chromedp.Navigate("file://"+page), chromedp.WaitVisible("#failures"))
	b.Screenshot(browsertest.ScreenshotDir(t), "report")
	assert.Equal(t, 1, browsertest.Eval[int](b, `document.querySelectorAll("#hits svg.bars").length`), "Hits@1 bars for our run; PoG's file is unscored without gold")
	assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("hits").textContent`), "Hits@1 n/a")
	assert.Equal(t, 1, browsertest.Eval[int](b, `document.querySelectorAll("#failures .results").length`), "no failure table for the unscored run")
	assert.Equal(t, 2, browsertest.Eval[int](b, `document.querySelectorAll("#cost figure").length`), "calls and tokens histograms")
	assert.Equal(t, 2, browsertest.Eval[int](b, `document.querySelectorAll("#cost figure:first-of-type .legend .key").length`), "ours beside PoG's")
	assert.Equal(t, 1, browsertest.Eval[int](b, `document.querySelectorAll("#refinement table.matrix").length`))
	// A log axis has no 0: the tokens axis starts at the power of ten at
	// or below the fewest tokens a question took.
	minTokens := 0
	for _, r := range append(append([]eval.Result{}, ours.Results...), pog.Results...) {
		if r.TotalToken > 0 && (minTokens == 0 || r.TotalToken < minTokens) {
			minTokens = r.TotalToken
		}
	}
	ticks := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll('svg[aria-label="tokens per question"] text.x-tick')).map(t => t.textContent)`)
	require.NotEmpty(t, ticks)
	assert.NotContains(t, ticks, "0", "a log axis from 0")
	first := ticks[0]
	if k, ok := strings.CutSuffix(first, "k"); ok {
		first = k + "000"
	}
	lo, err := strconv.Atoi(first)
	require.NoError(t, err, "tick %q", ticks[0])
	assert.LessOrEqual(t, lo, minTokens)
	assert.Greater(t, lo*10, minTokens, "the axis starts at the decade of the smallest value, ticks %v", ticks)
	fromKG, verified := 0, 0
	for _, r := range ours.Results {
		if r.CertificateCovers == "all" || r.CertificateCovers == "partial" {
			fromKG++
			if *r.CertificateVerified {
				verified++
			}
		}
	}
	require.Positive(t, fromKG, "the demo run's answers come from the KG")
	certs := browsertest.Eval[string](b, `document.getElementById("certificates").textContent`)
	assert.Contains(t, certs, "("+strconv.Itoa(verified)+"/"+strconv.Itoa(fromKG)+")", "the run's verified share")
	assert.Equal(t, 1, browsertest.Eval[int](b, `document.querySelectorAll("#certificates table").length`), "a table for our run only: PoG's rows have no certificates")

	failed, refused := 0, ""
	for _, r := range ours.Results {
		if !r.Hit {
			failed++
			refused = r.Question
		}
	}
	require.Positive(t, failed)
	count := browsertest.Eval[string](b, `document.querySelector("#failures .results .meta").textContent`)
	assert.True(t, strings.HasPrefix(count, strconv.Itoa(failed)+" of "), "failure count %q, want %d", count, failed)

	b.Run(30*time.Second, chromedp.Click("#failures button.open"), chromedp.WaitVisible("#failure-trace .trace"))
	shown := browsertest.Eval[string](b, `document.querySelector("#failure-trace .trace").textContent`)
	assert.Contains(t, shown, refused, "the failed question's trace")
	assert.Contains(t, shown, "stop reason: error")
	b.Screenshot(browsertest.ScreenshotDir(t), "report-failure-trace")
	assert.Empty(t, b.Errors(), "console errors")
}
