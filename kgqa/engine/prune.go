package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// candidate is an entity competing for the frontier, with the fact that
// reached it.
type candidate struct {
	term kgqa.Term
	fact kgqa.Fact
}

type pruneReply struct {
	Reason string `json:"reason"`
	Keep   []int  `json:"keep"`
}

// prune keeps at most Width candidates: all of them when they fit, the
// lexical top when the scores separate it from the rest, and otherwise the
// model's choice; the subgoal's pack may make it always lexical (ties cut
// in candidate order) or always the model's. It records the method in
// rd.Pruning.
func (x *explorer) prune(ctx context.Context, rd *kgqa.Round, cands []candidate, d int) ([]kgqa.Term, int, error) {
	width := x.sg.b.Width
	p := &kgqa.Pruning{Candidates: len(cands)}
	rd.Pruning = p
	if len(cands) <= width {
		p.Method = "none"
		for _, c := range cands {
			p.Kept = append(p.Kept, c.term)
		}
		return p.Kept, d, nil
	}
	dl := x.sg.e.g.Dialect()
	q := tokens(x.text + " " + x.sg.ans.Question)
	score := make([]float64, len(cands))
	order := make([]int, len(cands))
	for i, c := range cands {
		order[i] = i
		score[i] = overlap(q, factWords(dl, c.fact))
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
	strategy := x.sg.pack().Prune
	if strategy == retrieval.PruneLexical || strategy != retrieval.PruneLLM && score[order[width-1]] > score[order[width]] {
		p.Method = "lexical"
		for _, i := range order[:width] {
			p.Kept = append(p.Kept, cands[i].term)
		}
		return p.Kept, d, nil
	}
	const maxShown = 50
	shown := cands
	if len(shown) > maxShown {
		shown = make([]candidate, 0, maxShown)
		for _, i := range order[:maxShown] {
			shown = append(shown, cands[i])
		}
	}
	data := prompts.PruneData{Plan: x.sg.view(), Subgoal: x.text, Keep: width}
	for _, c := range shown {
		data.Candidates = append(data.Candidates, prompts.Fact(dl, c.fact))
	}
	req, err := x.sg.e.tmpl.Request(kgqa.Reasoner, prompts.Prune, data)
	if err != nil {
		return nil, d, stepErr("explore", x.sg.s.ID, err)
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
	if _, err := x.sg.e.chat.JSON(ctx, req, &rep, check); err != nil {
		return nil, d, stepErr("explore", x.sg.s.ID, err)
	}
	p.Method = "llm"
	dup := map[int]bool{}
	for _, n := range rep.Keep {
		if dup[n] || len(p.Kept) == width {
			continue
		}
		dup[n] = true
		p.Kept = append(p.Kept, shown[n-1].term)
	}
	return p.Kept, d + 1, nil
}
