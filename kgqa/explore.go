package kgqa

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/prompts"
	"golang.org/x/sync/errgroup"
)

// maxOffered bounds the relations offered to the model in one round.
const maxOffered = 100

// explorer walks the KG for one subgoal: it lists the relations of the
// anchors, lets the model keep the relevant ones, fetches neighbours and
// prunes the frontier.
type explorer struct {
	sg       *subgoalRun
	text     string
	attrHint string

	mu    sync.Mutex
	rels  map[string][]kg.Relation // relation lists by entity id
	tried map[kg.Relation]bool
	seen  map[string]bool // entities explored from
}

func newExplorer(sg *subgoalRun, text string) *explorer {
	return &explorer{sg: sg, text: text, rels: map[string][]kg.Relation{}, tried: map[kg.Relation]bool{}, seen: map[string]bool{}}
}

// relations lists the relations of every anchor, concurrently, cached.
func (x *explorer) relations(ctx context.Context, anchors []kg.Term) (map[string][]kg.Relation, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(x.sg.e.kgParallel)
	for _, a := range anchors {
		x.mu.Lock()
		_, ok := x.rels[a.ID]
		x.mu.Unlock()
		if ok {
			continue
		}
		g.Go(func() error {
			rs, err := x.sg.e.g.Relations(gctx, a.ID)
			if err != nil {
				return stepErr("explore", x.sg.s.ID, err)
			}
			x.mu.Lock()
			x.rels[a.ID] = rs
			x.mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[string][]kg.Relation, len(anchors))
	for _, a := range anchors {
		out[a.ID] = x.rels[a.ID]
		x.seen[a.ID] = true
	}
	return out, nil
}

// offer collects the untried relations of the anchors, most lexically
// relevant first, with the anchors that have each.
func (x *explorer) offer(anchors []kg.Term, rels map[string][]kg.Relation) ([]kg.Relation, map[kg.Relation][]kg.Term) {
	has := map[kg.Relation][]kg.Term{}
	var order []kg.Relation
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
	d := x.sg.e.g.Dialect()
	query := tokens(x.text + " " + x.attrHint)
	score := make(map[kg.Relation]float64, len(order))
	for _, r := range order {
		score[r] = overlap(query, tokens(d.Readable(r.ID)))
	}
	sort.SliceStable(order, func(i, j int) bool { return score[order[i]] > score[order[j]] })
	if len(order) > maxOffered {
		order = order[:maxOffered]
	}
	return order, has
}

type relationsReply struct {
	Relations []struct {
		ID  string `json:"id"`
		Dir string `json:"dir"`
	} `json:"relations"`
	Reason string `json:"reason"`
}

// choose asks the model which offered relations to keep (at most max).
// Relations it names that were not offered are recorded and dropped; a
// reply naming only such relations is sent back once for repair.
func (x *explorer) choose(ctx context.Context, rd *Round, offered []kg.Relation, has map[kg.Relation][]kg.Term, max int) error {
	d := x.sg.e.g.Dialect()
	data := prompts.RelationsData{Plan: x.sg.view(), Subgoal: x.text, Max: max, Attribute: x.attrHint}
	for _, a := range rd.Anchors {
		data.Anchors = append(data.Anchors, prompts.Term(a))
	}
	if len(data.Anchors) > 20 {
		data.Anchors = append(data.Anchors[:20], fmt.Sprintf("and %d more", len(rd.Anchors)-20))
	}
	offeredSet := make(map[kg.Relation]bool, len(offered))
	for _, r := range offered {
		offeredSet[r] = true
		data.Offered = append(data.Offered, prompts.OfferedRelation{ID: r.ID, Dir: string(r.Dir), Readable: d.Readable(r.ID), Anchors: anchorNames(has[r])})
	}
	req, err := prompts.Request(llm.Reasoner, prompts.Relations, data)
	if err != nil {
		return stepErr("explore", x.sg.s.ID, err)
	}
	var rep relationsReply
	var chosen []kg.Relation
	var rejected, hallucinated []RejectedRelation // hallucinated spans the repair turn
	check := func() error {
		chosen, rejected = nil, nil
		dup := map[kg.Relation]bool{}
		for _, c := range rep.Relations {
			r := kg.Relation{ID: c.ID, Dir: kg.Direction(c.Dir)}
			switch {
			case !offeredSet[r]:
				h := RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: "not_offered"}
				rejected = append(rejected, h)
				hallucinated = append(hallucinated, h)
			case dup[r]:
			case len(chosen) >= max:
				rejected = append(rejected, RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: "over_budget"})
			default:
				dup[r] = true
				chosen = append(chosen, r)
			}
		}
		if len(chosen) == 0 && len(rejected) > 0 {
			return fmt.Errorf("none of the relations named was offered (%s %s): answer only with offered relations", rejected[0].ID, rejected[0].Dir)
		}
		return nil
	}
	_, err = x.sg.e.chat.JSON(ctx, req, &rep, check)
	rd.Rejected = hallucinated
	for _, r := range rejected {
		if r.Reason != "not_offered" {
			rd.Rejected = append(rd.Rejected, r)
		}
	}
	if err != nil {
		return stepErr("explore", x.sg.s.ID, err)
	}
	rd.Chosen, rd.ChosenBy = chosen, "llm"
	return nil
}

func anchorNames(ts []kg.Term) string {
	const show = 3
	s := ""
	for i, t := range ts {
		if i == show {
			return s + fmt.Sprintf(" and %d more", len(ts)-show)
		}
		if i > 0 {
			s += ", "
		}
		s += prompts.Term(t)
	}
	return s
}

// round runs one exploration round from anchors, which ends at LLM depth
// end (d, plus one when the model chose relations).
func (x *explorer) round(ctx context.Context, anchors []kg.Term, depth, d int) (*Round, int, error) {
	rd := &Round{Depth: depth, Anchors: anchors, Chosen: []kg.Relation{}, Facts: []kg.Fact{}}
	rels, err := x.relations(ctx, anchors)
	if err != nil {
		return rd, d, err
	}
	offered, has := x.offer(anchors, rels)
	rd.Offered = len(offered)
	rd.OfferedRelations = offered
	switch {
	case len(offered) == 0:
		return rd, d, nil
	case len(offered) == 1:
		rd.Chosen, rd.ChosenBy = offered, "only_offered"
	default:
		if err := x.choose(ctx, rd, offered, has, x.sg.b.MaxRelationsPerEntity); err != nil {
			return rd, d, err
		}
		d++
	}
	for _, r := range rd.Chosen {
		x.tried[r] = true
	}
	facts, err := x.neighbors(ctx, rd, rd.Chosen, has)
	rd.Facts = facts
	return rd, d, err
}

// neighbors fetches the facts of each (anchor, chosen relation) pair,
// concurrently, keeping a deterministic order, and records in rd the
// pairs whose query returned as many facts as the limit. The limit is the
// KG's neighbour limit: prompts cap what they show (see promptFacts), the
// sets are computed from everything. With WithResultTruncation it is
// MaxEntitiesPerRelation, as in PoG.
func (x *explorer) neighbors(ctx context.Context, rd *Round, chosen []kg.Relation, has map[kg.Relation][]kg.Term) ([]kg.Fact, error) {
	type job struct {
		a kg.Term
		r kg.Relation
	}
	var jobs []job
	for _, r := range chosen {
		for _, a := range has[r] {
			jobs = append(jobs, job{a, r})
		}
	}
	limit := x.sg.e.kgLimit
	if x.sg.e.truncate {
		limit = x.sg.b.MaxEntitiesPerRelation
	}
	out := make([][]kg.Fact, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(x.sg.e.kgParallel)
	for i, j := range jobs {
		g.Go(func() error {
			fs, err := x.sg.e.g.Neighbors(gctx, j.a.ID, j.r, limit)
			if err != nil {
				return stepErr("explore", x.sg.s.ID, err)
			}
			if len(fs) > limit {
				fs = fs[:limit]
			}
			for k := range fs {
				if fs[k].Head.Name == "" {
					fs[k].Head.Name = j.a.Name
				}
			}
			out[i] = fs
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	facts := []kg.Fact{}
	for i, fs := range out {
		facts = append(facts, fs...)
		if len(fs) >= limit {
			rd.Capped = append(rd.Capped, CappedPair{Entity: jobs[i].a.ID, Relation: jobs[i].r, Limit: limit})
		}
	}
	return facts, nil
}

// untried reports whether the anchors have relations not yet explored.
func (x *explorer) untried(anchors []kg.Term) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, a := range anchors {
		for _, r := range x.rels[a.ID] {
			if !x.tried[r] {
				return true
			}
		}
	}
	return false
}

// next decides where the following round explores from: one hop further
// (the round's tails, pruned to Width) while the depth budget allows, else
// the same anchors with relations not yet tried. ok is false when there is
// nowhere left to go.
func (x *explorer) next(ctx context.Context, rd *Round, depth, d int) (anchors []kg.Term, nextDepth, end int, ok bool, err error) {
	if depth+1 < x.sg.b.Depth {
		var cands []candidate
		seen := map[string]bool{}
		for _, f := range rd.Facts {
			if !f.Tail.IsEntity() || seen[f.Tail.ID] || x.seen[f.Tail.ID] {
				continue
			}
			seen[f.Tail.ID] = true
			cands = append(cands, candidate{term: f.Tail, fact: f})
		}
		if len(cands) > 0 {
			kept, end, err := x.prune(ctx, rd, cands, d)
			return kept, depth + 1, end, len(kept) > 0, err
		}
	}
	if x.untried(rd.Anchors) {
		return rd.Anchors, depth, d, true, nil
	}
	return nil, depth, d, false, nil
}
