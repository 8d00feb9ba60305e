package lqt

import (
	"context"
	"errors"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

var errMergeMissing = errors.New(`"merge" must be true or false`)

type mergeReply struct {
	Reason string `json:"reason"`
	Merge  *bool  `json:"merge"`
}

// confirmMerges is context-aware merging as a model judgement
// (planner.lqt.context_merge): every edge of the chosen tree not judged
// yet is shown to the model with the partial tree its parent heads (the
// parent's subtree without that child) and the child's subtree, at most
// cfg.Parallelism at once. A rejected merge makes the pair unrelated and
// the tree is chosen again, until every edge of the tree is confirmed. A
// reply that stays unreadable after the repair turn keeps the merge.
func (p *Planner) confirmMerges(ctx context.Context, question string, texts []string, labels *Labels, m Model, tree Tree, ti *kgqa.TreeInfo) (Tree, error) {
	n := len(texts)
	shown := make([]string, n)
	for i := range texts {
		shown[i] = prompts.ExpandRefs(texts, i)
	}
	judged := make([]bool, n*n)
	for round := 0; round < n; round++ {
		var ask [][2]int
		for c, par := range tree.Parent {
			if par >= 0 && !judged[par*n+c] {
				ask = append(ask, [2]int{par, c})
			}
		}
		if len(ask) == 0 {
			break
		}
		keep, err := p.judgeMerges(ctx, question, texts, shown, tree, ask)
		if err != nil {
			return tree, err
		}
		ti.MergeCalls += len(ask)
		rejected := false
		for i, e := range ask {
			judged[e[0]*n+e[1]] = true
			if !keep[i] {
				labels.SetUnrelated(e[0], e[1])
				ti.MergeRejected++
				rejected = true
			}
		}
		if !rejected {
			break
		}
		if tree, err = p.choose(labels, m); err != nil {
			return tree, err
		}
	}
	ti.Method, ti.Cost, ti.Depth, ti.Balance, ti.Sim, ti.Roots = tree.Method, tree.Cost, tree.Depth, tree.Balance, tree.Sim, len(tree.Roots())
	return tree, nil
}

// judgeMerges asks the model about each edge of ask and reports which to
// keep.
func (p *Planner) judgeMerges(ctx context.Context, question string, texts, shown []string, tree Tree, ask [][2]int) ([]bool, error) {
	keep := make([]bool, len(ask))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.cfg.Parallelism)
	for i, e := range ask {
		par, c := e[0], e[1]
		without := slices.Clone(tree.Parent)
		without[c] = -1
		d := prompts.LQTMergeData{Question: question, Tree: Text(without, texts, par), Parent: shown[par],
			Child: shown[c], Subtree: Text(tree.Parent, texts, c)}
		g.Go(func() error {
			req, err := p.tmpl.Request(p.role(), prompts.LQTMerge, d)
			if err != nil {
				return err
			}
			var rep mergeReply
			check := func() error {
				if rep.Merge == nil {
					return errMergeMissing
				}
				return nil
			}
			_, err = p.chat.JSON(gctx, req, &rep, check)
			var se *kgqa.SchemaError
			if errors.As(err, &se) {
				keep[i] = true
				return nil
			}
			if err != nil {
				return err
			}
			keep[i] = *rep.Merge
			return nil
		})
	}
	return keep, g.Wait()
}
