package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A results file whose answers carry recoveries: the report counts the
// answers that had one, the recoveries by kind, and the Hits@1 of those
// answers with its Wilson interval.
func TestReportCountsRecoveries(t *testing.T) {
	lines := `{"id":"q1","seed":1,"question":"a","results":"x","hit":true,"recoveries":[{"kind":"backtrack","subgoal":"s1","from":"people.person.nationality","to":"people.person.place_of_birth"},{"kind":"aligned_recheck","subgoal":"s2","from":"aligned","to":"misaligned"}]}
{"id":"q2","seed":1,"question":"b","results":"y","hit":false,"recoveries":[{"kind":"backtrack","subgoal":"s1","from":"location.location.contains","to":""}]}
{"id":"q3","seed":1,"question":"c","results":"z","hit":true}
{"id":"q4","seed":1,"question":"d","results":"w","hit":true,"recoveries":[{"kind":"next_relation","subgoal":"s2","from":"a","to":"b"}]}
`
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(lines), 0o644))
	run, err := LoadRun(path, Gold{})
	require.NoError(t, err)
	require.Len(t, run.Results, 4)
	assert.Equal(t, []kgqa.Recovery{{Kind: kgqa.RecoveryNextRelation, Subgoal: "s2", From: "a", To: "b"}}, run.Results[3].Recoveries)

	rep := BuildReport([]ResultSet{run}, ReportOptions{})
	rc := rep.Runs[0].Recoveries
	assert.Equal(t, RecoveryStats{Answers: 4, Recovered: 3, RecoveredHits: 2, Recoveries: 4,
		ByKind: map[string]int{"backtrack": 2, "aligned_recheck": 1, "next_relation": 1}}, rc)
	iv := rc.Hits1()
	assert.InDelta(t, 2.0/3, iv.Mean, 1e-12)
	assert.InDelta(t, 0.2077, iv.Low, 5e-5, "Wilson interval of 2 of 3")
	assert.InDelta(t, 0.9385, iv.High, 5e-5)

	var md strings.Builder
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "Answers with at least one recovery: 3 of 4 (75.0%); Hits@1 of those: 66.7% [20.8, 93.9] (2/3).")
	assert.Contains(t, md.String(), "| backtrack | 2 |\n")
	assert.Contains(t, md.String(), "| next_relation | 1 |\n")
}

// A run without recoveries says so.
func TestReportWithoutRecoveries(t *testing.T) {
	rep := BuildReport([]ResultSet{{Name: "a", Format: "parog", Results: []eval.Result{{ID: "q1", Hit: true}}}}, ReportOptions{})
	var md strings.Builder
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "### Recoveries")
	assert.Contains(t, md.String(), "None in 1 answers.")
}

// Each type's Hits@1 has its Wilson interval beside it.
func TestByTypeHasWilsonIntervals(t *testing.T) {
	rep := BuildReport([]ResultSet{{Name: "run.jsonl", Format: "parog", Results: reportFixture()}}, ReportOptions{})
	var md strings.Builder
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "| composition | 2 | 100.0% | [34.2, 100.0] |")
	assert.Contains(t, md.String(), "| conjunction | 4 | 25.0% | [4.6, 69.9] |")
}
