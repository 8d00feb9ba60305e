package sparql2plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/sparql2plan/internal/sparqlsyntax"
)

// goldFile is a benchmark file with gold SPARQL and how many questions
// carry a query.
type goldFile struct {
	path    string
	format  dataset.Format
	queries int
}

// parseGold parses every gold query of f after Normalize and reports the
// ones that fail.
func parseGold(t *testing.T, path string, f goldFile) {
	t.Helper()
	l, err := dataset.LoadFile(t.Context(), path, f.format)
	require.NoError(t, err)
	n := 0
	for _, q := range l.Questions {
		if q.SPARQL == "" {
			continue
		}
		n++
		norm, _ := Normalize(q.SPARQL)
		_, err := sparqlsyntax.Parse(norm)
		assert.NoError(t, err, "%s %s:\n%s", f.path, q.ID, norm)
	}
	assert.Equal(t, f.queries, n, "gold queries in %s", f.path)
}

// TestGoldQueriesParseInExcerpts parses the gold queries of the
// repository's excerpts (a fresh clone runs it).
func TestGoldQueriesParseInExcerpts(t *testing.T) {
	for _, f := range []goldFile{{cwqFile, dataset.CWQ, 30}, {grailQAFile, dataset.GrailQA, 30}, {webQSPFile, dataset.WebQSP, 30}} {
		t.Run(string(f.format), func(t *testing.T) { parseGold(t, realdata.Excerpt(t, f.path), f) })
	}
}

// TestGoldQueriesParseInFullData parses every gold query of the shared
// benchmark files: 4,981 queries, all of which parse once normalised.
func TestGoldQueriesParseInFullData(t *testing.T) {
	for _, f := range []goldFile{
		{cwqFile, dataset.CWQ, 1057}, {grailQAFile, dataset.GrailQA, 493},
		{webQSPFile, dataset.WebQSP, 3098}, {"tog/qald_10-en.json", dataset.QALD, 333},
	} {
		t.Run(string(f.format), func(t *testing.T) { parseGold(t, realdata.Path(t, f.path), f) })
	}
}
