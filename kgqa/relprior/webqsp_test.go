package relprior_test

import (
	"bufio"
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/parog/parog-go/kgqa/sft"
	"github.com/parog/parog-go/sparql2plan"
	"github.com/stretchr/testify/require"
)

// webqspRecords converts WebQSP train into SFT records as parog
// sparql2plan does.
func webqspRecords(t *testing.T) []*sft.Record {
	t.Helper()
	path := realdata.Path(t, "webqsp/WebQSP.train.json")
	loaded, err := dataset.LoadFile(context.Background(), path, dataset.WebQSP)
	require.NoError(t, err)
	var recs []*sft.Record
	for _, q := range loaded.Questions {
		c, err := sparql2plan.Convert(q)
		if err != nil {
			continue
		}
		rec, err := sparql2plan.NewRecord(q, c, nil, false, 5)
		require.NoError(t, err)
		rec.SourceSplit = sft.SourceTrain
		recs = append(recs, rec)
	}
	require.Greater(t, len(recs), 3000)
	return recs
}

// freebaseProperties are the 19,280 properties of the real Freebase
// schema: the offer of a hub at full density, and then some.
func freebaseProperties(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(realdata.Path(t, "freebase-schema/fb_roles"))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 3 && !seen[fs[1]] {
			seen[fs[1]] = true
			out = append(out, fs[1])
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// overlap is the engine's word-overlap score (kgqa/engine lexical.go).
func overlap(q map[string]bool, id string) float64 {
	ws := relprior.Words(id)
	if len(ws) == 0 {
		return 0
	}
	n := 0
	for _, w := range ws {
		if q[w] {
			n++
		}
	}
	return float64(n) + float64(n)/float64(len(ws))
}

// goldRank is the rank (0 best) of gold among candidates by score, the
// candidates' own order breaking ties, as the engine's stable sort does.
func goldRank(cands []string, gold string, score func(string) float64) int {
	g := score(gold)
	rank := 0
	for _, c := range cands {
		if c == gold {
			break
		}
		if score(c) >= g {
			rank++
		}
	}
	for _, c := range cands[indexOf(cands, gold)+1:] {
		if score(c) > g {
			rank++
		}
	}
	return rank
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// TestPriorRanksHeldOutGoldRelations learns the prior from WebQSP train's
// train split and ranks, for each subgoal of its held-out validation
// split, the first gold relation among every property of the real
// Freebase schema, by word overlap alone and with the prior added: with
// the prior the gold relation is ranked higher, and fewer fall outside
// the first 500 (engine.max_offered_relations).
func TestPriorRanksHeldOutGoldRelations(t *testing.T) {
	recs := webqspRecords(t)
	props := freebaseProperties(t)
	sort.Strings(props) // no order that favours either ranking
	b := relprior.NewBuilder()
	for _, r := range recs {
		_, err := b.Record(r, false)
		require.NoError(t, err)
	}
	p := b.Prior(2, "webqsp train")
	type sample struct{ text, gold string }
	var held []sample
	inSchema := map[string]bool{}
	for _, c := range props {
		inSchema[c] = true
	}
	for _, r := range recs {
		if r.Split != sft.SplitValidation {
			continue
		}
		for _, s := range r.Plan.Subgoals {
			if rels := r.SubgoalRelations[s.ID]; len(rels) > 0 && inSchema[rels[0]] {
				held = append(held, sample{s.Text, rels[0]})
			}
		}
	}
	require.Greater(t, len(held), 100, "held-out subgoals")
	type result struct{ top500, top50, sumRank int }
	measure := func(weight float64) result {
		var res result
		for _, h := range held {
			q := map[string]bool{}
			for _, w := range relprior.Words(h.text) {
				q[w] = true
			}
			sc := p.For(h.text)
			rank := goldRank(props, h.gold, func(id string) float64 { return overlap(q, id) + weight*sc.Score(id) })
			res.sumRank += rank
			if rank < 500 {
				res.top500++
			}
			if rank < 50 {
				res.top50++
			}
		}
		return res
	}
	lex := measure(0)
	for _, w := range []float64{1, 2, 4, 8} {
		r := measure(w)
		t.Logf("weight %v: top-50 %d, top-500 %d of %d, mean rank %d", w, r.top50, r.top500, len(held), r.sumRank/len(held))
	}
	with := measure(relprior.DefaultWeight)
	t.Logf("held-out subgoals %d: lexical top-50 %d, top-500 %d, mean rank %d; with the prior (weight %v) top-50 %d, top-500 %d, mean rank %d",
		len(held), lex.top50, lex.top500, lex.sumRank/len(held), relprior.DefaultWeight, with.top50, with.top500, with.sumRank/len(held))
	require.Greater(t, with.top50, lex.top50)
	require.GreaterOrEqual(t, with.top500, lex.top500)
	require.Less(t, with.sumRank, lex.sumRank)
}
