package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa"
)

// noisyPass is one noise run over four questions: q1 and q2
// (composition), q3 and q4 (conjunction); hit says which hit, kinds which
// noise kinds the oracle applied to each.
func noisyPass(seed int, hit map[string]bool, kinds map[string][]string, recs map[string][]kgqa.Recovery) *Pass {
	p := &Pass{PerQuestion: map[string]oracle.QuestionStats{}, Expected: 4}
	for _, id := range []string{"q1", "q2", "q3", "q4"} {
		typ := "composition"
		if id == "q3" || id == "q4" {
			typ = "conjunction"
		}
		s := seed
		p.Results = append(p.Results, eval.Result{ID: id, Seed: &s, Type: typ, Hit: hit[id], Recoveries: recs[id]})
		st := oracle.QuestionStats{Noisy: map[string]int{}}
		for _, k := range kinds[id] {
			st.Noisy[k]++
		}
		p.PerQuestion[id] = st
	}
	return p
}

// Two seeds of one rate pool into Hits@1 by shape and failures by noise
// kind, each (question, seed) result counted once, with Wilson intervals.
func TestPooledShapesAndKinds(t *testing.T) {
	one := noisyPass(1, map[string]bool{"q1": true, "q3": true, "q4": true},
		map[string][]string{"q2": {oracle.NoiseWrongRelation, oracle.NoiseWrongRelation}, "q3": {oracle.NoiseWrongRelation}},
		map[string][]kgqa.Recovery{"q3": {{Kind: kgqa.RecoveryNextRelation, Subgoal: "s1", From: "a", To: "b"}}})
	two := noisyPass(2, map[string]bool{"q1": true, "q2": true},
		map[string][]string{"q3": {oracle.NoiseMisalignedAsAligned}, "q4": {oracle.NoiseMisalignedAsAligned, oracle.NoiseWrongRelation}}, nil)
	rep := &Report{Name: "t", Robustness: []Noisy{noisy(one, 0.1, 1), noisy(two, 0.1, 2)}}

	assert.Equal(t, []KindFailures{{Kind: oracle.NoiseWrongRelation, Touched: 2, Failed: 1}}, stripShares(rep.Robustness[0].Kinds),
		"q2 met wrong_relation twice: one touched question")
	pools := rep.Pooled()
	require.Len(t, pools, 1)
	p := pools[0]
	assert.Equal(t, []int{1, 2}, p.Seeds)
	require.Len(t, p.Shapes, 3)
	assert.Equal(t, "all", p.Shapes[0].Type)
	assert.Equal(t, 5, p.Shapes[0].Hits)
	assert.Equal(t, 8, p.Shapes[0].Rows)
	assert.InDelta(t, 0.3057, p.Shapes[0].Hits1.Low, 5e-4, "Wilson of 5 of 8")
	assert.InDelta(t, 0.8632, p.Shapes[0].Hits1.High, 5e-4)
	assert.Equal(t, ShapeHits{Type: "composition", Hits: 3, Rows: 4}, stripHits(p.Shapes[1]))
	assert.Equal(t, ShapeHits{Type: "conjunction", Hits: 2, Rows: 4}, stripHits(p.Shapes[2]))
	assert.Equal(t, []KindFailures{
		{Kind: oracle.NoiseMisalignedAsAligned, Touched: 2, Failed: 2},
		{Kind: oracle.NoiseWrongRelation, Touched: 3, Failed: 2},
	}, stripShares(p.Kinds))
	assert.Equal(t, 1, p.Recoveries.Recovered)
	assert.Equal(t, 1, p.Recoveries.RecoveredHits)

	md := rep.Markdown()
	assert.Contains(t, md, "### Noise 0.1, seeds 1, 2 pooled")
	assert.Contains(t, md, "| all | 5 | 8 | 62.5% | [30.6, 86.3] |")
	assert.Contains(t, md, "| misaligned_as_aligned | 2 | 2 | 100.0% | [34.2, 100.0] |")
	assert.Contains(t, md, "| wrong_relation | 3 | 2 | 66.7% | [20.8, 93.9] |")
	assert.Contains(t, md, "Recoveries: 1 of 8 answers had a recovery (12.5%); their Hits@1 100.0% [20.7, 100.0] (1/1); 1 recoveries: next_relation 1.")
	assert.Contains(t, md, "| 0.1 | 1 | 75.0% | [30.1, 95.4] |", "each seed's Hits@1 has its interval")
}

// The ceilings give every shape's Hits@1 its interval.
func TestCeilingShapesHaveIntervals(t *testing.T) {
	c := ceiling(noisyPass(1, map[string]bool{"q1": true, "q2": true, "q3": true}, nil, nil), nil)
	md := (&Report{Name: "t", Evidence: c}).Markdown()
	assert.Contains(t, md, "Hits@1 75.0% [30.1, 95.4] (3/4); by type (Wilson 95% intervals): composition 100.0% [34.2, 100.0] (2/2); conjunction 50.0% [9.5, 90.5] (1/2).")
}

func stripShares(ks []KindFailures) []KindFailures {
	out := make([]KindFailures, len(ks))
	for i, k := range ks {
		k.Share.Low, k.Share.High, k.Share.Mean, k.Share.N = 0, 0, 0, 0
		out[i] = k
	}
	return out
}

func stripHits(s ShapeHits) ShapeHits {
	s.Hits1.Low, s.Hits1.High, s.Hits1.Mean, s.Hits1.N = 0, 0, 0, 0
	return s
}
