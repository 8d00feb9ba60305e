package kg

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/parog/parog-go/kgqa/config"
)

// Open builds the backend cfg selects (embedded goRDFlib store or SPARQL
// endpoint) with its dialect, wrapped in the cache when cfg.CacheSize > 0.
// cfg.FullText turns on Virtuoso free-text search for the sparql backend;
// the embedded backend ignores it (goRDFlib has no text index) and keeps
// the case-insensitive scan, which is quick on a graph that fits in memory.
// Relative paths in cfg (files, dir) are resolved against baseDir, normally
// the directory of the config file.
func Open(ctx context.Context, cfg config.KG, baseDir string) (Graph, error) {
	d, err := NewDialect(cfg)
	if err != nil {
		return nil, err
	}
	var exec executor
	switch strings.ToLower(cfg.Backend) {
	case "embedded", "":
		if len(cfg.Files) == 0 && cfg.Dir == "" {
			return nil, fmt.Errorf("kg: open: kg.files: the embedded backend needs files to load (or kg.dir holding a store)")
		}
		dir := cfg.Dir
		if dir != "" && !filepath.IsAbs(dir) && baseDir != "" {
			dir = filepath.Join(baseDir, dir)
		}
		exec, err = openEmbedded(ctx, dir, cfg.Files, baseDir, cfg.Timeout)
	case "sparql":
		exec, err = newEndpoint(cfg.Endpoint, endpointOptions{
			timeout: cfg.Timeout, retries: cfg.Retries, maxBytes: cfg.MaxResponseBytes, maxConns: cfg.MaxConns,
		})
	default:
		return nil, fmt.Errorf("kg: open: kg.backend: unknown backend %q (want embedded or sparql)", cfg.Backend)
	}
	if err != nil {
		return nil, err
	}
	s, err := newStore(d, exec, cfg.NeighborLimit)
	if err != nil {
		_ = exec.close()
		return nil, err
	}
	s.fullText = cfg.FullText && strings.EqualFold(cfg.Backend, "sparql")
	if cfg.CacheSize <= 0 {
		return s, nil
	}
	c, err := NewCached(s, cfg.CacheSize)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("kg: open: kg.cache_size: %w", err)
	}
	return c, nil
}
