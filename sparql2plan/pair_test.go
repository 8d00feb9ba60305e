package sparql2plan

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
)

// pairOf is q as parog sparql2plan hands it over.
func pairOf(q dataset.Question) Pair {
	p := Pair{ID: q.ID, Text: q.Text, SPARQL: q.SPARQL, Source: string(q.Source), Label: q.Label}
	for _, e := range q.TopicEntities {
		p.TopicEntities = append(p.TopicEntities, Entity{ID: e.ID, Name: e.Name})
	}
	return p
}

// loadPairs loads a benchmark file as parog sparql2plan does: its
// questions as pairs, and the records the loader left out.
func loadPairs(tb testing.TB, path string, f dataset.Format) ([]Pair, []dataset.Skipped) {
	tb.Helper()
	l, err := dataset.LoadFile(context.Background(), path, f)
	require.NoError(tb, err)
	out := make([]Pair, len(l.Questions))
	for i, q := range l.Questions {
		out[i] = pairOf(q)
	}
	return out, l.Skipped
}

// questions hands a Run pairs already loaded, with malformed records.
func questions(qs []Pair, malformed int) func(context.Context) ([]Pair, int, error) {
	return func(context.Context) ([]Pair, int, error) { return qs, malformed, nil }
}

// TestSourceNamesAreDatasetFormats checks that the format names
// LabelAgrees compares are the ones package dataset gives its formats.
func TestSourceNamesAreDatasetFormats(t *testing.T) {
	assert.Equal(t, string(dataset.CWQ), sourceCWQ)
	assert.Equal(t, string(dataset.GrailQA), sourceGrailQA)
	assert.Equal(t, string(dataset.Demo), sourceDemo)
}
