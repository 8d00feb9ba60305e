package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
)

// TestMarkdownCountsWrongAnswersAsMisses: a run with wrong answers and no
// errors does not say "Failures: None"; it counts the misses, which the
// HTML report's Misses table lists, and keeps the errors apart.
func TestMarkdownCountsWrongAnswersAsMisses(t *testing.T) {
	rs := []eval.Result{{ID: "q1", Hit: true, F1: 1}, {ID: "q2", Prediction: "Paris"}, {ID: "q3", Prediction: "Lyon"}}
	rep := BuildReport([]ResultSet{{Name: "run", Format: "parog", Results: rs}}, ReportOptions{})
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "### Misses\n\n2 of 3 answers miss (0 of them errors, 0 results missing)")
	assert.NotContains(t, md.String(), "### Failures")
	assert.Contains(t, md.String(), "### Errors (questions whose run failed)\n\nNone.")

	all := BuildReport([]ResultSet{{Name: "run", Format: "parog", Results: rs[:1]}}, ReportOptions{})
	md.Reset()
	require.NoError(t, all.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "### Misses\n\nNone: every answer names a gold answer.")
}
