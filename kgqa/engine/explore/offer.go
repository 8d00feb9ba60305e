package explore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/relprior"
)

// MaxDroppedShown bounds the dropped relations a RelationCut lists.
const MaxDroppedShown = 20

// Offer collects the untried relations of the anchors, in the order the KG
// lists them, with the anchors that have each. Every one is offered while
// they number at most MaxOfferedRelations: a lexical cut drops relations
// whose names share no word with the subgoal ("border" against
// location.location.adjoin_s), which is the truncation the method argues
// against. Above the bound they are ranked against the subgoal, by the
// embeddings endpoint when one is configured, else by word overlap, and
// the cut is returned for the trace.
func (x *Explorer) Offer(ctx context.Context, anchors []kgqa.Term, rels map[string][]kgqa.Relation) ([]kgqa.Relation, map[kgqa.Relation][]kgqa.Term, *kgqa.RelationCut, error) {
	n := 0
	for _, a := range anchors {
		n += len(rels[a.ID])
	}
	has := make(map[kgqa.Relation][]kgqa.Term, n)
	order := make([]kgqa.Relation, 0, n)
	for _, a := range anchors {
		for _, r := range rels[a.ID] {
			if x.tried[r] {
				continue
			}
			if _, ok := has[r]; !ok {
				order = append(order, r)
			}
			has[r] = append(has[r], a)
		}
	}
	if len(order) == 0 {
		order = nil // the trace shows no offer as before, not an empty list
	}
	limit := x.sub.Budgets.MaxOfferedRelations
	if len(order) <= limit {
		if x.preRanked() && len(order) > 1 {
			// The prior ranks without a call: the offer goes most
			// relevant first, as pages need it.
			ranked, _, _, err := x.rank(ctx, anchors, order)
			return ranked, has, nil, err
		}
		return order, has, nil, nil
	}
	ranked, _, cut, err := x.rank(ctx, anchors, order)
	if err != nil {
		return nil, nil, nil, err
	}
	cut.Available, cut.Shown = len(order), limit
	dropped := ranked[limit:]
	cut.DroppedCount = len(dropped)
	cut.Dropped = append([]kgqa.Relation{}, dropped[:min(len(dropped), MaxDroppedShown)]...)
	return ranked[:limit], has, cut, nil
}

// rank orders rels by relevance to the subgoal, most relevant first, ties
// in the KG's order: by cosine similarity of embeddings when an embeddings
// endpoint is configured, else (or when it fails) by word overlap, the
// prior added in when one is loaded. It returns the scores too, which say
// how clear the ranking's top is (short.go).
func (x *Explorer) rank(ctx context.Context, anchors []kgqa.Term, rels []kgqa.Relation) ([]kgqa.Relation, map[kgqa.Relation]float64, *kgqa.RelationCut, error) {
	score, cut, err := x.scores(ctx, anchors, rels, x.env.Embedder)
	if err != nil {
		return nil, nil, nil, err
	}
	x.rememberScores(x.RelationQuery(anchors), score)
	return sortByScore(rels, score), score, cut, nil
}

// sortByScore returns rels sorted by score, most first, ties in their
// order.
func sortByScore(rels []kgqa.Relation, score map[kgqa.Relation]float64) []kgqa.Relation {
	out := append([]kgqa.Relation{}, rels...)
	sort.SliceStable(out, func(i, j int) bool { return score[out[i]] > score[out[j]] })
	return out
}

// scores scores rels against the subgoal as rank orders them, with the
// embeddings endpoint em (nil: word overlap); the cut returned names the
// method.
func (x *Explorer) scores(ctx context.Context, anchors []kgqa.Term, rels []kgqa.Relation, em llm.Embedder) (map[kgqa.Relation]float64, *kgqa.RelationCut, error) {
	d := x.env.Graph.Dialect()
	query := x.RelationQuery(anchors)
	score := make(map[kgqa.Relation]float64, len(rels))
	cut := &kgqa.RelationCut{Method: "lexical"}
	if em != nil {
		texts := make([]string, 0, len(rels)+1)
		texts = append(texts, query)
		for _, r := range rels {
			texts = append(texts, d.Readable(r.ID))
		}
		vecs, err := em.Embed(ctx, texts)
		switch {
		case err == nil && len(vecs) == len(texts):
			for i, r := range rels {
				score[r] = llm.Cosine(vecs[0], vecs[i+1])
			}
			cut.Method = "embeddings"
		case ctx.Err() != nil:
			return nil, nil, x.fail(ctx.Err())
		case err == nil:
			cut.Note = fmt.Sprintf("the embeddings endpoint returned %d vectors for %d texts; ranked by word overlap", len(vecs), len(texts))
		default:
			cut.Note = "the embeddings endpoint failed (" + err.Error() + "); ranked by word overlap"
		}
	}
	if cut.Method == "lexical" {
		q := Tokens(query)
		words := make([]map[string]bool, len(rels))
		for i, r := range rels {
			words[i] = Tokens(d.Readable(r.ID))
		}
		weight := offerWeights(words)
		for i, r := range rels {
			score[r] = WeightedOverlap(q, words[i], weight)
		}
	}
	if p := x.env.Prior; p != nil {
		// Overlap scores about 1 to 3 per shared word, a cosine 0 to 1;
		// the prior is added at the weight chosen against overlap.
		sc := x.priorScorer(anchors)
		for _, r := range rels {
			score[r] += relprior.DefaultWeight * sc.Score(r.ID)
		}
		cut.Method += "+prior"
	}
	return score, cut, nil
}

// priorScorer scores relations by the prior for the subgoal and the
// question together, without the anchors' names: the prior learned the
// words of both (relprior.Builder.Record).
func (x *Explorer) priorScorer(anchors []kgqa.Term) *relprior.Scorer {
	question := x.sub.Question
	names := map[string]bool{}
	for _, a := range anchors {
		for _, w := range relprior.Words(a.Name) {
			names[w] = true
		}
	}
	var words []string
	for _, w := range relprior.Words(x.RelationQuery(anchors) + " " + question) {
		if !names[w] {
			words = append(words, w)
		}
	}
	return x.env.Prior.ForWords(words)
}

// preRanked reports whether offers are ranked even when they fit:
// the prior ranks without a model call (embeddings would cost one, so
// with them an offer is ranked only when it is cut or paged).
func (x *Explorer) preRanked() bool { return x.env.Prior != nil && x.env.Embedder == nil }

// RelationQuery is what a relation is matched against: the subgoal and
// the attribute it compares by, without the anchors' names, since that
// the anchor is an airport says nothing of which relation answers the
// subgoal.
func (x *Explorer) RelationQuery(anchors []kgqa.Term) string {
	return strings.Join(strings.Fields(WithoutNames(x.sub.Text, anchors)+" "+x.attrHint), " ")
}

// WithoutNames is text with the anchors' names blanked out: the words
// left are those a relation is matched against.
func WithoutNames(text string, anchors []kgqa.Term) string {
	for _, a := range anchors {
		if a.Name != "" {
			text = strings.ReplaceAll(text, a.Name, " ")
		}
	}
	return text
}

// maxPriorShown bounds the chosen relations whose prior ranks a round
// records.
const maxPriorShown = 10

// priorRanks records where the prior put each chosen relation: its place
// in the ranked offer and by the prior alone among the available ones.
func (x *Explorer) priorRanks(anchors []kgqa.Term, available, ranked, chosen []kgqa.Relation) []kgqa.PriorRank {
	if x.env.Prior == nil || len(chosen) == 0 {
		return nil
	}
	sc := x.priorScorer(anchors)
	score := make(map[kgqa.Relation]float64, len(available))
	for _, r := range available {
		score[r] = sc.Score(r.ID)
	}
	var out []kgqa.PriorRank
	for _, c := range chosen[:min(len(chosen), maxPriorShown)] {
		pr := kgqa.PriorRank{Relation: c, Rank: slices.Index(ranked, c), Score: score[c]}
		for _, r := range available {
			if score[r] > score[c] {
				pr.PriorRank++
			}
		}
		out = append(out, pr)
	}
	return out
}

// ranking names how offers are ranked: by embeddings when an endpoint is
// configured, else by word overlap, with the prior when one is loaded.
func (x *Explorer) ranking() string {
	m := "lexical"
	if x.env.Embedder != nil {
		m = "embeddings"
	}
	if x.env.Prior != nil {
		m += "+prior"
	}
	return m
}
