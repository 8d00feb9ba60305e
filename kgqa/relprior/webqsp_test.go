package relprior_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/parog/parog-go/kgqa/sft"
	"github.com/parog/parog-go/sparql2plan"
	"github.com/stretchr/testify/assert"
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
		p := oracle.GoldPair(q)
		c, err := sparql2plan.Convert(p)
		if err != nil {
			continue
		}
		rec, err := sparql2plan.NewRecord(p, c, nil, false, 5)
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

// overlap is the engine's word-overlap score (kgqa/engine lexical.go)
// of a relation's words ws.
func overlap(q map[string]bool, ws []string) float64 {
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
	var held, asked []sample
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
				if len(r.Plan.Subgoals) == 1 {
					// The question itself, as a planner that keeps the
					// question's words would say the subgoal.
					asked = append(asked, sample{r.Question, rels[0]})
				}
			}
		}
	}
	require.Greater(t, len(held), 100, "held-out subgoals")
	for _, set := range []struct {
		name    string
		samples []sample
	}{{"template subgoals", held}, {"questions of one-subgoal plans", asked}} {
		t.Run(set.name, func(t *testing.T) {
			require.Greater(t, len(set.samples), 50)
			lex, with := rankGold(p, props, set.samples, relprior.DefaultWeight)
			for _, r := range []struct {
				name string
				r    ranks
			}{{"word overlap", lex}, {fmt.Sprintf("with the prior (weight %v)", relprior.DefaultWeight), with}} {
				t.Logf("%d held-out %s, %s: gold relation in the first 50 / 100 / 200 / 500 / 1,000 of %d: %d / %d / %d / %d / %d, mean rank %d",
					len(set.samples), set.name, r.name, len(props), r.r.top50, r.r.top100, r.r.top200, r.r.top500, r.r.top1000, r.r.sumRank/len(set.samples))
			}
			assert.Greater(t, with.top50, lex.top50)
			assert.GreaterOrEqual(t, with.top500, lex.top500)
			assert.Less(t, with.sumRank, lex.sumRank)
		})
	}
}

type sample struct{ text, gold string }

// ranks counts gold relations ranked within the first 50, 100, 200, 500
// and 1,000 (the cuts engine.max_offered_relations was measured at).
type ranks struct{ top50, top100, top200, top500, top1000, sumRank int }

// rankGold ranks each sample's gold relation among props by word overlap
// alone and by overlap plus weight times the prior, ties in props' order
// as the engine's stable sort breaks them.
func rankGold(p *relprior.Prior, props []string, samples []sample, weight float64) (lex, with ranks) {
	words := make([][]string, len(props))
	for j, id := range props {
		words[j] = relprior.Words(id)
	}
	lexScore, priorScore := make([]float64, len(props)), make([]float64, len(props))
	for _, h := range samples {
		q := map[string]bool{}
		for _, w := range relprior.Words(h.text) {
			q[w] = true
		}
		sc := p.For(h.text)
		for j, id := range props {
			lexScore[j], priorScore[j] = overlap(q, words[j]), 0
			if sc.Known() {
				priorScore[j] = sc.Score(id)
			}
		}
		g := indexOf(props, h.gold)
		lex.add(rankOf(g, lexScore, priorScore, 0))
		with.add(rankOf(g, lexScore, priorScore, weight))
	}
	return lex, with
}

func rankOf(g int, lex, prior []float64, weight float64) int {
	gs := lex[g] + weight*prior[g]
	rank := 0
	for j := range lex {
		if v := lex[j] + weight*prior[j]; v > gs || (v == gs && j < g) {
			rank++
		}
	}
	return rank
}

func (r *ranks) add(rank int) {
	r.sumRank += rank
	for _, c := range []struct {
		n int
		p *int
	}{{50, &r.top50}, {100, &r.top100}, {200, &r.top200}, {500, &r.top500}, {1000, &r.top1000}} {
		if rank < c.n {
			(*c.p)++
		}
	}
}
