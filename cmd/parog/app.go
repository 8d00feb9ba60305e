package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/server"
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
}

// openApp builds the app from cfg: kg.Open, llm.New (API keys read through
// env.Getenv, calls observed by the metrics) and kgqa.New. Extra llm
// options come last, so callers can override the defaults.
func openApp(ctx context.Context, cfg config.Config, env *Env, opts ...llm.Option) (*app, error) {
	g, err := kg.Open(ctx, cfg.KG, "", adapters.Open)
	if err != nil {
		return nil, fmt.Errorf("open knowledge graph: %w", err)
	}
	m := server.NewMetrics()
	lopts := append([]llm.Option{llm.WithGetenv(env.Getenv), llm.WithObserver(m.ObserveLLM)}, opts...)
	client, err := llm.New(cfg.LLM, lopts...)
	if err != nil {
		_ = g.Close()
		return nil, fmt.Errorf("open model client: %w", err)
	}
	return &app{
		Config: cfg, Graph: g, LLM: client, Metrics: m,
		Engine: kgqa.New(g, client, cfg.Engine, kgqa.WithNeighborLimit(cfg.KG.NeighborLimit)),
	}, nil
}

// Close releases the KG and the model client.
func (a *app) Close() error {
	return errors.Join(a.LLM.Close(), a.Graph.Close())
}
