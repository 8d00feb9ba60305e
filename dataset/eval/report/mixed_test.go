package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/evaltest"
)

// TestMixedReportScoresEachRunOnItsOwn is a demo run beside a WebQSP run
// with --allow-mixed and the WebQSP questions given: the demo run is not
// counted as missing every WebQSP question (it read "66.7% (20/30)" with
// a bootstrap of [0.0, 0.0]), and the page is not titled "webqsp".
func TestMixedReportScoresEachRunOnItsOwn(t *testing.T) {
	demo := ResultSet{Name: "ceiling.jsonl", Format: "parog", Dataset: "demo", Results: []eval.Result{
		{ID: "demo-01", Hit: true, F1: 1}, {ID: "demo-02", Hit: true, F1: 1}, {ID: "demo-03", Prediction: "Lyon"}}}
	web := ResultSet{Name: "webqsp.jsonl", Format: "parog", Dataset: "webqsp", Results: []eval.Result{{ID: "syn-0000"}}}
	rep := BuildReport([]ResultSet{demo, web}, ReportOptions{Dataset: "webqsp", Questions: evaltest.SyntheticQuestions(5)})

	assert.Equal(t, "mixed", rep.Dataset)
	d := rep.Runs[0]
	assert.Equal(t, 3, d.Seeds[0].N, "the demo run's denominator is its own questions")
	assert.InDelta(t, 2.0/3, d.Hits1.Mean, 1e-12)
	assert.Equal(t, 3, d.Hits1Boot.N)
	assert.Positive(t, d.Hits1Boot.High, "the bootstrap is over the run's own questions")
	assert.LessOrEqual(t, d.Hits1Boot.Low, d.Hits1.Mean)
	require.Len(t, d.Rules, 1)
	assert.Equal(t, RuleScore{Rule: RuleStrict, N: 3, Hits: 2, Hits1: 2.0 / 3}, d.Rules[0])
	assert.Equal(t, 5, rep.Runs[1].Seeds[0].N, "the WebQSP run is scored against the WebQSP questions")

	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.NotContains(t, md.String(), "Dataset: webqsp")
	assert.Contains(t, md.String(), "Datasets: mixed (demo, webqsp)")
	assert.Contains(t, md.String(), "not scored against the webqsp questions")
	var page bytes.Buffer
	require.NoError(t, NewHTMLReport(rep, []ResultSet{demo, web}).WriteHTML(&page))
	assert.Contains(t, page.String(), "<title>PARoG evaluation report: mixed datasets (demo, webqsp)</title>")
}
