package kg

import (
	"context"
	"fmt"
	"slices"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// relationsPerQuery is the number of entities one batched relations
// listing asks about (two UNION branches each); maxBatchRows caps its
// rows, at the result cap of a stock Virtuoso (ResultSetMaxRows), so
// that a listing the server cut shows as one that reached its limit.
const (
	relationsPerQuery = 25
	maxBatchRows      = 10_000
	// neighborsPerQuery is the number of heads one batched neighbour
	// query asks about.
	neighborsPerQuery = 50
)

// Batcher is a Graph that answers a primitive for several entities in
// fewer queries than one per entity. Its results are exactly those of the
// one-entity calls.
type Batcher interface {
	// RelationsOf returns Relations(ctx, id) for every id of ids.
	RelationsOf(ctx context.Context, ids []string) (map[string][]kgqa.Relation, error)
	// NeighborsOf returns Neighbors(ctx, id, rel, limit) for every id of
	// ids.
	NeighborsOf(ctx context.Context, ids []string, rel kgqa.Relation, limit int) (map[string][]kgqa.Fact, error)
}

// RelationsOf returns g.Relations(ctx, id) for every id of ids: in batched
// queries when g is a Batcher, else one call per entity.
func RelationsOf(ctx context.Context, g Graph, ids []string) (map[string][]kgqa.Relation, error) {
	if b, ok := g.(Batcher); ok {
		return b.RelationsOf(ctx, ids)
	}
	return eachEntity(ctx, ids, make(map[string][]kgqa.Relation, len(ids)), g.Relations)
}

// NeighborsOf returns g.Neighbors(ctx, id, rel, limit) for every id of
// ids: in batched queries when g is a Batcher, else one call per entity.
func NeighborsOf(ctx context.Context, g Graph, ids []string, rel kgqa.Relation, limit int) (map[string][]kgqa.Fact, error) {
	if b, ok := g.(Batcher); ok {
		return b.NeighborsOf(ctx, ids, rel, limit)
	}
	return eachEntity(ctx, ids, make(map[string][]kgqa.Fact, len(ids)), func(ctx context.Context, id string) ([]kgqa.Fact, error) {
		return g.Neighbors(ctx, id, rel, limit)
	})
}

// eachEntity adds one(ctx, id) to out for every id of ids, one call at a
// time: the one-entity path of the batched reads.
func eachEntity[T any](ctx context.Context, ids []string, out map[string][]T, one func(context.Context, string) ([]T, error)) (map[string][]T, error) {
	for _, id := range ids {
		v, err := one(ctx, id)
		if err != nil {
			return nil, err
		}
		out[id] = v
	}
	return out, nil
}

var _ Batcher = (*store)(nil)

// RelationsOf implements Batcher. On Freebase it lists up to
// relationsPerQuery entities per query. An entity that reaches the
// one-entity listing's row cap, and every entity of a query that reaches
// its own cap (batchLimit: a query with two hubs does), is listed again
// on its own, so that each list is what Relations gives. Other dialects
// list one entity per query.
func (s *store) RelationsOf(ctx context.Context, ids []string) (map[string][]kgqa.Relation, error) {
	for _, id := range ids {
		if err := s.d.checkEntity(id); err != nil {
			return nil, err
		}
	}
	ids = uniq(ids)
	out := make(map[string][]kgqa.Relation, len(ids))
	var single []string
	if s.d.v.expansion != expandMediator {
		single = ids
		ids = nil
	}
	for chunk := range slices.Chunk(ids, relationsPerQuery) {
		if len(chunk) == 1 {
			single = append(single, chunk...)
			continue
		}
		q, err := s.relationsBatch(ctx, chunk)
		if err != nil {
			return nil, err
		}
		t, err := s.run(ctx, kindRelationsBatch, "", q)
		if err != nil {
			return nil, fmt.Errorf("kg: relations of %d entities: %w", len(chunk), err)
		}
		if len(t.Rows) >= batchLimit(len(chunk), s.batchRows) {
			single = append(single, chunk...)
			continue
		}
		rows := make(map[string][]map[string]backend.Node, len(chunk))
		for _, row := range t.Rows {
			id := s.d.localID(row["e"].Value)
			rows[id] = append(rows[id], row)
		}
		for _, id := range chunk {
			if len(rows[id]) >= maxRelationRows {
				single = append(single, id)
				continue
			}
			out[id] = s.relationList(rows[id])
		}
	}
	return eachEntity(ctx, single, out, s.Relations)
}

// relationsBatch is the batched listing of chunk: from the relation index
// when the store has one, else from the entities' facts; both give the
// same rows under the same limit.
func (s *store) relationsBatch(ctx context.Context, chunk []string) (string, error) {
	if s.hasRelIndex(ctx) {
		return s.d.relationsIndexBatchQuery(chunk, s.batchRows)
	}
	return s.d.relationsBatchQuery(chunk, s.batchRows)
}

// batchLimit is the row limit of a batched relations listing of n
// entities, rowCap for the whole batch.
func batchLimit(n, rowCap int) int { return min(maxRelationRows*n, rowCap) }

// uniq returns ids without repeats, in their first order.
func uniq(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

var _ Batcher = (*Cached)(nil)

// RelationsOf implements Batcher: the entities whose listing the cache
// holds (its LRU, then the shared cache) are answered from it, the others
// are listed together behind it and cached one by one, under the keys
// Relations uses.
func (c *Cached) RelationsOf(ctx context.Context, ids []string) (map[string][]kgqa.Relation, error) {
	got, err := cachedBatch(ctx, c, "relations", ids, func(id string) string { return key("rel", id) },
		func(ctx context.Context, missing []string) (map[string][]kgqa.Relation, error) {
			return RelationsOf(ctx, c.g, missing)
		})
	if err != nil {
		return nil, err
	}
	for id, rs := range got {
		got[id] = slices.Clone(rs)
	}
	return got, nil
}
