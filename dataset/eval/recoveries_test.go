package eval_test

import (
	"path/filepath"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An answer's recoveries reach its results line and survive the file.
func TestResultsLineKeepsTheAnswersRecoveries(t *testing.T) {
	recs := []kgqa.Recovery{{Kind: kgqa.RecoveryBacktrack, Subgoal: "s1", From: "people.person.nationality", To: "people.person.place_of_birth"}}
	p := eval.PredictionFromAnswer(&kgqa.Answer{Text: "Honolulu", Recoveries: recs})
	q := dataset.Question{ID: "q1", Text: "Where was Barack Obama born?", Answers: []dataset.Answer{{Name: "Honolulu"}}}
	var res eval.Result
	eval.Fill(&res, &q, p, score.Scorer{})
	assert.Equal(t, recs, res.Recoveries)

	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := eval.CreateResultWriter(path, false)
	require.NoError(t, err)
	res.ID = q.ID
	require.NoError(t, w.Write(&res))
	require.NoError(t, w.Close())
	rf, err := eval.ReadResults(path)
	require.NoError(t, err)
	require.Len(t, rf.Latest(), 1)
	assert.Equal(t, recs, rf.Latest()[0].Recoveries)
}
