package explore

import (
	"context"
	"sync"

	"github.com/parog/parog-go/internal/fanout"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"golang.org/x/sync/errgroup"
)

// Neighbors fetches the facts of each (anchor, chosen relation) pair,
// concurrently, keeping a deterministic order, and records in rd the
// pairs whose query returned as many facts as the limit. The limit is the
// KG's neighbour limit: prompts cap what they show (see promptFacts), the
// sets are computed from everything. With WithResultTruncation it is
// MaxEntitiesPerRelation, as in PoG.
func (x *Explorer) Neighbors(ctx context.Context, rd *kgqa.Round, chosen []kgqa.Relation, has map[kgqa.Relation][]kgqa.Term) ([]kgqa.Fact, error) {
	type job struct {
		a kgqa.Term
		r kgqa.Relation
	}
	var jobs []job
	for _, r := range chosen {
		for _, a := range has[r] {
			jobs = append(jobs, job{a, r})
		}
	}
	limit := x.env.NeighborLimit
	if x.truncates() {
		limit = x.sub.Budgets.MaxEntitiesPerRelation
	}
	batched, err := x.batchNeighbors(ctx, chosen, has, limit)
	if err != nil {
		return nil, err
	}
	out := make([][]kgqa.Fact, len(jobs))
	hubs := make([]*kgqa.HubPair, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(x.env.Parallelism)
	tasks := make([]func() error, len(jobs))
	for i, j := range jobs {
		tasks[i] = func() error {
			var err error
			fs, ok := batched[j.r][j.a.ID]
			if !ok {
				if fs, err = x.env.Graph.Neighbors(gctx, j.a.ID, j.r, limit); err != nil {
					return x.fail(err)
				}
			}
			if len(fs) > limit {
				fs = fs[:limit]
			}
			if fs, hubs[i], err = x.hubCut(gctx, j.a, j.r, fs, limit); err != nil {
				return err
			}
			for k := range fs {
				if fs[k].Head.Name == "" {
					fs[k].Head.Name = j.a.Name
				}
			}
			out[i] = fs
			return nil
		}
	}
	if err := fanout.Run(g, tasks); err != nil {
		return nil, err
	}
	facts := []kgqa.Fact{}
	for i, fs := range out {
		facts = append(facts, fs...)
		switch h := hubs[i]; {
		case len(fs) >= limit:
			rd.Capped = append(rd.Capped, kgqa.CappedPair{Entity: jobs[i].a.ID, Relation: jobs[i].r, Limit: limit})
		case h != nil && h.Cut:
			rd.Capped = append(rd.Capped, kgqa.CappedPair{Entity: jobs[i].a.ID, Relation: jobs[i].r, Limit: len(fs)})
		}
		if hubs[i] != nil {
			rd.Hubs = append(rd.Hubs, *hubs[i])
		}
	}
	return facts, nil
}

// batchNeighbors reads, for each chosen relation that several anchors
// have, the facts of all of them in batched queries (kg.NeighborsOf),
// which give what one Neighbors call per anchor gives: a comparison reads
// its members' values so.
func (x *Explorer) batchNeighbors(ctx context.Context, chosen []kgqa.Relation, has map[kgqa.Relation][]kgqa.Term, limit int) (map[kgqa.Relation]map[string][]kgqa.Fact, error) {
	out := map[kgqa.Relation]map[string][]kgqa.Fact{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(x.env.Parallelism)
	var tasks []func() error
	for _, r := range chosen {
		if len(has[r]) < 2 {
			continue
		}
		ids := make([]string, len(has[r]))
		for i, a := range has[r] {
			ids[i] = a.ID
		}
		tasks = append(tasks, func() error {
			got, err := kg.NeighborsOf(gctx, x.env.Graph, ids, r, limit)
			if err != nil {
				return x.fail(err)
			}
			mu.Lock()
			out[r] = got
			mu.Unlock()
			return nil
		})
	}
	if err := fanout.Run(g, tasks); err != nil {
		return nil, err
	}
	return out, nil
}

// hubCut applies the pack's hub rule to the facts fs of anchor a along
// rel, fetched with limit: when the anchor has more neighbours along rel
// than the hub threshold (the KG's count, asked only when fs reached the
// limit, else len(fs)), fs is cut to the pack's facts per pair unless a
// rule needs the full set. The pair is returned for the trace when it is
// a hub whose list is longer than that cut, nil otherwise.
func (x *Explorer) hubCut(ctx context.Context, a kgqa.Term, rel kgqa.Relation, fs []kgqa.Fact, limit int) ([]kgqa.Fact, *kgqa.HubPair, error) {
	keep := x.sub.Budgets.MaxEntitiesPerRelation
	if len(fs) <= keep {
		return fs, nil, nil
	}
	p := x.sub.Pack()
	n := len(fs)
	if n >= limit && n <= p.HubThreshold {
		var err error
		if n, err = x.env.Graph.Count(ctx, a.ID, rel); err != nil {
			return nil, nil, x.fail(err)
		}
	}
	cut, reason := p.HubCut(n)
	if reason == "" {
		return fs, nil, nil
	}
	if cut {
		fs = fs[:keep]
	}
	return fs, &kgqa.HubPair{Entity: a.ID, Relation: rel, Count: n, Cut: cut, Reason: reason}, nil
}
