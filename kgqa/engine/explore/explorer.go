// Package explore is the exploration step of PARoG: one subgoal's walk
// over the knowledge graph, a round at a time. A round lists the anchors'
// relations, offers the untried ones to the model (offer.go: ranked by
// word overlap, embeddings or a relation prior and cut to the budget;
// pages.go: split into prompts that fit; short.go: a short first page
// when the ranking's top is clear; clear.go: no choice at all when that
// top is a relation or two; anchors.go: per group of anchors), has
// the model choose (choose.go; next.go: the next-best offered relation
// when the choice gives nothing), fetches the neighbours
// along the chosen relations (neighbors.go) and, for the next round,
// prunes the frontier (prune.go). lexical.go is the word matching the
// rankings share; branch.go the first choice of a conjunction's branch,
// made to estimate or check it, and the retry of a subgoal's anchors.
package explore

import (
	"context"
	"sync"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/parog/parog-go/kgqa/retrieval"
)

// Env is what the explorations of one engine share: the KG, the model,
// the prompt set and the budgets that do not change per question.
type Env struct {
	// Graph is the KG explored.
	Graph kg.Graph
	// Chat asks the model which relations to keep and which entities to
	// prune to.
	Chat kgqa.Chatter
	// Prompts renders the relations and prune prompts.
	Prompts *prompts.Set
	// Embedder ranks a cut or paged offer by embeddings; nil ranks by
	// word overlap.
	Embedder llm.Embedder
	// Prior is added to every ranking of an offer; nil ranks without one.
	Prior *relprior.Prior
	// RelationsBudget bounds the tokens of one relations prompt.
	RelationsBudget int
	// NeighborLimit is the KG's neighbour limit (kg.neighbor_limit).
	NeighborLimit int
	// Parallelism bounds the KG queries a round runs at once.
	Parallelism int
	// RelationChoice is engine.relation_choice: "anchor" offers each
	// group of anchors its own relations; "set" does so only for anchors
	// the plan names apart (a subgoal's topic entities), and offers the
	// members of one set (Subgoal.Members, a round's frontier) as one.
	RelationChoice string
	// RelationOffer is engine.relation_offer: "adaptive" offers a short
	// first page of ShortOffer relations when the ranking's top is clear
	// (short.go); "full" the whole offer, paged by the budget alone.
	RelationOffer string
	// ShortOffer is engine.short_offer, the relations of a short page.
	ShortOffer int
	// Depth is engine.depth as configured, which bounds a mediator hop.
	Depth int
	// Truncate is WithResultTruncation: neighbour lists keep the pack's
	// facts per pair where the subgoal's pack allows it.
	Truncate bool
}

// Subgoal is what an Explorer knows of the subgoal it serves.
type Subgoal struct {
	// Text is the subgoal's text with its references resolved.
	Text string
	// Question is the question asked.
	Question string
	// View renders the plan for a prompt.
	View func() prompts.PlanView
	// Pack is the subgoal's retrieval pack (read when needed: the
	// engine may change it between rounds).
	Pack func() retrieval.Pack
	// Budgets are the question's budgets with the pack applied.
	Budgets config.Engine
	// Fail marks an error of the KG or the model as this subgoal's
	// exploration step's.
	Fail func(error) error
	// Members says the subgoal's anchors are the members of one set, the
	// answer of the one subgoal it needs: the same relation is asked of
	// each, so they share one offer and one choice (relation_choice set).
	Members bool
	// WantsEntity says a later step reads the subgoal's answer as
	// entities (explores from them, or reads their attributes): a round
	// whose facts reach no entity gives it nothing.
	WantsEntity bool
	// Followed, when set, is told of each next-best relation a round
	// followed because the relations chosen before it (from) gave the
	// subgoal nothing, and of the facts it found (see followNext).
	Followed func(from []kgqa.Relation, to kgqa.Relation, facts int)
}

// Explorer walks the KG for one subgoal: it lists the relations of the
// anchors, lets the model keep the relevant ones, fetches neighbours and
// prunes the frontier. One round is Round; Next says where the following
// one starts.
type Explorer struct {
	env      *Env
	sub      Subgoal
	attrHint string

	mu    sync.Mutex
	rels  map[string][]kgqa.Relation // relation lists by entity id
	tried map[kgqa.Relation]bool
	seen  map[string]bool // entities explored from
	pre   *prePick        // a first choice made before the subgoal ran
	// scored is the last offer's scores (short.go).
	scored scoredOffer
	// depthReason is the reason the next round explores past the
	// pack's depth, recorded on that round.
	depthReason string
	// clearTop lets the next round skip the relation choice on a clear
	// ranking (clear.go).
	clearTop bool
}

// New returns an explorer of sub over env.
func New(env *Env, sub Subgoal) *Explorer {
	return &Explorer{env: env, sub: sub, rels: map[string][]kgqa.Relation{}, tried: map[kgqa.Relation]bool{}, seen: map[string]bool{}}
}

// Serve makes x serve sub from now on, keeping what it has explored (a
// first choice made while the engine ordered branches).
func (x *Explorer) Serve(sub Subgoal) { x.sub = sub }

// SetAttribute names the attribute a comparison compares by: relations
// are matched against it as well as the subgoal.
func (x *Explorer) SetAttribute(attr string) { x.attrHint = attr }

// Attribute is the attribute SetAttribute named.
func (x *Explorer) Attribute() string { return x.attrHint }

func (x *Explorer) fail(err error) error { return x.sub.Fail(err) }

// truncates reports whether neighbour lists are cut to the top-k
// (WithResultTruncation, unless the subgoal's pack forbids it).
func (x *Explorer) truncates() bool { return x.env.Truncate && x.sub.Pack().TruncateNeighbors }

// Relations lists the relations of every anchor, cached: one anchor by
// itself, several in batched queries (kg.RelationsOf), which give the
// same lists in fewer queries (a comparison's members are each an anchor).
func (x *Explorer) Relations(ctx context.Context, anchors []kgqa.Term) (map[string][]kgqa.Relation, error) {
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
		rs, err := x.env.Graph.Relations(ctx, missing[0])
		if err != nil {
			return nil, x.fail(err)
		}
		got = map[string][]kgqa.Relation{missing[0]: rs}
	default:
		var err error
		if got, err = kg.RelationsOf(ctx, x.env.Graph, missing); err != nil {
			return nil, x.fail(err)
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

// Round runs one exploration round from anchors, which ends at LLM depth
// end (d, plus one when the model chose relations).
func (x *Explorer) Round(ctx context.Context, anchors []kgqa.Term, depth, d int) (*kgqa.Round, int, error) {
	rd, has, d, err := x.pick(ctx, anchors, depth, d)
	if err != nil || len(rd.Chosen) == 0 {
		return rd, d, err
	}
	facts, err := x.Neighbors(ctx, rd, rd.Chosen, has)
	rd.Facts = facts
	if err == nil && !rd.ChoiceSkipped {
		// A skipped choice that gives nothing brings the model's own.
		err = x.followNext(ctx, rd, has)
	}
	return rd, d, err
}

// pick lists the anchors' relations and has the model choose among them:
// the first half of a round, which ends at LLM depth end. has maps each
// offered relation to the anchors that have it.
func (x *Explorer) pick(ctx context.Context, anchors []kgqa.Term, depth, d int) (rd *kgqa.Round, has map[kgqa.Relation][]kgqa.Term, end int, err error) {
	skip := x.clearTop && depth == 0
	x.clearTop = false
	if p := x.pre; p != nil && depth == 0 {
		x.pre = nil
		return p.rd, p.has, max(d, p.end), nil
	}
	rd = &kgqa.Round{Depth: depth, Anchors: anchors, Chosen: []kgqa.Relation{}, Facts: []kgqa.Fact{}, DepthReason: x.depthReason}
	x.depthReason = ""
	rels, err := x.Relations(ctx, anchors)
	if err != nil {
		return rd, nil, d, err
	}
	if groups := x.groupAnchors(anchors, rels); x.perAnchor(depth) && len(groups) > 1 {
		has, calls, err := x.pickPerAnchor(ctx, rd, groups, rels)
		d += calls
		for _, r := range rd.Chosen {
			x.tried[r] = true
		}
		return rd, has, d, err
	}
	offered, has, cut, err := x.Offer(ctx, anchors, rels)
	if err != nil {
		return rd, nil, d, err
	}
	rd.Offered, rd.OfferedRelations, rd.Cut = len(offered), offered, cut
	if x.env.Prior != nil || cut != nil {
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
		if skip {
			if skip, err = x.skipChoice(ctx, rd, offered); err != nil {
				return rd, has, d, err
			}
		}
		if !skip {
			calls, err := x.ChoosePaged(ctx, rd, offered, x.sub.Budgets.MaxRelationsPerEntity)
			d += calls
			if err != nil {
				return rd, has, d, err
			}
		}
	}
	for _, r := range rd.Chosen {
		x.tried[r] = true
	}
	return rd, has, d, nil
}

// perAnchor reports whether a round at depth offers each group of its
// anchors its own relations (engine.relation_choice): always with
// "anchor"; with "set" only for the anchors a subgoal starts from that
// are not the members of one set. A set's members, whether an earlier
// subgoal's answer or a round's frontier (the tails of the relations it
// followed), answer the same subgoal by the same relation, so one offer
// of all their relations and one choice serve them: per member, a set of
// n paid n relations calls, and a member without the relation two (the
// short page and the rest, both kept empty).
func (x *Explorer) perAnchor(depth int) bool {
	switch x.env.RelationChoice {
	case "anchor":
		return true
	case "set":
		return depth == 0 && !x.sub.Members
	}
	return false
}

// untried reports whether the anchors have relations not yet explored.
func (x *Explorer) untried(anchors []kgqa.Term) bool {
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

// Next decides where the following round explores from: one hop further
// (the round's tails, pruned to Width) while the depth budget allows, else
// the same anchors with relations not yet tried. ok is false when there is
// nowhere left to go.
func (x *Explorer) Next(ctx context.Context, rd *kgqa.Round, depth, d int) (anchors []kgqa.Term, nextDepth, end int, ok bool, err error) {
	mediators := depth+1 >= x.sub.Budgets.Depth && x.mediatorHop(rd, depth)
	if depth+1 < x.sub.Budgets.Depth || mediators {
		var cands []Candidate
		seen := map[string]bool{}
		for _, f := range rd.Facts {
			if !f.Tail.IsEntity() || seen[f.Tail.ID] || x.seen[f.Tail.ID] {
				continue
			}
			seen[f.Tail.ID] = true
			cands = append(cands, Candidate{Term: f.Tail, Fact: f})
		}
		if len(cands) > 0 {
			kept, end, err := x.Prune(ctx, rd, cands, d)
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
func (x *Explorer) mediatorHop(rd *kgqa.Round, depth int) bool {
	if depth != 0 || x.env.Depth < 2 || x.sub.Pack().Reasons[retrieval.ParamDepth] != retrieval.ReasonCompositionHop {
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
