package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/server"
)

// runServe loads the configuration, logs it (secrets masked), opens the
// app and serves until ctx is done (SIGINT, SIGTERM), then drains in-flight
// requests for server.shutdown_grace.
func runServe(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "serve", "--config FILE [--addr HOST:PORT] [--files DIR] [--llm-cache DIR | --llm-replay DIR] [--set key=value ...]")
	cf := addConfigFlags(fs)
	cf.addTraceFlags(fs)
	cacheFlags := addLLMCacheFlags(fs)
	addr := fs.String("addr", "", "listen address `HOST:PORT` (overrides server.addr, default 127.0.0.1:8080; port 0 picks a free port)")
	files := fs.String("files", "", "directory of saved traces and results files the trace viewer (at /) may open by path")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected arguments %q", fs.Args())
	}
	if *files != "" {
		// Checked now, not when the viewer first opens a file.
		if fi, err := os.Stat(*files); err != nil {
			return usageError("--files %s: %v", *files, errors.Unwrap(err))
		} else if !fi.IsDir() {
			return usageError("--files %s: not a directory", *files)
		}
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	if *addr != "" {
		cfg.Server.Addr = *addr
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: logLevel(env)}))
	logSettings(log, &cfg)
	if err := server.CheckConfig(cfg.Server, env.Getenv); err != nil {
		return err
	}
	var demo server.Demo
	if wantsDemoModel(cfg) {
		dm, err := startDemoModel(ctx, env)
		if err != nil {
			return err
		}
		defer dm.Close()
		cfg.LLM.Reasoner = dm.Endpoint
		demo = server.Demo{Label: demoModelLabel, Questions: dm.Questions}
		log.Warn("no language model configured: "+demoModelLabel+" (a model config replaces it, e.g. --config configs/llm-ollama.yaml)",
			"questions", len(dm.Questions))
	}
	cache, err := cacheFlags.open()
	if err != nil {
		return err
	}
	defer func() { _ = closeCache(cache, env.Stderr) }()
	a, err := openApp(ctx, cfg, env, withLLM(cacheOptions(cache)...))
	if err != nil {
		return err
	}
	defer a.Close()
	defer setGCPercent(log, cfg.Server.GCPercent, env.Getenv)()
	a.shareCalls(cache)
	srv, err := server.New(cfg.Server, a.Graph,
		server.WithEngine(a.Engine), server.WithLLMConfig(cfg.LLM), server.WithCapabilities(a.LLM.Capabilities),
		server.WithPinger(a.LLM),
		server.WithLogger(log), server.WithMetrics(a.Metrics), server.WithGetenv(env.Getenv),
		server.WithFiles(*files), server.WithDemo(demo))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Server.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Server.Addr, err)
	}
	if !a.LLM.Has(kgqa.Reasoner) {
		log.Warn("no language model configured: /v1/ask answers 503 until llm.reasoner.base_url and llm.reasoner.model are set")
	}
	log.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(), "viewer", "http://"+ln.Addr().String()+"/")
	return srv.Serve(ctx, ln)
}

// logSettings logs the configuration in a few short lines (the KG, the
// models); every setting, secrets masked, goes to the debug level
// (PAROG_LOG_LEVEL=debug) and to parog config.
func logSettings(log *slog.Logger, cfg *config.Config) {
	settings := config.Settings(cfg)
	attrs := make([]any, 0, len(settings))
	for _, s := range settings {
		attrs = append(attrs, slog.String(s.Key, s.Value))
	}
	log.Debug("configuration", slog.Group("config", attrs...))
	k := cfg.KG
	if k.Backend == "sparql" {
		log.Info("knowledge graph", "backend", k.Backend, "dialect", k.Dialect, "endpoint", k.Endpoint)
	} else {
		log.Info("knowledge graph", "backend", k.Backend, "dialect", k.Dialect, "files", strings.Join(k.Files, ","), "dir", k.Dir)
	}
	for _, r := range []struct {
		role string
		ep   config.Endpoint
	}{{"reasoner", cfg.LLM.Reasoner}, {"planner", cfg.LLM.Planner}} {
		if r.ep.BaseURL != "" {
			log.Info("model", "role", r.role, "model", r.ep.Model, "host", hostOf(r.ep.BaseURL))
		}
	}
}

// hostOf is the host of a base URL, without the path or any credentials.
func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return "(bad URL)"
}

// logLevel is PAROG_LOG_LEVEL (debug, info, warn, error; default info).
func logLevel(env *Env) slog.Level {
	var l slog.Level
	if v, ok := env.Getenv("PAROG_LOG_LEVEL"); ok && l.UnmarshalText([]byte(v)) == nil {
		return l
	}
	return slog.LevelInfo
}

// gcHeadroom is the heap growth between collections that server.gc_percent
// 0 aims at.
const gcHeadroom = 256 << 20

// autoGCPercent is the collection target that gives a live heap of live
// bytes about gcHeadroom of growth, from Go's default 100 to 400.
func autoGCPercent(live uint64) int {
	if live == 0 {
		return 400
	}
	return int(min(max(gcHeadroom*100/live, 100), 400))
}

// liveHeap is the live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// setGCPercent applies server.gc_percent (0: autoGCPercent of the live
// heap now), unless the environment sets GOGC (the runtime read it
// already, and an operator who sets it means it); it returns the function
// that restores the previous target, for a serve run inside a longer-lived
// process (tests).
func setGCPercent(log *slog.Logger, percent int, getenv func(string) (string, bool)) func() {
	if v, ok := getenv("GOGC"); ok {
		log.Info("GOGC set in the environment: server.gc_percent not applied", "GOGC", v, "server.gc_percent", percent)
		return func() {}
	}
	oldLimit := debug.SetMemoryLimit(-1)
	if percent == 0 {
		live := liveHeap()
		percent = autoGCPercent(live)
		// A target of 400 lets a heap that grows in bursts (answers held
		// for slow readers) reach five times what is live before the next
		// collection; a soft limit of the live heap and twice the
		// headroom makes the collector work harder before that. An
		// operator's GOMEMLIMIT wins.
		if _, ok := getenv("GOMEMLIMIT"); !ok {
			limit := int64(live) + 2*gcHeadroom
			debug.SetMemoryLimit(limit)
			log.Info("garbage collection target", "server.gc_percent", percent, "live_heap_MB", live>>20, "memory_limit_MB", limit>>20)
		} else {
			log.Info("garbage collection target", "server.gc_percent", percent, "live_heap_MB", live>>20)
		}
	}
	old := debug.SetGCPercent(percent)
	return func() {
		debug.SetGCPercent(old)
		debug.SetMemoryLimit(oldLimit)
	}
}
