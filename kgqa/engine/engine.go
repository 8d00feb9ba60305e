// Package kgqa is the PARoG engine: it executes a Plan of subgoals over a
// knowledge graph with the Plan-Answer-Refine loop and records a Trace.
//
// The Plan (package plan) is the one contract shared by the planner (its
// output), sparql2plan (its SFT target) and the executor (its input); the
// answer and its trace are package answer's. Both are named here as the
// engine's own.
package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
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
	return e, nil
}

// withDefaults fills the zero numeric fields, an empty OutsideKG or
// Ordering and nil RetrievalRules of b from d. FuseSufficiency and Direct are taken from b
// as is.
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
	if b.Deadline <= 0 {
		b.Deadline = d.Deadline
	}
	if b.OutsideKG == "" {
		b.OutsideKG = d.OutsideKG
	}
	if b.RelationChoice == "" {
		b.RelationChoice = d.RelationChoice
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

// Request is one question to answer.
type Request struct {
	// Question is the question text.
	Question string
	// TopicEntities are entity ids to start from; empty links them from
	// the question.
	TopicEntities []string
	// Plan, when set, is executed instead of asking the planner (it is
	// validated first).
	Plan *kgqa.Plan
	// Overrides changes the engine's budgets for this question; its nil
	// fields keep the configured values.
	Overrides Overrides
	// History is the conversation before Question, oldest first, when the
	// question is a chat's last user message. With an earlier user
	// message in it, the reasoner first classifies Question (new,
	// follow-up or unsafe) and a follow-up is rewritten into a standalone
	// question before planning; an unsafe one is refused (StopRefused).
	History []kgqa.Message
	// Screen makes the reasoner judge Question (new or unsafe) even when
	// History holds no earlier user message: a chat's single message is
	// screened for safety the way a follow-up is, and refused when
	// unsafe. It is never rewritten: there is nothing for it to follow.
	Screen bool
	// Seed is recorded in the trace for reproducible runs; the sampling
	// seed sent to the endpoints is the role's configured seed.
	Seed *int
	// OnEvent, when set, receives the steps as they happen. Calls are
	// serialised, in the order the steps happen; it must not block long.
	OnEvent func(kgqa.Event)
}

// Errors returned by Ask and Plan; test with errors.Is / errors.As. Errors
// of the LLM client (llm.ErrUnavailable, *llm.SchemaError, ...) and the KG
// (kg.ErrUnavailable, ...) are wrapped in a *StepError and stay
// recognisable with errors.Is.
var (
	// ErrEmptyQuestion means the request had no question.
	ErrEmptyQuestion = errors.New("kgqa: empty question")
	// ErrNoTopicEntities means no topic entity was given or could be
	// linked.
	ErrNoTopicEntities = errors.New("kgqa: no topic entity")
	// ErrBadTopic means a requested topic entity id is malformed.
	ErrBadTopic = errors.New("kgqa: malformed topic entity id")
)

// StepError reports which step of the engine failed.
type StepError struct {
	// Stage is the step: "plan", "link", "tentative", "explore",
	// "refine", "set_op", "sufficiency" or "final".
	Stage string
	// Subgoal is the subgoal id, when the step belongs to one.
	Subgoal string
	// Err is the cause.
	Err error
}

func (e *StepError) Error() string {
	if e.Subgoal != "" {
		return fmt.Sprintf("kgqa: %s %s: %v", e.Stage, e.Subgoal, e.Err)
	}
	return fmt.Sprintf("kgqa: %s: %v", e.Stage, e.Err)
}

// Unwrap returns the cause.
func (e *StepError) Unwrap() error { return e.Err }

func stepErr(stage, subgoal string, err error) error {
	var se *StepError
	if errors.As(err, &se) {
		return err
	}
	return &StepError{Stage: stage, Subgoal: subgoal, Err: err}
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

// finish sets the stop reason and error text.
func (r *run) finish(err error) {
	switch {
	case err == nil:
		if r.ans.Stop == "" {
			r.ans.Stop = kgqa.StopPlanComplete
		}
		return
	case errors.Is(err, context.DeadlineExceeded):
		r.ans.Stop = kgqa.StopDeadline
	case errors.Is(err, context.Canceled):
		r.ans.Stop = kgqa.StopCanceled
	default:
		r.ans.Stop = kgqa.StopError
	}
	r.ans.Error = err.Error()
	for _, s := range r.ans.Subgoals {
		if s.Status == statusPending || s.Status == statusRunning {
			s.Status = statusSkipped
		}
	}
}

// run is the state of one Ask.
type run struct {
	e     *Engine
	b     config.Engine
	ans   *kgqa.Answer
	pre   int // LLM calls on the critical path before planning (the follow-up classifier)
	start time.Time
	emit  *emitter

	mu      sync.Mutex // guards the fields below and the records in ans
	results map[string]*kgqa.Result
	depth   map[string]int // critical-path LLM depth at the end of each subgoal
	base    int            // LLM depth before the executor starts
	maxSeen int
	facts   []factRef // all evidence, for sufficiency and final prompts
	stopped bool      // early stop: the question was judged answerable
	stopPos int       // plan index of the subgoal whose judgement stopped the run

	// Fixed before execution (see determinism.go).
	rank map[string]int // subgoal -> its place in the one-at-a-time order, or its wave
	pos  map[string]int // subgoal -> its index in the plan

	topicList []kgqa.Topic
	records   map[string]*kgqa.SubgoalRecord

	// Cost-based ordering (see orderBranches), fixed before execution.
	verifyAgainst map[string]string            // branch -> the branch whose candidates it checks
	after         map[string][]string          // subgoal -> subgoals it waits for beyond its needs
	branchOf      map[string]*kgqa.BranchOrder // branch -> its entry in the intersect's Ordering
	// picks are the relation choices made to estimate the branches,
	// reused by the branches' first round so that no choice is asked
	// twice; tentativeBefore is each verified branch's pack setting before the
	// check turned it off, restored when the check settles nothing.
	picks           map[string]*explorer
	tentativeBefore map[string]bool
}

type factRef struct {
	subgoal string
	fact    kgqa.Fact
}

func (r *run) do(ctx context.Context, req Request) error {
	if strings.TrimSpace(req.Question) == "" {
		return ErrEmptyQuestion
	}
	if err := kg.CheckText(req.Question); err != nil {
		// Refused before any model call: text a model would copy into a
		// lookup that no lookup can take.
		return fmt.Errorf("question: %w", err)
	}
	q, refused, err := r.classify(ctx, req.Question, req.History, req.Screen)
	if err != nil || refused {
		return err
	}
	req.Question = q
	if r.ans.Rewrite != nil {
		r.pre = 1
		r.reach(1)
	}
	if req.Plan == nil && len(req.TopicEntities) == 0 && r.answerDirect(req.Question) {
		return nil
	}
	// Planning and linking depend only on the question: run them at once.
	var (
		plan     *kgqa.Plan
		info     kgqa.PlanInfo
		topics   []kgqa.Topic
		mentions []kgqa.Mention
		linkLLM  bool
	)
	err = both(ctx, func(gctx context.Context) error {
		var err error
		if len(req.TopicEntities) > 0 {
			topics, err = r.requestedTopics(gctx, req.TopicEntities)
			return err
		}
		linkLLM = true
		topics, mentions, err = r.linkTopics(gctx, req.Question)
		return err
	}, func(gctx context.Context) error {
		var err error
		plan, info, err = r.plan(gctx, req)
		if err == nil {
			pi := info
			r.emit.send(kgqa.Event{Type: kgqa.EventPlan, Plan: plan, PlanInfo: &pi})
		}
		return err
	})
	if err == nil && req.Plan == nil && r.e.planner == nil {
		var called bool
		if plan, info, called = r.e.replanForTopics(ctx, req.Question, plan, info, topics); called {
			r.base++
		}
	}
	r.ans.PlanInfo, r.ans.Mentions = info, mentions
	if topics != nil {
		r.ans.Topics = topics
	}
	if plan != nil {
		r.ans.Plan = plan
		for _, s := range plan.Subgoals {
			r.ans.Subgoals = append(r.ans.Subgoals, &kgqa.SubgoalRecord{ID: s.ID, Text: s.Text, Op: s.Op, Needs: s.Needs, Status: statusPending})
		}
	}
	if err != nil {
		return err
	}
	r.planRetrieval(plan, topics)
	if len(topics) == 0 && !literalAnchored(plan) {
		if r.b.OutsideKG == "notice" {
			r.answerOutsideKG()
			return nil
		}
		return r.answerWithoutKG(ctx, plan)
	}
	if linkLLM && r.base < 1 {
		r.base = 1
	}
	r.base += r.pre
	r.reach(r.base)
	r.topicList = topics
	if err := r.execute(ctx, plan); err != nil {
		return err
	}
	r.propertyBoundary(plan)
	return nil
}

func (r *run) plan(ctx context.Context, req Request) (*kgqa.Plan, kgqa.PlanInfo, error) {
	if req.Plan != nil {
		p := *req.Plan
		err := p.CheckVersion()
		if err == nil {
			err = p.Validate()
		}
		if err != nil {
			return nil, kgqa.PlanInfo{Source: "given"}, stepErr("plan", "", err)
		}
		return &p, kgqa.PlanInfo{Source: "given", Kinds: p.Kinds()}, nil
	}
	p, info, err := r.e.Plan(ctx, req.Question)
	if err == nil {
		r.base = planningCriticalCalls(info)
	}
	return p, info, err
}

// criticalPath returns the longest chain of dependent LLM calls.
func (r *run) criticalPath() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxSeen
}

// reach records that a chain of d dependent LLM calls has completed.
func (r *run) reach(d int) {
	r.mu.Lock()
	if d > r.maxSeen {
		r.maxSeen = d
	}
	r.mu.Unlock()
}

// planningCriticalCalls is the chain of dependent model calls planning
// took: one, or with a logical query tree the atomic queries, then the
// pair calls, which run at once.
func planningCriticalCalls(i kgqa.PlanInfo) int {
	if i.Tree != nil && i.Tree.PairCalls > 0 {
		return 2
	}
	return 1
}
