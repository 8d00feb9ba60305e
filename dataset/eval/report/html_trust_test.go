package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/pogrule"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

// Runs of different datasets are refused unless asked for, naming each
// run's dataset, which comes from the file name or the ids.
func TestCheckMixed(t *testing.T) {
	demo, err := LoadRun(demoRun(t), Gold{})
	require.NoError(t, err)
	assert.Equal(t, "demo", demo.Dataset, "from the ids")
	cwq, err := LoadRun(pogFile(t, "PoG_cwq_gpt-3.5-turbo-0125.jsonl"), Gold{})
	require.NoError(t, err)
	grail, err := LoadRun(pogFile(t, "PoG_grailqa_gpt-3.5-turbo-0125.jsonl"), Gold{})
	require.NoError(t, err)
	assert.Equal(t, "cwq", cwq.Dataset, "from the file name")
	require.NoError(t, CheckMixed([]ResultSet{cwq}, false))
	err = CheckMixed([]ResultSet{demo, cwq, grail}, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PoG_cwq_gpt-3.5-turbo-0125.jsonl (cwq), PoG_grailqa_gpt-3.5-turbo-0125.jsonl (grailqa)")
	assert.Contains(t, err.Error(), "--allow-mixed")
	require.NoError(t, CheckMixed([]ResultSet{demo, cwq, grail}, true))
	assert.Equal(t, "mixed", BuildReport([]ResultSet{cwq, grail}, ReportOptions{BootstrapRounds: 50}).Dataset)
	assert.Equal(t, "grailqa", BuildReport([]ResultSet{grail}, ReportOptions{BootstrapRounds: 50}).Dataset)
}

// colours lists, per run index, the distinct colours its marks have in the
// Hits@1 bars, the ECDF curves and the legend keys.
const colours = `(() => {
	const out = {};
	const add = (cls, c) => { const m = /\br(\d)\b/.exec(cls); if (m) (out[m[1]] = out[m[1]] || new Set()).add(c); };
	document.querySelectorAll("#hits rect.bar").forEach(r => add(r.getAttribute("class"), getComputedStyle(r).fill));
	document.querySelectorAll("#cost path.ecdf-line").forEach(p => add(p.getAttribute("class"), getComputedStyle(p).stroke));
	document.querySelectorAll("#cost .legend .key").forEach(k => add(k.getAttribute("class"), getComputedStyle(k, "::before").backgroundColor));
	return Object.keys(out).sort().map(k => Array.from(out[k]));
})()`

// medianAt gives, per ECDF curve of the calls chart, where its median
// falls along the x axis, as a share of the axis width.
const medianAt = `(() => {
	const svg = document.querySelector("#cost svg.ecdf"), grid = svg.querySelectorAll("line.grid");
	const x0 = 64, w = 560;
	return Array.from(svg.querySelectorAll("path.ecdf-line")).map(p => {
		const len = p.getTotalLength(), y50 = 10 + 0.5 * 180;
		for (let i = 0; i <= 2000; i++) { const pt = p.getPointAtLength(len * i / 2000); if (pt.y <= y50) return (pt.x - x0) / w; }
		return 1;
	});
})()`

// The HTML report of one seed of ours beside PoG's GrailQA results (with
// their gold, so both rules apply): ECDFs on a log scale that neither
// run's tail flattens, a bootstrap interval for the one seed, a title and
// labels from the files' datasets, one colour per run, and the pog rule
// and PoG's reasoning chains in the failures table.
func TestHTMLReportDoesNotMislead(t *testing.T) {
	b := browsertest.New(t)
	ours, err := LoadRun(demoRun(t), Gold{})
	require.NoError(t, err)
	goldPath := pogFile(t, "grailqa_gold.json")
	data, err := os.ReadFile(goldPath)
	require.NoError(t, err)
	pg, err := pogrule.LoadPoGGold(data, dataset.GrailQA, nil)
	require.NoError(t, err)
	qs, err := dataset.LoadFile(t.Context(), goldPath, dataset.GrailQA)
	require.NoError(t, err)
	pog, err := LoadRun(pogFile(t, "PoG_grailqa_gpt-3.5-turbo-0125.jsonl"), Gold{Questions: qs.Questions, PoG: pg})
	require.NoError(t, err)
	runs := []ResultSet{ours, pog}
	require.NoError(t, CheckMixed(runs, true))
	h := NewHTMLReport(BuildReport(runs, ReportOptions{BootstrapRounds: 200}), runs)
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	require.NoError(t, err)
	require.NoError(t, h.WriteHTML(f))
	require.NoError(t, f.Close())

	b.Run(60*time.Second, chromedp.Navigate("file://"+page), chromedp.WaitVisible("#failures"))
	shots := browsertest.ScreenshotDir(t)
	b.Screenshot(shots, "report-trust-hits")
	for _, part := range []string{"cost", "failures"} {
		b.Run(10*time.Second, chromedp.Evaluate[chromedp.Void](`document.getElementById("`+part+`").scrollIntoView()`))
		b.Screenshot(shots, "report-trust-"+part)
	}

	assert.Contains(t, browsertest.Eval[string](b, `document.title`), "mixed datasets (demo, grailqa)")
	assert.Equal(t, []string{"demo.jsonl [demo] (strict rule)", "PoG_grailqa_gpt-3.5-turbo-0125.jsonl [grailqa] (strict rule)"},
		browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#hits h3")).map(h => h.textContent)`), "each run labelled with its dataset")

	assert.Equal(t, 2, browsertest.Eval[int](b, `document.querySelectorAll("#cost svg.ecdf").length`), "calls and tokens")
	for i, m := range browsertest.Eval[[]float64](b, medianAt) {
		assert.Greater(t, m, 0.15, "run %d's median is not crushed against the axis", i)
		assert.Less(t, m, 0.9, "run %d", i)
	}
	assert.True(t, browsertest.Eval[bool](b, `Array.from(document.querySelectorAll("#cost svg.ecdf")).every(svg => {
		const l = svg.querySelector(".y-label").getBBox(), vb = svg.viewBox.baseVal;
		const m = svg.querySelector(".y-label").transform.baseVal.consolidate().matrix;
		const x = m.a * l.x + m.c * l.y + m.e, y = m.b * l.x + m.d * l.y + m.f;
		const x2 = m.a * (l.x + l.width) + m.c * (l.y + l.height) + m.e;
		return Math.min(x, x2) >= 0 && Math.max(x, x2) <= vb.width && y <= vb.height;
	})`), "the y-axis label lies inside its chart")

	whiskers := browsertest.Eval[[]float64](b, `Array.from(document.querySelectorAll("#hits svg.bars")).map(svg => svg.querySelector("path.ci").getBBox().width)`)
	require.Len(t, whiskers, 2)
	for i, w := range whiskers {
		assert.Greater(t, w, 2.0, "run %d: the 'all' bar has an interval although there is one seed", i)
	}
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector("#hits svg.bars .bar-value").textContent`), "bootstrap over questions")

	cs := browsertest.Eval[[][]string](b, colours)
	require.Len(t, cs, 2, "two runs")
	assert.Len(t, cs[0], 1, "run 0 has one colour in every chart: %v", cs[0])
	assert.Len(t, cs[1], 1, "run 1 has one colour in every chart: %v", cs[1])
	assert.NotEqual(t, cs[0], cs[1])

	heads := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#failures .results:last-of-type th")).map(t => t.textContent)`)
	assert.Contains(t, heads, "strict")
	assert.Contains(t, heads, "pog rule")
	assert.Contains(t, heads, "reasoning chains")
	assert.Positive(t, browsertest.Eval[int](b, `document.querySelectorAll("#failures details.chains").length`), "PoG's chains, folded")
	assert.False(t, browsertest.Eval[bool](b, `Array.from(document.querySelectorAll("#failures details.chains")).some(d => d.open)`))
	outcomes := browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll("#failures .results:last-of-type tbody tr")).map(tr => tr.children[6].textContent + "/" + tr.children[7].textContent)`)
	assert.Contains(t, outcomes, "miss/hit", "a strict miss that PoG's rule counts: the two outcomes side by side")
	assert.Empty(t, b.Errors(), "console errors")
}
