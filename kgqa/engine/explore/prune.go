package explore

import (
	"context"
	"fmt"
	"sort"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// Candidate is an entity competing for the frontier, with the fact that
// reached it.
type Candidate struct {
	// Term is the entity.
	Term kgqa.Term
	// Fact is the fact that reached it, matched against the subgoal.
	Fact kgqa.Fact
}

type pruneReply struct {
	Reason string `json:"reason"`
	Keep   []int  `json:"keep"`
}

// Prune keeps at most Width candidates: all of them when they fit, the
// lexical top when the scores separate it from the rest, and otherwise the
// model's choice; the subgoal's pack may make it always lexical (ties cut
// in candidate order) or always the model's. It records the method in
// rd.Pruning.
func (x *Explorer) Prune(ctx context.Context, rd *kgqa.Round, cands []Candidate, d int) ([]kgqa.Term, int, error) {
	width := x.sub.Budgets.Width
	p := &kgqa.Pruning{Candidates: len(cands)}
	rd.Pruning = p
	if len(cands) <= width {
		p.Method = "none"
		for _, c := range cands {
			p.Kept = append(p.Kept, c.Term)
		}
		return p.Kept, d, nil
	}
	dl := x.env.Graph.Dialect()
	q := Tokens(x.sub.Text + " " + x.sub.Question)
	score := make([]float64, len(cands))
	order := make([]int, len(cands))
	for i, c := range cands {
		order[i] = i
		score[i] = Overlap(q, FactWords(dl, c.Fact))
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
	strategy := x.sub.Pack().Prune
	if strategy == retrieval.PruneLexical || strategy != retrieval.PruneLLM && score[order[width-1]] > score[order[width]] {
		p.Method = "lexical"
		for _, i := range order[:width] {
			p.Kept = append(p.Kept, cands[i].Term)
		}
		return p.Kept, d, nil
	}
	const maxShown = 50
	shown := cands
	if len(shown) > maxShown {
		shown = make([]Candidate, 0, maxShown)
		for _, i := range order[:maxShown] {
			shown = append(shown, cands[i])
		}
	}
	data := prompts.PruneData{Plan: x.sub.View(), Subgoal: x.sub.Text, Keep: width}
	for _, c := range shown {
		data.Candidates = append(data.Candidates, prompts.Fact(dl, c.Fact))
	}
	req, err := x.env.Prompts.Request(kgqa.Reasoner, prompts.Prune, data)
	if err != nil {
		return nil, d, x.fail(err)
	}
	var rep pruneReply
	check := func() error {
		for _, n := range rep.Keep {
			if n < 1 || n > len(shown) {
				return fmt.Errorf("keep: %d is not a candidate number (1..%d)", n, len(shown))
			}
		}
		return nil
	}
	if _, err := x.env.Chat.JSON(ctx, req, &rep, check); err != nil {
		return nil, d, x.fail(err)
	}
	p.Method = "llm"
	dup := map[int]bool{}
	for _, n := range rep.Keep {
		if dup[n] || len(p.Kept) == width {
			continue
		}
		dup[n] = true
		p.Kept = append(p.Kept, shown[n-1].Term)
	}
	return p.Kept, d + 1, nil
}
