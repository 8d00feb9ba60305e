package kg

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// NeighborsOf implements Batcher. On Freebase it reads the tails along rel
// of up to neighborsPerQuery heads per query, and the names of all their
// entity tails together; mediators are expanded head by head, as
// Neighbors does. A head with more tails than limit (whose facts
// Neighbors reads in growing windows), and every head of a query that
// reached maxBatchRows, is read again on its own by Neighbors, so that
// each head's facts are what Neighbors gives. Other dialects read one
// head per call.
func (s *store) NeighborsOf(ctx context.Context, ids []string, rel kgqa.Relation, limit int) (map[string][]kgqa.Fact, error) {
	for _, id := range ids {
		if err := s.d.checkEntity(id); err != nil {
			return nil, err
		}
	}
	if err := s.d.checkRelation(rel); err != nil {
		return nil, err
	}
	ids = uniq(ids)
	limit = clampLimit(limit, s.neighborLimit)
	out := make(map[string][]kgqa.Fact, len(ids))
	var single []string
	if s.d.v.expansion != expandMediator {
		single, ids = ids, nil
	}
	for chunk := range slices.Chunk(ids, neighborsPerQuery) {
		if len(chunk) == 1 {
			single = append(single, chunk...)
			continue
		}
		rest, err := s.neighborsChunk(ctx, chunk, rel, limit, out)
		if err != nil {
			return nil, err
		}
		single = append(single, rest...)
	}
	return eachEntity(ctx, single, out, func(ctx context.Context, id string) ([]kgqa.Fact, error) {
		return s.Neighbors(ctx, id, rel, limit)
	})
}

// neighborsChunk reads the facts along rel of the heads of chunk into out
// and returns the heads it could not read whole (see NeighborsOf).
func (s *store) neighborsChunk(ctx context.Context, chunk []string, rel kgqa.Relation, limit int, out map[string][]kgqa.Fact) ([]string, error) {
	q, err := s.d.neighborsBatchQuery(chunk, rel, s.batchRows)
	if err != nil {
		return nil, err
	}
	t, err := s.run(ctx, kindNeighborsBatch, "", q)
	if err != nil {
		return nil, fmt.Errorf("kg: neighbors of %d entities via %s: %w", len(chunk), rel.ID, err)
	}
	if len(t.Rows) >= s.batchRows {
		return chunk, nil
	}
	rows := make(map[string][]map[string]backend.Node, len(chunk))
	for _, row := range t.Rows {
		h := s.d.localID(row["h"].Value)
		rows[h] = append(rows[h], row)
	}
	var rest, heads []string
	var all []kgqa.Fact
	var ends []int
	for _, id := range chunk {
		if len(rows[id]) > limit {
			rest = append(rest, id)
			continue
		}
		all = append(all, s.oneHop(id, rel, rows[id])...)
		heads, ends = append(heads, id), append(ends, len(all))
	}
	if err := s.fillNames(ctx, all); err != nil {
		return nil, fmt.Errorf("kg: neighbors of %d entities via %s: %w", len(chunk), rel.ID, err)
	}
	start := 0
	for i, id := range heads {
		var own []kgqa.Fact // nil when empty, as Neighbors gives it
		if ends[i] > start {
			own = slices.Clone(all[start:ends[i]])
		}
		fs, err := s.expandTails(ctx, id, rel, own)
		if err != nil {
			return nil, err
		}
		start = ends[i]
		sortFacts(fs)
		out[id] = fs[:min(limit, len(fs))]
	}
	return rest, nil
}

// NeighborsOf implements Batcher: the heads whose facts the cache holds
// are answered from it, the others read together behind it and cached one
// by one, under the keys Neighbors uses.
func (c *Cached) NeighborsOf(ctx context.Context, ids []string, rel kgqa.Relation, limit int) (map[string][]kgqa.Fact, error) {
	keyOf := func(id string) string { return key("nb", id, rel.ID, string(rel.Dir), strconv.Itoa(limit)) }
	got, err := cachedBatch(ctx, c, "neighbors", ids, keyOf, func(ctx context.Context, missing []string) (map[string][]kgqa.Fact, error) {
		return NeighborsOf(ctx, c.g, missing, rel, limit)
	})
	if err != nil {
		return nil, err
	}
	for id, fs := range got {
		got[id] = slices.Clone(fs)
	}
	return got, nil
}

// cachedBatch answers each id of ids from the cache (the LRU, then the
// shared cache) under keyOf(id), and the others by one call of fetch,
// whose results it caches one by one. Lookups count under primitive.
func cachedBatch[T any](ctx context.Context, c *Cached, primitive string, ids []string, keyOf func(string) string, fetch func(context.Context, []string) (map[string]T, error)) (map[string]T, error) {
	stats := StatsFrom(ctx)
	out := make(map[string]T, len(ids))
	var missing []string
	for _, id := range uniq(ids) {
		k := keyOf(id)
		if v, ok := c.lru.Get(k); ok {
			c.hits.Add(1)
			stats.addLookup(primitive, true)
			out[id] = v.(T)
			continue
		}
		if c.shared != nil {
			if v, ok := sharedGet[T](ctx, c.shared, k); ok {
				c.lru.Add(k, v)
				c.hits.Add(1)
				stats.addLookup(primitive, true)
				out[id] = v
				continue
			}
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return out, nil
	}
	got, err := fetch(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, id := range missing {
		v := got[id]
		k := keyOf(id)
		c.lru.Add(k, v)
		if c.shared != nil {
			sharedSet(ctx, c.shared, k, v)
		}
		c.misses.Add(1)
		stats.addLookup(primitive, false)
		out[id] = v
	}
	return out, nil
}
