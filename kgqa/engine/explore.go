package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/retrieval"
	"golang.org/x/sync/errgroup"
)

// explorer walks the KG for one subgoal: it lists the relations of the
// anchors, lets the model keep the relevant ones, fetches neighbours and
// prunes the frontier.
type explorer struct {
	sg       *subgoalRun
	text     string
	attrHint string

	mu    sync.Mutex
	rels  map[string][]kgqa.Relation // relation lists by entity id
	tried map[kgqa.Relation]bool
	seen  map[string]bool // entities explored from
	pre   *prePick        // a first choice made before the subgoal ran
	// depthReason is the reason the next round explores past the
	// pack's depth, recorded on that round.
	depthReason string
}

func newExplorer(sg *subgoalRun, text string) *explorer {
	return &explorer{sg: sg, text: text, rels: map[string][]kgqa.Relation{}, tried: map[kgqa.Relation]bool{}, seen: map[string]bool{}}
}

// relations lists the relations of every anchor, cached: one anchor by
// itself, several in batched queries (kg.RelationsOf), which give the
// same lists in fewer queries (a comparison's members are each an anchor).
func (x *explorer) relations(ctx context.Context, anchors []kgqa.Term) (map[string][]kgqa.Relation, error) {
	var missing []string
	x.mu.Lock()
	for _, a := range anchors {
		if _, ok := x.rels[a.ID]; !ok {
			missing = append(missing, a.ID)
		}
	}
	x.mu.Unlock()
	var got map[string][]kgqa.Relation
	switch len(missing) {
	case 0:
	case 1:
		rs, err := x.sg.e.g.Relations(ctx, missing[0])
		if err != nil {
			return nil, stepErr("explore", x.sg.s.ID, err)
		}
		got = map[string][]kgqa.Relation{missing[0]: rs}
	default:
		var err error
		if got, err = kg.RelationsOf(ctx, x.sg.e.g, missing); err != nil {
			return nil, stepErr("explore", x.sg.s.ID, err)
		}
	}
	x.mu.Lock()
	for id, rs := range got {
		x.rels[id] = rs
	}
	defer x.mu.Unlock()
	out := make(map[string][]kgqa.Relation, len(anchors))
	for _, a := range anchors {
		out[a.ID] = x.rels[a.ID]
		x.seen[a.ID] = true
	}
	return out, nil
}

type relationsReply struct {
	Relations []struct {
		ID  string `json:"id"`
		Dir string `json:"dir"`
	} `json:"relations"`
	Reason string `json:"reason"`
}

// choose asks the model which offered relations to keep (at most max).
// A reply names a relation by its full id or its name alone, in any case,
// and is resolved against the offered set only. Relations it names that
// were not offered are recorded and dropped; a reply naming only such
// relations is sent back once for repair. A model that still names no
// offered relation, or gives no reply in shape, does not fail the
// question: the offered relations that share words with the subgoal are
// kept instead, and the fallback recorded in the round.
// It returns the prompt's size in tokens.
func (x *explorer) choose(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int) (int, error) {
	req, err := x.relationsRequest(rd, offered, max)
	if err != nil {
		return 0, err
	}
	return x.chooseRendered(ctx, rd, offered, max, req)
}

// chooseRendered is choose with the prompt of offered already rendered.
func (x *explorer) chooseRendered(ctx context.Context, rd *kgqa.Round, offered []kgqa.Relation, max int, req kgqa.ChatRequest) (int, error) {
	tokens := promptTokens(req)
	ix := newOfferedIndex(offered)
	var rep relationsReply
	var chosen []kgqa.Relation
	var rejected, hallucinated []kgqa.RejectedRelation // hallucinated spans the repair turn
	check := func() error {
		chosen, rejected = nil, nil
		dup := map[kgqa.Relation]bool{}
		var firstErr error
		for _, c := range rep.Relations {
			r, err := ix.resolve(c.ID, c.Dir)
			switch {
			case err != nil:
				reason := "not_offered"
				if errors.Is(err, errAmbiguousName) {
					reason = "ambiguous"
				} else {
					err = fmt.Errorf("%s (%s) was not offered", c.ID, c.Dir)
				}
				if firstErr == nil {
					firstErr = err
				}
				h := kgqa.RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: reason}
				rejected = append(rejected, h)
				hallucinated = append(hallucinated, h)
			case dup[r]:
			case len(chosen) >= max:
				rejected = append(rejected, kgqa.RejectedRelation{ID: c.ID, Dir: c.Dir, Reason: "over_budget"})
			default:
				dup[r] = true
				chosen = append(chosen, r)
			}
		}
		if len(chosen) == 0 && firstErr != nil {
			return fmt.Errorf("none of the relations named was offered: %w; answer only with offered relations", firstErr)
		}
		return nil
	}
	_, err := x.sg.e.chat.JSON(ctx, req, &rep, check)
	rd.Rejected = hallucinated
	for _, r := range rejected {
		if r.Reason == "over_budget" {
			rd.Rejected = append(rd.Rejected, r)
		}
	}
	if errors.Is(err, kgqa.ErrSchema) {
		rd.Chosen, rd.ChosenBy = x.lexicalPick(rd.Anchors, offered, max), "lexical_fallback"
		rd.Fallback = "the model gave no offered relation in shape, repair included (" + err.Error() + "); kept the offered relations sharing most words with the subgoal"
		return tokens, nil
	}
	if err != nil {
		return tokens, stepErr("explore", x.sg.s.ID, err)
	}
	rd.Chosen, rd.ChosenBy = chosen, "llm"
	return tokens, nil
}

// relationsData is the relations prompt's data for the round's anchors
// and the offered relations.
func (x *explorer) relationsData(rd *kgqa.Round, offered []kgqa.Relation, max int) prompts.RelationsData {
	data := prompts.RelationsData{Plan: x.sg.view(), Subgoal: x.text, Max: max, Attribute: x.attrHint}
	for _, a := range rd.Anchors {
		data.Anchors = append(data.Anchors, prompts.Term(a))
	}
	if len(data.Anchors) > 20 {
		data.Anchors = append(data.Anchors[:20], fmt.Sprintf("and %d more", len(rd.Anchors)-20))
	}
	data.Out, data.In = groupRelations(x.sg.e.g.Dialect(), offered)
	return data
}

// lexicalPick returns up to max offered relations that share words with
// the subgoal (see relationQuery), most first; none when no relation
// shares a word.
func (x *explorer) lexicalPick(anchors []kgqa.Term, offered []kgqa.Relation, max int) []kgqa.Relation {
	d := x.sg.e.g.Dialect()
	q := tokens(x.relationQuery(anchors))
	type scored struct {
		r kgqa.Relation
		s float64
	}
	var cands []scored
	for _, r := range offered {
		if s := overlap(q, tokens(d.Readable(r.ID))); s > 0 {
			cands = append(cands, scored{r, s})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].s > cands[j].s })
	out := []kgqa.Relation{}
	for _, c := range cands[:min(len(cands), max)] {
		out = append(out, c.r)
	}
	return out
}

// round runs one exploration round from anchors, which ends at LLM depth
// end (d, plus one when the model chose relations).
func (x *explorer) round(ctx context.Context, anchors []kgqa.Term, depth, d int) (*kgqa.Round, int, error) {
	rd, has, d, err := x.pick(ctx, anchors, depth, d)
	if err != nil || len(rd.Chosen) == 0 {
		return rd, d, err
	}
	facts, err := x.neighbors(ctx, rd, rd.Chosen, has)
	rd.Facts = facts
	return rd, d, err
}

// pick lists the anchors' relations and has the model choose among them:
// the first half of a round, which ends at LLM depth end. has maps each
// offered relation to the anchors that have it.
func (x *explorer) pick(ctx context.Context, anchors []kgqa.Term, depth, d int) (rd *kgqa.Round, has map[kgqa.Relation][]kgqa.Term, end int, err error) {
	if p := x.pre; p != nil && depth == 0 {
		x.pre = nil
		return p.rd, p.has, max(d, p.end), nil
	}
	rd = &kgqa.Round{Depth: depth, Anchors: anchors, Chosen: []kgqa.Relation{}, Facts: []kgqa.Fact{}, DepthReason: x.depthReason}
	x.depthReason = ""
	rels, err := x.relations(ctx, anchors)
	if err != nil {
		return rd, nil, d, err
	}
	if groups := x.groupAnchors(anchors, rels); x.sg.e.cfg.RelationChoice == "anchor" && len(groups) > 1 {
		has, calls, err := x.pickPerAnchor(ctx, rd, groups, rels)
		d += calls
		for _, r := range rd.Chosen {
			x.tried[r] = true
		}
		return rd, has, d, err
	}
	offered, has, cut, err := x.offer(ctx, anchors, rels)
	if err != nil {
		return rd, nil, d, err
	}
	rd.Offered, rd.OfferedRelations, rd.Cut = len(offered), offered, cut
	if x.sg.e.prior != nil || cut != nil {
		rd.Ranking = x.ranking()
	}
	avail := x.untriedOf(anchors, rels)
	defer func() { rd.Prior = x.priorRanks(anchors, avail, offered, rd.Chosen) }()
	switch {
	case len(offered) == 0:
		return rd, has, d, nil
	case len(offered) == 1:
		rd.Chosen, rd.ChosenBy = offered, "only_offered"
	default:
		calls, err := x.choosePaged(ctx, rd, offered, x.sg.b.MaxRelationsPerEntity)
		d += calls
		if err != nil {
			return rd, has, d, err
		}
	}
	for _, r := range rd.Chosen {
		x.tried[r] = true
	}
	return rd, has, d, nil
}

// neighbors fetches the facts of each (anchor, chosen relation) pair,
// concurrently, keeping a deterministic order, and records in rd the
// pairs whose query returned as many facts as the limit. The limit is the
// KG's neighbour limit: prompts cap what they show (see promptFacts), the
// sets are computed from everything. With WithResultTruncation it is
// MaxEntitiesPerRelation, as in PoG.
func (x *explorer) neighbors(ctx context.Context, rd *kgqa.Round, chosen []kgqa.Relation, has map[kgqa.Relation][]kgqa.Term) ([]kgqa.Fact, error) {
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
	limit := x.sg.e.kgLimit
	if x.sg.truncates() {
		limit = x.sg.b.MaxEntitiesPerRelation
	}
	batched, err := x.batchNeighbors(ctx, chosen, has, limit)
	if err != nil {
		return nil, err
	}
	out := make([][]kgqa.Fact, len(jobs))
	hubs := make([]*kgqa.HubPair, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(x.sg.e.kgParallel)
	tasks := make([]func() error, len(jobs))
	for i, j := range jobs {
		tasks[i] = func() error {
			var err error
			fs, ok := batched[j.r][j.a.ID]
			if !ok {
				if fs, err = x.sg.e.g.Neighbors(gctx, j.a.ID, j.r, limit); err != nil {
					return stepErr("explore", x.sg.s.ID, err)
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
	if err := runGroup(g, tasks); err != nil {
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
func (x *explorer) batchNeighbors(ctx context.Context, chosen []kgqa.Relation, has map[kgqa.Relation][]kgqa.Term, limit int) (map[kgqa.Relation]map[string][]kgqa.Fact, error) {
	out := map[kgqa.Relation]map[string][]kgqa.Fact{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(x.sg.e.kgParallel)
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
			got, err := kg.NeighborsOf(gctx, x.sg.e.g, ids, r, limit)
			if err != nil {
				return stepErr("explore", x.sg.s.ID, err)
			}
			mu.Lock()
			out[r] = got
			mu.Unlock()
			return nil
		})
	}
	if err := runGroup(g, tasks); err != nil {
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
func (x *explorer) hubCut(ctx context.Context, a kgqa.Term, rel kgqa.Relation, fs []kgqa.Fact, limit int) ([]kgqa.Fact, *kgqa.HubPair, error) {
	keep := x.sg.b.MaxEntitiesPerRelation
	if len(fs) <= keep {
		return fs, nil, nil
	}
	p := x.sg.pack()
	n := len(fs)
	if n >= limit && n <= p.HubThreshold {
		var err error
		if n, err = x.sg.e.g.Count(ctx, a.ID, rel); err != nil {
			return nil, nil, stepErr("explore", x.sg.s.ID, err)
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

// untried reports whether the anchors have relations not yet explored.
func (x *explorer) untried(anchors []kgqa.Term) bool {
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
func (x *explorer) next(ctx context.Context, rd *kgqa.Round, depth, d int) (anchors []kgqa.Term, nextDepth, end int, ok bool, err error) {
	mediators := depth+1 >= x.sg.b.Depth && x.mediatorHop(rd, depth)
	if depth+1 < x.sg.b.Depth || mediators {
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
			if mediators {
				x.depthReason = retrieval.ReasonCompositionMediatorHop
			}
			return kept, depth + 1, end, len(kept) > 0, err
		}
	}
	if x.untried(rd.Anchors) {
		return rd.Anchors, depth, d, true, nil
	}
	return nil, depth, d, false, nil
}

// mediatorHop reports whether a composition subgoal held to one hop per
// subgoal may take a second one from round rd: its first hop landed only
// on nameless mediator nodes, which the KG did not fold into facts of two
// relations, so the answer lies one hop beyond them.
func (x *explorer) mediatorHop(rd *kgqa.Round, depth int) bool {
	if depth != 0 || x.sg.e.cfg.Depth < 2 || x.sg.pack().Reasons[retrieval.ParamDepth] != retrieval.ReasonCompositionHop {
		return false
	}
	n := 0
	for _, f := range rd.Facts {
		if !f.Tail.IsEntity() {
			continue
		}
		if f.Tail.Name != "" && f.Tail.Name != f.Tail.ID {
			return false
		}
		n++
	}
	return n > 0
}
