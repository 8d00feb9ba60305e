package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/evaltest"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTInterval(t *testing.T) {
	iv := score.TInterval([]float64{0.5, 0.6, 0.7})
	assert.InDelta(t, 0.6, iv.Mean, 1e-12)
	// s = 0.1, t(2) = 4.303: half width 4.303*0.1/sqrt(3) = 0.24844.
	assert.InDelta(t, 0.6-0.24844, iv.Low, 1e-4)
	assert.InDelta(t, 0.6+0.24844, iv.High, 1e-4)
	one := score.TInterval([]float64{0.4})
	assert.Equal(t, score.Interval{Mean: 0.4, Low: 0.4, High: 0.4, N: 1}, one)
	assert.Equal(t, 1.96, score.TQuantile975(1000))
}

func TestBootstrap(t *testing.T) {
	xs := make([]float64, 200)
	for i := range xs {
		if i%4 != 0 {
			xs[i] = 1
		}
	}
	a := score.Bootstrap(xs, 2000)
	b := score.Bootstrap(xs, 2000)
	assert.Equal(t, a, b, "deterministic")
	assert.InDelta(t, 0.75, a.Mean, 1e-12)
	// Normal approximation: sd = sqrt(.75*.25/200) = 0.0306, so the 95%
	// interval is about ±0.06.
	assert.InDelta(t, 0.69, a.Low, 0.015)
	assert.InDelta(t, 0.81, a.High, 0.015)
	flat := score.Bootstrap([]float64{1, 1, 1}, 100)
	assert.Equal(t, score.Interval{Mean: 1, Low: 1, High: 1, N: 3}, flat)
}

func bp(b bool) *bool { return &b }

func reportFixture() []eval.Result {
	s1, s2 := intp(1), intp(2)
	return []eval.Result{
		{ID: "q1", Seed: s1, Type: "composition", Hit: true, F1: 1, TentativeHit: bp(false), CallNum: 4, TotalToken: 400, Time: 1,
			Verdicts: []eval.SubgoalVerdict{{Subgoal: "s1", Aligned: bp(true), Corrected: true}, {Subgoal: "s2", Aligned: bp(false)}}},
		{ID: "q2", Seed: s1, Type: "conjunction", Hit: false, F1: 0.5, TentativeHit: bp(false), CallNum: 6, TotalToken: 600, Time: 2},
		{ID: "q3", Seed: s1, Type: "conjunction", Error: "kgqa: plan: llm: endpoint unavailable", ErrorKind: "llm_unavailable", CallNum: 2, TotalToken: 100, Time: 3},
		{ID: "q1", Seed: s2, Type: "composition", Hit: true, F1: 1, TentativeHit: bp(true), CallNum: 4, TotalToken: 400, Time: 1},
		{ID: "q2", Seed: s2, Type: "conjunction", Hit: true, F1: 1, TentativeHit: bp(true), CallNum: 8, TotalToken: 800, Time: 4},
		{ID: "q3", Seed: s2, Type: "conjunction", Hit: false, F1: 0, TentativeHit: bp(true), CallNum: 6, TotalToken: 500, Time: 5},
	}
}

func TestBuildReport(t *testing.T) {
	rep := BuildReport([]ResultSet{{Name: "run.jsonl", Format: "parog", Results: reportFixture()}}, ReportOptions{Dataset: "cwq"})
	require.Len(t, rep.Runs, 1)
	r := rep.Runs[0]
	assert.Equal(t, 3, r.Questions)
	require.Len(t, r.Seeds, 2)
	assert.Equal(t, SeedReport{Seed: "1", N: 3, Hits: 1, Errors: 1, Hits1: 1.0 / 3, F1: 0.5}, r.Seeds[0])
	assert.Equal(t, SeedReport{Seed: "2", N: 3, Hits: 2, Hits1: 2.0 / 3, F1: 2.0 / 3}, r.Seeds[1])
	assert.InDelta(t, 0.5, r.Hits1.Mean, 1e-12)
	// Two seeds: t(1)=12.706, s = 0.2357, half = 12.706*0.2357/sqrt(2) = 2.1177.
	assert.InDelta(t, 0.5-2.1177, r.Hits1.Low, 1e-3)
	assert.InDelta(t, 0.5, r.Hits1Boot.Mean, 1e-12, "per-question seed means: 1, .5, 0")
	assert.Equal(t, []TypeReport{{Type: "composition", N: 2, Hits1: 1, F1: 1}, {Type: "conjunction", N: 4, Hits1: 0.25, F1: 0.375}}, r.ByType)
	assert.Equal(t, RefinementStats{Judged: 5, TentativeWrong: 2, Fixed: 1, FixRate: 0.5, Broken: 1, PaperFixRate: 0.624,
		Subgoals: 2, Misaligned: 1, Corrected: 1, ByType: []RefinementByType{
			// q1: wrong then hit (fixed), right then hit.
			{Type: "composition", Judged: 2, TentativeWrong: 1, Fixed: 1},
			// q2: wrong then miss, right then hit; q3: error (left out),
			// right then miss (broken).
			{Type: "conjunction", Judged: 3, TentativeWrong: 1, Broken: 1},
		}}, r.Refinement)
	assert.InDelta(t, 5.0, r.Efficiency.Calls.Mean, 1e-12)
	assert.InDelta(t, 5.0, r.Efficiency.Calls.Median, 1e-12)
	assert.Equal(t, 8.0, r.Efficiency.Calls.Max)
	require.NotNil(t, r.Efficiency.PoG, "PoG's released figures for cwq")
	assert.Contains(t, r.Efficiency.PoG.Source, "PoG_cwq_gpt-3.5-turbo-0125.jsonl")
	assert.Equal(t, PoGReleased["cwq"].Calls, r.Efficiency.PoG.Calls)
	assert.Equal(t, []FailureCount{{Kind: "llm_unavailable", Count: 1, Example: "kgqa: plan: llm: endpoint unavailable"}}, r.Failures)

	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	for _, want := range []string{"Hits@1 50.0%", "| 1 | 3 | 1 | 33.3% |", "refinement fixed 1 of them (**50.0%**; paper: 62.4%)", "| LLM calls | 5.0 | 5.0 | 7.0 | 8.0 | 13.8 | 9.0 | 28.0 |", "| llm_unavailable | 1 |"} {
		assert.Contains(t, md.String(), want)
	}
	_, err := json.Marshal(rep)
	require.NoError(t, err)
}

func TestBuildReportCountsMissingAsMisses(t *testing.T) {
	qs := evaltest.SyntheticQuestions(4)
	rs := []eval.Result{{ID: "syn-0000", Hit: true, F1: 1}, {ID: "syn-0001", Hit: true, F1: 1}}
	// Without the question list the denominator is what is in the file.
	rep := BuildReport([]ResultSet{{Name: "a", Format: "parog", Results: rs}}, ReportOptions{})
	assert.InDelta(t, 1.0, rep.Runs[0].Hits1.Mean, 1e-12)
	// With it the two missing questions count as misses. Rescoring uses the
	// stored entities, which are empty here, so the lines become misses too:
	// a line's own hit flag is not trusted over its prediction.
	rs[0].Entities = []score.PredEntity{{ID: "m.0000"}}
	rs[1].Entities = []score.PredEntity{{Name: "Answer 1"}}
	rep = BuildReport([]ResultSet{{Name: "a", Format: "parog", Results: rs}}, ReportOptions{Questions: qs})
	r := rep.Runs[0]
	assert.Equal(t, 4, r.Expected)
	assert.Equal(t, 2, r.Missing)
	assert.InDelta(t, 0.5, r.Hits1.Mean, 1e-12)
}

func TestLoadRunPoG(t *testing.T) {
	qs := []dataset.Question{
		{ID: "WebQTest-1_a", Text: "What country borders France?", Label: "conjunction", Answers: []dataset.Answer{{ID: "m.0345h", Name: "Germany"}}},
		{ID: "WebQTest-2_b", Text: "Who is it?", Label: "composition", Answers: []dataset.Answer{{Name: "Nobody"}}},
	}
	dir := t.TempDir()
	pog := `{"question": "What country borders France?", "results": "{Yes}. The answer is {Germany}.", "reasoning_chains": [], "call_num": 12, "total_token": 8000, "input_token": 7000, "output_token": 1000, "time": 30.5}
{"question": "who is it?", "results": "{Yes}", "reasoning_chains": [], "call_num": 9, "total_token": 5000, "input_token": 4500, "output_token": 500, "time": 10}
`
	path := filepath.Join(dir, "pog_cwq.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(pog), 0o644))
	run, err := LoadRun(path, Gold{Questions: qs})
	require.NoError(t, err)
	assert.Equal(t, "pog", run.Format)
	require.Len(t, run.Results, 2)
	assert.True(t, run.Results[0].Hit)
	assert.Equal(t, "WebQTest-1_a", run.Results[0].ID)
	assert.False(t, run.Results[1].Hit, "{Yes} is no answer")
	assert.Equal(t, "WebQTest-2_b", run.Results[1].ID, "matched case-insensitively")
	rep := BuildReport([]ResultSet{run}, ReportOptions{Questions: qs})
	assert.Equal(t, "cwq", rep.Dataset)
	assert.InDelta(t, 10.5, rep.Runs[0].Efficiency.Calls.Mean, 1e-12)

	// Without gold questions PoG lines are kept for efficiency and noted.
	run, err = LoadRun(path, Gold{})
	require.NoError(t, err)
	assert.NotEmpty(t, run.Notes)
}

func TestLoadRunBadFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"empty", "", "no result lines"},
		{"not json", "hello\nworld\n", "line 1"},
		{"json array", `[{"id":"a"}]` + "\n", "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))
			_, err := LoadRun(path, Gold{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := LoadRun(filepath.Join(dir, "nope.jsonl"), Gold{})
	assert.ErrorContains(t, err, "no such file")
}

func TestReportCountsAnswersWithoutKGApart(t *testing.T) {
	rs := []eval.Result{
		{ID: "syn-0000", Hit: true, F1: 1},
		{ID: "syn-0001", Hit: true, F1: 1, AnsweredWithoutKG: true},
		{ID: "syn-0002", AnsweredWithoutKG: true},
	}
	rep := BuildReport([]ResultSet{{Name: "a", Format: "parog", Results: rs}}, ReportOptions{})
	r := rep.Runs[0]
	assert.Equal(t, 2, r.WithoutKG)
	assert.Equal(t, 1, r.WithoutKGHits)
	var md strings.Builder
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "Answered without the KG (no topic entity, or no fact found; the model's own knowledge): 2 results, 1 hits.")
}

func intp(v int) *int { return &v }
