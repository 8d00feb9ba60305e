package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmcache"
	"github.com/parog/parog-go/kgqa/lqt"
	"github.com/parog/parog-go/kgqa/metrics"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/parog/parog-go/kgqa/sharedcache"
)

// app is the wired program: the KG, the model client, the engine and the
// metrics they report to. Every command that needs any of them gets them
// from openApp: serve, ask, eval, bench, kg, dataset answerable,
// sparql2plan --teacher and finetune eval-planner.
type app struct {
	// Config is the configuration the app was built from.
	Config config.Config
	// Graph is the KG backend (with its cache); nil with modelsOnly.
	Graph kg.Graph
	// LLM is the model client of every configured role (a role with no
	// base_url stays unconfigured); nil with graphOnly.
	LLM *llm.Client
	// Engine answers questions over Graph with LLM; nil unless both are
	// built.
	Engine *engine.Engine
	// Metrics receive every LLM call (and the server's own metrics).
	Metrics *metrics.Metrics
	// Shared is the cache shared with other processes (nil without one).
	Shared *sharedcache.Redis

	lopt   []llm.Option
	schema *kg.Schema // kg.schema, read once
}

// appOption selects what openApp builds and how.
type appOption func(*appSpec)

type appSpec struct {
	graph, models bool
	llm           []llm.Option
}

// withLLM passes options to the model client (an HTTP client with a rate
// limit or a recording, for instance); they come after openApp's own, so
// they can override them.
func withLLM(opts ...llm.Option) appOption {
	return func(s *appSpec) { s.llm = append(s.llm, opts...) }
}

// graphOnly builds the KG (with its caches) and no model client or
// engine: for commands that only query the KG.
func graphOnly() appOption { return func(s *appSpec) { s.models = false } }

// modelsOnly builds the model client and no KG or engine: for commands
// that only talk to models.
func modelsOnly() appOption { return func(s *appSpec) { s.graph = false } }

// errNoReasoner is what every command that answers questions says when no
// reasoner model is configured.
var errNoReasoner = errors.New("no reasoner model is configured: set llm.reasoner.base_url and llm.reasoner.model (or PAROG_LLM_REASONER_BASE_URL and PAROG_LLM_REASONER_MODEL)")

// openApp builds the app from cfg: config.CheckKeys first (a hosted API
// whose key variable is unset refuses at once), the shared cache and kg.Open, llm.New
// (API keys read through env.Getenv, calls observed by the metrics,
// notices logged to env.Stderr) and kgqa.New. It is the one place the
// program wires these. The config's relative file paths were resolved
// against its file's directory when it was loaded, so the KG opens them
// as they are.
func openApp(ctx context.Context, cfg config.Config, env *Env, opts ...appOption) (*app, error) {
	spec := appSpec{graph: true, models: true}
	for _, o := range opts {
		o(&spec)
	}
	if spec.models {
		// Before the KG loads: a hosted API without its key fails at once,
		// having sent nothing.
		if err := cfg.CheckKeys(env.Getenv); err != nil {
			return nil, err
		}
	}
	m := metrics.New()
	a := &app{Config: cfg, Metrics: m, lopt: append([]llm.Option{
		llm.WithGetenv(env.Getenv), llm.WithObserver(m.ObserveLLM),
		llm.WithLogger(slog.New(slog.NewTextHandler(env.Stderr, nil))),
	}, spec.llm...)}
	if spec.graph {
		shared, kopts, err := openShared(ctx, cfg)
		if err != nil {
			return nil, err
		}
		a.Shared = shared
		if a.Graph, err = kg.Open(ctx, cfg.KG, "", adapters.Open, kopts...); err != nil {
			_ = a.Close()
			return nil, fmt.Errorf("open knowledge graph: %w", err)
		}
	}
	if !spec.models {
		return a, nil
	}
	client, err := llm.New(cfg.LLM, a.lopt...)
	if err != nil {
		_ = a.Close()
		return nil, fmt.Errorf("open model client: %w", err)
	}
	a.LLM = client
	if a.Graph != nil {
		if a.Engine, err = a.engine(cfg, client); err != nil {
			_ = a.Close()
			return nil, err
		}
	}
	return a, nil
}

// engine builds the engine of cfg over the app's KG with client: its
// budgets, the embeddings client when one is configured, and the planner
// mode (planner.mode).
func (a *app) engine(cfg config.Config, client *llm.Client) (*engine.Engine, error) {
	eopts := []engine.Option{engine.WithNeighborLimit(cfg.KG.NeighborLimit)}
	if dir := cfg.KG.Schema; dir != "" {
		if a.schema == nil {
			s, err := kg.LoadSchema(dir)
			if err != nil {
				return nil, fmt.Errorf("kg.schema: %w", err)
			}
			a.schema = s
		}
		eopts = append(eopts, engine.WithSchema(a.schema))
	}
	var embedder llm.Embedder
	if cfg.LLM.Embeddings.BaseURL != "" {
		em, err := llm.NewEmbeddings(cfg.LLM.Embeddings, a.lopt...)
		if err != nil {
			return nil, fmt.Errorf("open embeddings client: %w", err)
		}
		embedder = em
		eopts = append(eopts, engine.WithEmbedder(em))
	}
	if cfg.Engine.RelationPrior != "" {
		p, err := relprior.Load(cfg.Engine.RelationPrior)
		if err != nil {
			return nil, fmt.Errorf("engine.relation_prior: %w", err)
		}
		eopts = append(eopts, engine.WithRelationPrior(p))
	}
	var set *prompts.Set
	if cfg.Prompts.Dir != "" {
		var err error
		if set, err = prompts.Load(cfg.Prompts.Dir); err != nil {
			return nil, fmt.Errorf("prompts.dir: %w", err)
		}
		eopts = append(eopts, engine.WithPrompts(set))
	}
	eopts = append(eopts, lqt.FromConfig(cfg.Planner, client, embedder, set))
	return engine.New(a.Graph, client, cfg.Engine, eopts...)
}

// engineFor builds another engine over the app's KG and budgets, whose
// models are the endpoints of models (the oracle bench points each run at
// a fresh oracle), with a model client built like the app's own. close
// releases that client.
func (a *app) engineFor(_ context.Context, models config.LLM) (eng *engine.Engine, release func() error, err error) {
	client, err := llm.New(models, a.lopt...)
	if err != nil {
		return nil, nil, fmt.Errorf("open model client: %w", err)
	}
	cfg := a.Config
	cfg.LLM = models
	if eng, err = a.engine(cfg, client); err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	return eng, client.Close, nil
}

// Close releases the KG, the model client and the shared cache.
func (a *app) Close() error {
	var err error
	if a.LLM != nil {
		err = errors.Join(err, a.LLM.Close())
	}
	if a.Graph != nil {
		err = errors.Join(err, a.Graph.Close())
	}
	if a.Shared != nil {
		err = errors.Join(err, a.Shared.Close())
	}
	return err
}

// shareCalls shares the recorded model calls of c through the app's shared
// cache (when cache.backend is redis), so eval workers and server replicas
// reuse each other's calls. The one Redis connection serves both caches.
func (a *app) shareCalls(c *llmcache.Cache) {
	if c != nil && a.Shared != nil {
		c.Share(a.Shared.Namespace("llm:"))
	}
}

// openShared connects to the shared cache cfg.Cache names (nil without
// one) and returns the KG cache options that put it behind the LRU, its
// keys tagged with the KG's snapshot.
func openShared(ctx context.Context, cfg config.Config) (*sharedcache.Redis, []kg.CacheOption, error) {
	if cfg.Cache.Backend != "redis" {
		return nil, nil, nil
	}
	tag, err := sharedcache.SnapshotTag(cfg, "")
	if err != nil {
		return nil, nil, fmt.Errorf("open shared cache: %w", err)
	}
	r, err := sharedcache.Open(ctx, cfg.Cache, "")
	if err != nil {
		return nil, nil, fmt.Errorf("open shared cache: %w", err)
	}
	return r, []kg.CacheOption{kg.WithShared(r.Namespace("kg:"), tag)}, nil
}

// preflight checks, before a run writes anything, that a reasoner is
// configured and that every configured endpoint answers: each model
// endpoint GET /models (llm.Client.Ping), the KG one name lookup.
func (a *app) preflight(ctx context.Context) error {
	if !a.LLM.Has(kgqa.Reasoner) {
		return errNoReasoner
	}
	for _, role := range []kgqa.Role{kgqa.Planner, kgqa.Reasoner} {
		if !a.LLM.Has(role) {
			continue
		}
		if err := a.LLM.Ping(ctx, role); err != nil {
			return err
		}
	}
	return kg.Ping(ctx, a.Graph)
}
