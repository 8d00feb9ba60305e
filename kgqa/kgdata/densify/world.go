// Package densify builds a Freebase-dense world around a real slice: every
// real triple is kept, and schema-true synthetic facts (typed objects,
// literals of the right datatype, mediator nodes, reverse properties)
// surround the slice's entities with a heavy-tailed fan-out calibrated to
// the real type-instance counts, so that exploration meets the density of
// full Freebase. Synthetic facts never join two real nodes, never touch a
// real mediator, and never give a real entity a relation the slice uses,
// so a gold query exact on the slice keeps its answer.
package densify

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
)

// Options configure Build.
type Options struct {
	// Seed makes the world; the same seed, slice and schema give the
	// same bytes.
	Seed uint64
	// TargetTriples is the world's size, real triples included
	// (default 5,000,000).
	TargetTriples int64
	// ShardTriples is the most lines per output shard (default 1,000,000).
	ShardTriples int64
	// Progress, when set, is called with the triples written so far.
	Progress func(triples int64)
}

// Hub is one of the densest real entities of the world.
type Hub struct {
	ID string `json:"id"`
	// Relations counts the distinct relations at the entity, out and in.
	Relations int `json:"relations"`
	// Facts counts the triples the entity is in (names and types aside).
	Facts int64 `json:"facts"`
}

// Report says what Build wrote.
type Report struct {
	Seed uint64 `json:"seed"`
	// Triples is the world's size; RealTriples of it are the slice's
	// lines, copied unchanged, and the rest synthetic (TypeTriples of
	// them type real entities).
	Triples, RealTriples, TypeTriples int64
	// RealEntities are the slice's named nodes; SyntheticEntities and
	// Mediators the nodes Build made.
	RealEntities, SyntheticEntities, Mediators int64
	// Shards are the files written, in order.
	Shards []string
	// Hubs are the ten real entities with the most facts.
	Hubs []Hub
}

// Build writes the world made from the slice (an N-Triples file, gzip when
// it ends in .gz) and the schema directory into outDir as .nt.gz shards.
func Build(ctx context.Context, slicePath, schemaDir, outDir string, o Options) (*Report, error) {
	if o.TargetTriples <= 0 {
		o.TargetTriples = 5_000_000
	}
	if o.ShardTriples <= 0 {
		o.ShardTriples = 1_000_000
	}
	s, err := LoadSchema(schemaDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("densify: %w", err)
	}
	w := &shardWriter{dir: outDir, perShard: o.ShardTriples, onLine: o.Progress}
	ok := false
	defer func() {
		if !ok {
			w.abort()
		}
	}()
	sl, err := readSlice(slicePath, s, w.line)
	if err != nil {
		return nil, err
	}
	g := newGenerator(s, sl, w, o.Seed)
	rep := &Report{Seed: o.Seed, RealTriples: sl.triples}
	ents := sl.realEntities()
	// Entities with few open properties spend less than their share; 3%
	// more keeps the world at its target.
	budgets := budgetsByDegree(ents, (o.TargetTriples-sl.triples)*103/100)
	var hubs []Hub
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("densify: %w", err)
		}
		h, err := g.densify(e, budgets[e.id])
		if err != nil {
			return nil, err
		}
		hubs = append(hubs, h)
	}
	if err := w.closeShard(); err != nil {
		return nil, err
	}
	ok = true
	sort.Slice(hubs, func(i, j int) bool {
		if hubs[i].Facts != hubs[j].Facts {
			return hubs[i].Facts > hubs[j].Facts
		}
		return hubs[i].ID < hubs[j].ID
	})
	rep.Hubs = hubs[:min(10, len(hubs))]
	rep.Triples, rep.TypeTriples = w.total, g.typeTriples
	rep.RealEntities, rep.SyntheticEntities, rep.Mediators = int64(len(ents)), g.synthetic, g.mediators
	rep.Shards = w.shards
	return rep, nil
}

// budgetsByDegree shares total synthetic triples among the entities by
// the rank of their real degree, as a Zipf law of exponent 0.9: the
// busiest real entity gets the most, as hubs do in Freebase.
func budgetsByDegree(ents []*entity, total int64) map[string]int64 {
	ranked := append([]*entity(nil), ents...)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].degree > ranked[j].degree })
	const exp = 0.9
	var sum float64
	for i := range ranked {
		sum += math.Pow(float64(i+1), -exp)
	}
	out := make(map[string]int64, len(ranked))
	for i, e := range ranked {
		if total > 0 {
			out[e.id] = int64(float64(total) * math.Pow(float64(i+1), -exp) / sum)
		}
	}
	return out
}
