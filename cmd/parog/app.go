package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmcache"
	"github.com/parog/parog-go/kgqa/lqt"
	"github.com/parog/parog-go/kgqa/server"
	"github.com/parog/parog-go/kgqa/sharedcache"
)

// app is the wired program: the KG, the model client, the engine and the
// metrics they report to. serve uses it; ask and eval may.
type app struct {
	// Config is the configuration the app was built from.
	Config config.Config
	// Graph is the KG backend (with its cache).
	Graph kg.Graph
	// LLM is the model client of every configured role; a role with no
	// base_url stays unconfigured.
	LLM *llm.Client
	// Engine answers questions over Graph with LLM.
	Engine *kgqa.Engine
	// Metrics receive every LLM call (and the server's own metrics).
	Metrics *server.Metrics
	// Shared is the cache shared with other processes (nil without one).
	Shared *sharedcache.Redis
}

// errNoReasoner is what every command that answers questions says when no
// reasoner model is configured.
var errNoReasoner = errors.New("no reasoner model is configured: set llm.reasoner.base_url and llm.reasoner.model (or PAROG_LLM_REASONER_BASE_URL and PAROG_LLM_REASONER_MODEL)")

// openApp builds the app from cfg: kg.Open (relative paths against
// baseDir, the config file's directory), llm.New (API keys read through
// env.Getenv, calls observed by the metrics) and kgqa.New. It is the one
// place the program wires these; serve, ask and eval use it. Extra llm
// options come last, so callers can override the defaults.
func openApp(ctx context.Context, cfg config.Config, baseDir string, env *Env, opts ...llm.Option) (*app, error) {
	shared, kopts, err := openShared(ctx, cfg, baseDir)
	if err != nil {
		return nil, err
	}
	g, err := kg.Open(ctx, cfg.KG, baseDir, adapters.Open, kopts...)
	if err != nil {
		closeShared(shared)
		return nil, fmt.Errorf("open knowledge graph: %w", err)
	}
	m := server.NewMetrics()
	lopts := append([]llm.Option{
		llm.WithGetenv(env.Getenv), llm.WithObserver(m.ObserveLLM),
		llm.WithLogger(slog.New(slog.NewTextHandler(env.Stderr, nil))),
	}, opts...)
	client, err := llm.New(cfg.LLM, lopts...)
	if err != nil {
		_ = g.Close()
		closeShared(shared)
		return nil, fmt.Errorf("open model client: %w", err)
	}
	eopts := []kgqa.Option{kgqa.WithNeighborLimit(cfg.KG.NeighborLimit)}
	if cfg.LLM.Embeddings.BaseURL != "" {
		em, err := llm.NewEmbeddings(cfg.LLM.Embeddings, lopts...)
		if err != nil {
			_ = client.Close()
			_ = g.Close()
			closeShared(shared)
			return nil, fmt.Errorf("open embeddings client: %w", err)
		}
		eopts = append(eopts, kgqa.WithEmbedder(em))
	}
	return &app{
		Config: cfg, Graph: g, LLM: client, Metrics: m, Shared: shared,
		Engine: kgqa.New(g, client, cfg.Engine, append(eopts, lqt.FromConfig(cfg.Planner, client, env.Getenv))...),
	}, nil
}

// Close releases the KG, the model client and the shared cache.
func (a *app) Close() error {
	err := errors.Join(a.LLM.Close(), a.Graph.Close())
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
func openShared(ctx context.Context, cfg config.Config, baseDir string) (*sharedcache.Redis, []kg.CacheOption, error) {
	if cfg.Cache.Backend != "redis" {
		return nil, nil, nil
	}
	tag, err := sharedcache.SnapshotTag(cfg, baseDir)
	if err != nil {
		return nil, nil, fmt.Errorf("open shared cache: %w", err)
	}
	r, err := sharedcache.Open(ctx, cfg.Cache, "")
	if err != nil {
		return nil, nil, fmt.Errorf("open shared cache: %w", err)
	}
	return r, []kg.CacheOption{kg.WithShared(r.Namespace("kg:"), tag)}, nil
}

func closeShared(r *sharedcache.Redis) {
	if r != nil {
		_ = r.Close()
	}
}

// preflight checks, before a run writes anything, that a reasoner is
// configured and that every configured endpoint answers: each model
// endpoint GET /models (llm.Client.Ping), the KG one name lookup.
func (a *app) preflight(ctx context.Context) error {
	if !a.LLM.Has(llm.Reasoner) {
		return errNoReasoner
	}
	for _, role := range []llm.Role{llm.Planner, llm.Reasoner} {
		if !a.LLM.Has(role) {
			continue
		}
		if err := a.LLM.Ping(ctx, role); err != nil {
			return err
		}
	}
	return kg.Ping(ctx, a.Graph)
}
