package kg

import (
	"context"
	"fmt"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
	"golang.org/x/sync/errgroup"
)

// The relation index that `parog kg virtuoso setup` writes (package
// virtuoso, IndexRelations): for every entity e of the data, a node
// <urn:parog:rel:IRI-of-e> linked by <urn:parog:rel-out> to each predicate
// of e's outgoing edges and by <urn:parog:rel-in> to each predicate of its
// incoming ones, and a marker triple written last. A Freebase store that
// finds the marker lists an entity's relations from the index (a short
// run of it per direction) instead of from its facts (every fact is read:
// 108,000 at a hub of the dense world); the listing is the same, since
// the index holds exactly the distinct predicates each scan returns. A
// store without the marker (the embedded store, a protocol server, an
// endpoint whose dataset leaves the index graph out, a Virtuoso set up
// without the index) lists from the facts.
//
// No other query of the package sees an index triple. Every template of
// queries.sparql fixes an entity of the dialect's namespace as subject
// (relations-out, neighbors-*, names, name, mediators, count-out, linked-*,
// wikidata-*) or as object (relations-in, neighbors-in, count-in, the
// incoming branches), or fixes the predicate to the dialect's name
// predicate or one of its relations (search-*, neighbors-*, count-*,
// linked-*): index triples have urn: subjects, urn: predicates, and as
// objects predicate IRIs, which no entity id maps to (a Freebase entity id
// has one dot, a relation id at least two; Wikidata's entities and
// properties have namespaces of their own). Linked's second hop (?m ?r
// <candidate>, <candidate> ?r ?m) starts from an ?m a data edge bound. Only
// a raw Select could see the index: one of (?s ?p ?o) with nothing fixed,
// or one asking for the subjects of a variable bound to a predicate IRI
// (which only schema triples about properties would bind).
const (
	relIndexNodePrefix = "urn:parog:rel:"
	relIndexOut        = "urn:parog:rel-out"
	relIndexIn         = "urn:parog:rel-in"
	relIndexMarker     = "urn:parog:relation-index"
	relIndexCount      = "urn:parog:rel-indexed"
)

// States of a store's relation index, found once (store.relIndex).
const (
	relIndexUnknown int32 = iota
	relIndexPresent
	relIndexAbsent
)

// relIndexNode is the IRI of the relation index node of entity id, which
// must fit the dialect.
func (d *dialect) relIndexNode(id string) (iriRef, error) {
	if err := d.checkEntity(id); err != nil {
		return "", err
	}
	return iriRef("<" + relIndexNodePrefix + d.v.entityNS + id + ">"), nil
}

// relationsIndexQuery lists the distinct predicates (?r) of id's edges in
// direction dir from the relation index, up to maxRelationRows as the scan
// (relationsDirQuery) lists.
func (d *dialect) relationsIndexQuery(id string, dir kgqa.Direction) (string, error) {
	a := d.args(maxRelationRows)
	var err error
	if a.Entity, err = d.relIndexNode(id); err != nil {
		return "", err
	}
	if dir == kgqa.In {
		return render(tagRelIndexIn, a)
	}
	return render(tagRelIndexOut, a)
}

// relationsIndexBatchQuery is relationsBatchQuery read from the relation
// index, with the same rows (?e, ?r, ?dir) and the same row limit.
func (d *dialect) relationsIndexBatchQuery(ids []string, rowCap int) (string, error) {
	if len(ids) == 0 {
		return "", fmt.Errorf("kg: query %s: no subjects", tagRelIndexBatch)
	}
	a := d.args(batchLimit(len(ids), rowCap))
	for _, id := range ids {
		e, err := d.entityRef(id)
		if err != nil {
			return "", err
		}
		n, err := d.relIndexNode(id)
		if err != nil {
			return "", err
		}
		a.Indexed = append(a.Indexed, indexedRef{Entity: e, Node: n})
	}
	return render(tagRelIndexBatch, a)
}

// hasRelIndex reports whether the store lists Freebase relations from a
// relation index. The marker is looked up once per store; a failed lookup
// is not remembered (the listing falls back to the scans this time, and the
// next listing asks again). The lookup is the store's, not a question's, so
// it is not counted in the context's Stats.
func (s *store) hasRelIndex(ctx context.Context) bool {
	if s.d.v.expansion != expandMediator {
		return false
	}
	switch s.relIndex.Load() {
	case relIndexPresent:
		return true
	case relIndexAbsent:
		return false
	}
	q, err := render(tagRelIndexMarker, s.d.args(1))
	if err != nil {
		return false
	}
	t, err := s.exec.Query(ctx, q)
	if err != nil {
		return false
	}
	state := relIndexAbsent
	if len(t.Rows) > 0 {
		state = relIndexPresent
	}
	s.relIndex.CompareAndSwap(relIndexUnknown, state)
	return state == relIndexPresent
}

// relationRows returns the rows (?r, ?dir) of id's Freebase listing: from
// the relation index when the store has one, else from the two scans.
func (s *store) relationRows(ctx context.Context, id string) ([]map[string]backend.Node, error) {
	if s.hasRelIndex(ctx) {
		return s.relationRowsByDir(ctx, id, s.d.relationsIndexQuery)
	}
	return s.relationRowsByDir(ctx, id, s.d.relationsDirQuery)
}

// relationRowsByDir sends the outgoing and the incoming listing of id
// (built by query: from the facts or from the relation index) at once and
// returns their rows as one listing's (?r, ?dir).
func (s *store) relationRowsByDir(ctx context.Context, id string, query func(string, kgqa.Direction) (string, error)) ([]map[string]backend.Node, error) {
	dirs := []kgqa.Direction{kgqa.Out, kgqa.In}
	tables := make([]*backend.Table, len(dirs))
	g, gctx := errgroup.WithContext(ctx)
	for i, dir := range dirs {
		q, err := query(id, dir)
		if err != nil {
			return nil, err
		}
		g.Go(func() error {
			var err error
			tables[i], err = s.run(gctx, kindRelations, id, q)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var rows []map[string]backend.Node
	for i, t := range tables {
		dir := backend.Node{Kind: backend.NodeLiteral, Value: string(dirs[i])}
		for _, row := range t.Rows {
			rows = append(rows, map[string]backend.Node{"r": row["r"], "dir": dir})
		}
	}
	return rows, nil
}
