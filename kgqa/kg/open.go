package kg

import (
	"context"
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// OpenBackend opens the backend cfg selects; adapters.Open is the one that
// knows every shipped backend. Relative paths in cfg are resolved against
// baseDir.
type OpenBackend func(ctx context.Context, cfg config.KG, baseDir string) (backend.Backend, error)

// Open builds the Graph cfg describes: its dialect, on the backend open
// returns, wrapped in the cache when cfg.CacheSize > 0. cfg.FullText turns
// on Virtuoso free-text search for the sparql backend; the embedded backend
// ignores it (goRDFlib has no text index) and keeps the case-insensitive
// scan, which is quick on a graph that fits in memory. Relative paths in cfg
// (files, dir) are resolved against baseDir, normally the directory of the
// config file.
//
// opts configure the cache (WithShared puts a shared cache behind it); with
// opts and kg.cache_size 0 the local LRU holds a single entry.
func Open(ctx context.Context, cfg config.KG, baseDir string, open OpenBackend, opts ...CacheOption) (Graph, error) {
	d, err := NewDialect(cfg)
	if err != nil {
		return nil, err
	}
	b, err := open(ctx, cfg, baseDir)
	if err != nil {
		return nil, err
	}
	s, err := New(d, b, Options{
		NeighborLimit: cfg.NeighborLimit,
		FullText:      cfg.FullText && strings.EqualFold(cfg.Backend, "sparql"),
		ScanBudget:    cfg.ScanBudget,
		RowBudget:     cfg.RowBudget,
		// kg.relation_index: off keeps listings on the facts.
		NoRelationIndex: cfg.RelationIndex == "off",
	})
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	size := cfg.CacheSize
	if size <= 0 {
		if len(opts) == 0 {
			return s, nil
		}
		size = 1
	}
	c, err := NewCached(s, size, opts...)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("kg: open: kg.cache_size: %w", err)
	}
	return c, nil
}
