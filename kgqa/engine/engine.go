package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine/explore"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/parog/parog-go/kgqa/retrieval"
	"github.com/parog/parog-go/refine"
)

// Engine answers questions over a knowledge graph with the
// Plan-Answer-Refine loop. It is safe for concurrent use: each Ask keeps
// its own state.
type Engine struct {
	g           kg.Graph
	chat        kgqa.Chatter
	cfg         config.Engine
	refiner     *refine.Refiner
	maxFacts    int
	searchLimit int
	kgParallel  int
	truncate    bool
	kgLimit     int
	planner     Planner // nil: Engine.Plan
	embedder    llm.Embedder
	schema      *kg.Schema // nil: types from relation ids only
	// relationsBudget bounds one relations prompt's tokens.
	relationsBudget int
	prior           *relprior.Prior       // nil: offers ranked without a relation prior
	afterRun        func(context.Context) // tests: runs after a run ends, before Ask decides its outcome
	tmpl            *prompts.Set          // the prompt templates (prompts.dir, or the built-in set)
	promptSet       string                // tmpl's name, recorded in every answer
	// explore is what every subgoal's exploration shares, set by New.
	explore *explore.Env
	// rules is the retrieval rule table: the defaults with
	// cfg.RetrievalRules over them, parsed once by New.
	rules *retrieval.Table
}

// WithPrompts makes the engine, and its refiner, render prompts with set
// (prompts.dir) rather than the built-in templates.
func WithPrompts(set *prompts.Set) Option {
	return func(e *Engine) {
		if set != nil {
			e.tmpl = set
		}
	}
}

// Option configures an Engine.
type Option func(*Engine)

// WithMaxFacts bounds the facts shown to the model in one prompt
// (default 60).
func WithMaxFacts(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.maxFacts = n
		}
	}
}

// WithSearchLimit bounds the candidates looked up per mention when linking
// (default 3).
func WithSearchLimit(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.searchLimit = n
		}
	}
}

// WithKGParallelism bounds the KG queries one subgoal runs at once
// (default 8).
func WithKGParallelism(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.kgParallel = n
		}
	}
}

// WithNeighborLimit tells the engine the KG's neighbour limit (config
// kg.neighbor_limit): result sets are computed from every fact a
// neighbour query returns up to it, and a query that returns that many is
// recorded as capped in the trace. n <= 0 keeps the default,
// config.Default().KG.NeighborLimit, which is also the Graph's default.
func WithNeighborLimit(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.kgLimit = n
		}
	}
}

// WithResultTruncation makes every find subgoal keep at most Width
// entities of its result, chosen like the exploration frontier. This is
// the top-k pruning of linear-path methods such as PoG, kept as an option
// for ablations of search-space truncation; the engine's default keeps the
// whole result set and lets exact set logic narrow it. As before the
// option existed on its own, each neighbour query then also keeps at most
// MaxEntitiesPerRelation facts, and a find result holds only what the
// model named from the facts it was shown. The retrieval plan exempts the
// sets that are counted, ordered, compared, intersected or dated
// (package retrieval's rules; engine.retrieval_rules overrides them).
func WithResultTruncation() Option { return func(e *Engine) { e.truncate = true } }

// WithEmbedder ranks relations by embedding similarity to the subgoal
// when a round has more than MaxOfferedRelations of them (config
// llm.embeddings); without it they are ranked by word overlap. A failing
// embeddings call falls back to word overlap, noted in the trace.
func WithEmbedder(em llm.Embedder) Option { return func(e *Engine) { e.embedder = em } }

// DefaultRelationsPromptTokens is the most tokens one relations prompt
// takes by default (WithRelationsPromptBudget): at Freebase's density an
// anchor has thousands of relations, and a prompt that lists them all is
// one a small model reads badly and a served model may refuse.
const DefaultRelationsPromptTokens = 4000

// WithRelationsPromptBudget bounds the tokens (about four bytes each) of
// one relations prompt; an offer that does not fit is split into pages,
// most relevant relations first (default DefaultRelationsPromptTokens).
func WithRelationsPromptBudget(tokens int) Option {
	return func(e *Engine) {
		if tokens > 0 {
			e.relationsBudget = tokens
		}
	}
}

// WithRelationPrior ranks every relation offer by the relation prior p
// (engine.relation_prior) added to word overlap or embeddings, before the
// offer is paged or cut; nil ranks without one.
func WithRelationPrior(p *relprior.Prior) Option { return func(e *Engine) { e.prior = p } }

// New returns an engine over g that asks chat, with cfg as its default
// budgets (zero fields take config.Default's values). Bad
// cfg.RetrievalRules are an error (a *config.Error naming
// engine.retrieval_rules): the rule table is parsed here, once.
func New(g kg.Graph, chat kgqa.Chatter, cfg config.Engine, opts ...Option) (*Engine, error) {
	e := &Engine{g: g, chat: chat, cfg: withDefaults(cfg, config.Default().Engine), maxFacts: refine.DefaultMaxFacts, searchLimit: 3, kgParallel: 8,
		kgLimit: config.Default().KG.NeighborLimit, tmpl: prompts.Builtin, relationsBudget: DefaultRelationsPromptTokens}
	rules, err := retrieval.Parse(e.cfg.RetrievalRules)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", &config.Error{Key: "engine.retrieval_rules", Reason: err.Error()})
	}
	e.rules = rules
	for _, o := range opts {
		o(e)
	}
	e.promptSet = e.tmpl.Name()
	e.refiner = refine.New(chat, g.Dialect(), refine.WithMaxFacts(e.maxFacts), refine.WithPrompts(e.tmpl))
	e.explore = &explore.Env{
		Graph: g, Chat: chat, Prompts: e.tmpl, Embedder: e.embedder, Prior: e.prior,
		RelationsBudget: e.relationsBudget, NeighborLimit: e.kgLimit, Parallelism: e.kgParallel,
		RelationChoice: e.cfg.RelationChoice, Depth: e.cfg.Depth, Truncate: e.truncate,
		RelationOffer: e.cfg.RelationOffer, ShortOffer: e.cfg.ShortOffer,
	}
	return e, nil
}

// withDefaults fills the zero numeric fields, an empty OutsideKG,
// Ordering, RelationChoice or RelationOffer and nil RetrievalRules of b
// from d. FuseSufficiency, PlanTentatives and Direct are taken from b as
// is.
func withDefaults(b, d config.Engine) config.Engine {
	pick := func(v *int, dv int) {
		if *v <= 0 {
			*v = dv
		}
	}
	pick(&b.Width, d.Width)
	pick(&b.Depth, d.Depth)
	pick(&b.MaxRounds, d.MaxRounds)
	pick(&b.MaxEntitiesPerRelation, d.MaxEntitiesPerRelation)
	pick(&b.MaxRelationsPerEntity, d.MaxRelationsPerEntity)
	pick(&b.MaxOfferedRelations, d.MaxOfferedRelations)
	pick(&b.Parallelism, d.Parallelism)
	pick(&b.ShortOffer, d.ShortOffer)
	if b.Deadline <= 0 {
		b.Deadline = d.Deadline
	}
	if b.OutsideKG == "" {
		b.OutsideKG = d.OutsideKG
	}
	if b.RelationChoice == "" {
		b.RelationChoice = d.RelationChoice
	}
	if b.RelationOffer == "" {
		b.RelationOffer = d.RelationOffer
	}
	if b.Ordering == "" {
		b.Ordering = d.Ordering
	}
	if b.RetrievalRules == nil {
		b.RetrievalRules = d.RetrievalRules
	}
	b.TracePrompts = b.TracePrompts || d.TracePrompts
	return b
}

// Graph is the KG the engine explores (and runs certificates on).
func (e *Engine) Graph() kg.Graph { return e.g }

// Ask answers req.Question. On failure it returns the partial Answer (the
// trace so far, Stop and Error set) together with the error, so that a
// caller can show how far the engine got.
func (e *Engine) Ask(ctx context.Context, req Request) (*kgqa.Answer, error) {
	start := time.Now()
	ans := &kgqa.Answer{Question: req.Question, Entities: []kgqa.Term{}, Subgoals: []*kgqa.SubgoalRecord{}, Topics: []kgqa.Topic{}}
	budgets, err := req.Overrides.apply(e.cfg)
	if err != nil {
		ans.Stop, ans.Error = kgqa.StopError, err.Error()
		return ans, err
	}
	ledger := kgqa.NewLedger()
	stats := &kg.Stats{}
	ctx = kg.WithStats(kgqa.WithLedger(ctx, ledger), stats)
	if req.Seed != nil {
		ctx = llm.WithSeed(ctx, *req.Seed)
	}
	var recorder *kgqa.Recorder
	if budgets.TracePrompts {
		recorder = &kgqa.Recorder{}
		ctx = kgqa.WithRecorder(ctx, recorder)
	}
	ctx, cancel := context.WithTimeout(ctx, budgets.Deadline)
	defer cancel()

	r := &run{e: e, b: budgets, ans: ans, start: start, emit: newEmitter(req.OnEvent, start)}
	// The run's own error decides: every step the deadline cuts short
	// fails with the context's error, so a run that ended without one
	// finished, and its answer stands even if the deadline has passed
	// since.
	err = r.do(ctx, req)
	if e.afterRun != nil {
		e.afterRun(ctx)
	}
	r.finish(err)
	ans.TentativeAnswer = tentativeAnswer(ans.Plan, ans.Subgoals)
	ans.Certificate = e.certify(ctx, ans, err)
	ans.Usage = kgqa.Usage{
		LLM: ledger.Summary(), SPARQLQueries: stats.Queries.Load(),
		CacheHits: stats.CacheHits.Load(), CacheMisses: stats.CacheMisses.Load(),
		CriticalPathCalls: r.criticalPath(), WallMS: time.Since(start).Milliseconds(),
		Calls: callSpans(ledger.Calls(), start), KG: stats.Usage(),
	}
	ans.Transcript = recorder.Transcript(ans.Plan.Index)
	ans.Prompts = e.promptSet
	if err != nil {
		return ans, err
	}
	r.emit.send(kgqa.Event{Type: kgqa.EventFinal, Answer: ans})
	return ans, nil
}

// Planner makes a question's plan in place of the engine's own planning
// call (Engine.Plan): planner.mode lqt plugs in the logical-query-tree
// planner of kgqa/lqt this way. Its model calls go through the chat client
// it was built with; the question's ledger is in ctx, so they are
// accounted with the question's other calls.
type Planner interface {
	// Plan returns a validated plan of question and how it was made.
	Plan(ctx context.Context, question string) (*kgqa.Plan, kgqa.PlanInfo, error)
}

// WithPlanner makes the engine plan with p instead of its planning call.
// A nil p keeps the engine's own.
func WithPlanner(p Planner) Option { return func(e *Engine) { e.planner = p } }
