package report

import (
	"bytes"
	"testing"

	"github.com/parog/parog-go/dataset/eval"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
)

// TestRefinementStatsFromComposedTentatives takes engine answers with a
// composed tentative answer through eval.PredictionFromAnswer and scoring to
// the report's refinement statistics.
func TestRefinementStatsFromComposedTentatives(t *testing.T) {
	xsdInt := "http://www.w3.org/2001/XMLSchema#integer"
	derivable := func(names ...string) *kgqa.TentativeAnswer {
		return &kgqa.TentativeAnswer{Derivable: true, Names: append([]string{}, names...)}
	}
	notDerivable := &kgqa.TentativeAnswer{Names: []string{}, Reason: "subgoal s2 (superlative) needs attribute values, which tentative answers do not give"}
	ent := func(id, name string) []kgqa.Term { return []kgqa.Term{{ID: id, Name: name}} }
	num := func(n string) []kgqa.Term { return []kgqa.Term{{Name: n, Datatype: xsdInt}} }
	cases := []struct {
		q       dataset.Question
		final   []kgqa.Term
		tent    *kgqa.TentativeAnswer
		err     string
		judged  bool
		tentHit bool
	}{
		// right tentative, right final
		{dataset.Question{ID: "c1", Label: "conjunction", Answers: []dataset.Answer{{ID: "m.0345h", Name: "Germany"}}},
			ent("m.0345h", "Germany"), derivable("germany"), "", true, true},
		// empty intersection of tentative answers: wrong; final right: fixed
		{dataset.Question{ID: "c2", Label: "conjunction", Answers: []dataset.Answer{{ID: "m.06mkj", Name: "Spain"}}},
			ent("m.06mkj", "Spain"), derivable(), "", true, false},
		// tentative count 3, gold 10, final 10: fixed
		{dataset.Question{ID: "n1", Label: "count", Answers: []dataset.Answer{{Name: "10", Datatype: xsdInt}}},
			num("10"), derivable("3"), "", true, false},
		// tentative count 4 right, final 5 wrong: broken
		{dataset.Question{ID: "n2", Label: "count", Answers: []dataset.Answer{{Name: "4", Datatype: xsdInt}}},
			num("5"), derivable("4"), "", true, true},
		// tentative 2, final 7, gold 8: wrong and not fixed
		{dataset.Question{ID: "n3", Label: "count", Answers: []dataset.Answer{{Name: "8", Datatype: xsdInt}}},
			num("7"), derivable("2"), "", true, false},
		// a non-answer name is no answer: wrong; final right: fixed
		{dataset.Question{ID: "p1", Label: "composition", Answers: []dataset.Answer{{ID: "m.0156q", Name: "Berlin"}}},
			ent("m.0156q", "Berlin"), derivable("unknown"), "", true, false},
		// superlative: not derivable
		{dataset.Question{ID: "s1", Label: "superlative", Answers: []dataset.Answer{{ID: "m.0dznkz", Name: "2014 World Series"}}},
			ent("m.0dznkz", "2014 World Series"), notDerivable, "", false, false},
		// failed question: counted nowhere
		{dataset.Question{ID: "s2", Label: "superlative", Answers: []dataset.Answer{{ID: "m.0dznkz", Name: "2014 World Series"}}},
			nil, notDerivable, "kgqa: deadline", false, false},
	}
	var rs []eval.Result
	for _, c := range cases {
		ans := &kgqa.Answer{Entities: c.final, TentativeAnswer: c.tent}
		res := eval.Result{ID: c.q.ID, Type: c.q.Label}
		eval.Fill(&res, &c.q, eval.PredictionFromAnswer(ans), score.Scorer{})
		if c.err != "" {
			res.Error, res.Hit = c.err, false
		}
		if c.judged {
			require.NotNil(t, res.TentativeHit, c.q.ID)
			assert.Equal(t, c.tentHit, *res.TentativeHit, c.q.ID)
		} else {
			assert.Nil(t, res.TentativeHit, c.q.ID)
			assert.Equal(t, c.tent.Reason, res.TentativeNotDerivable, c.q.ID)
		}
		rs = append(rs, res)
	}
	st := refinementStats(rs)
	// Judged: c1 c2 n1 n2 n3 p1. Wrong: c2 n1 n3 p1, of which c2 n1 p1
	// ended right: 3/4. Broken: n2. Not derivable: s1 (s2 failed).
	assert.Equal(t, 6, st.Judged)
	assert.Equal(t, 1, st.NotDerivable)
	assert.Equal(t, 4, st.TentativeWrong)
	assert.Equal(t, 3, st.Fixed)
	assert.InDelta(t, 0.75, st.FixRate, 1e-12)
	assert.Equal(t, 1, st.Broken)
	assert.Equal(t, []RefinementByType{
		{Type: "composition", Judged: 1, TentativeWrong: 1, Fixed: 1},
		{Type: "conjunction", Judged: 2, TentativeWrong: 1, Fixed: 1},
		{Type: "count", Judged: 3, TentativeWrong: 2, Fixed: 1, Broken: 1},
		{Type: "superlative", NotDerivable: 1},
	}, st.ByType)

	var md bytes.Buffer
	rep := Report{Runs: []RunReport{{Name: "r", Format: "parog", Refinement: st}}}
	require.NoError(t, rep.WriteMarkdown(&md))
	for _, want := range []string{
		"Tentative answer wrong on 4 of 6 judged questions (66.7%); refinement fixed 3 of them (**75.0%**)",
		"Right tentative answers lost by refinement: 1. Not derivable: 1.",
		"| count | 3 | 0 | 2 | 1 | 50.0% | 1 |",
		"| superlative | 0 | 1 | 0 | 0 | - | 0 |",
	} {
		assert.Contains(t, md.String(), want)
	}
}

// A rescore reads the composed tentative names, not the words: the
// engine's text for an intersection joins names with "; ".
func TestRescoreReadsTentativeNames(t *testing.T) {
	q := dataset.Question{ID: "c1", Label: "conjunction", Answers: []dataset.Answer{{ID: "m.0345h", Name: "Germany"}}}
	stale := false
	rs := []eval.Result{{ID: "c1", Entities: []score.PredEntity{{ID: "m.0345h"}}, Tentative: "Germany; Belgium",
		TentativeNames: []string{"Germany", "Belgium"}, TentativeHit: &stale}}
	out := rescore(rs, map[string]*dataset.Question{"c1": &q}, score.Scorer{})
	require.NotNil(t, out[0].TentativeHit)
	assert.True(t, *out[0].TentativeHit, "the top tentative name is Germany")
	assert.True(t, out[0].Hit)
	// The same line without names falls back to the text, read as one
	// name, which is no gold name.
	rs[0].TentativeNames = nil
	out = rescore(rs, map[string]*dataset.Question{"c1": &q}, score.Scorer{})
	assert.False(t, *out[0].TentativeHit)
}
