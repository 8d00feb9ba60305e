package virtuoso

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The relation index: a side graph that says, for every subject s and
// predicate p of the data, "s has outgoing p", and for every object IRI o
// and predicate p, "o has incoming p", so that listing the relations of an
// entity reads one short run of the index instead of every fact of the
// entity (108,000 at a hub of the dense world). Package kg reads it; the
// same IRIs are spelled there (kg/relindex.go), and a test holds both to
// the same text.
//
// An index triple is <RelationIndexNode+e> <RelationIndexOut|In> <p>: its
// subject is a urn: node of its own per entity and its predicate a urn:,
// so no query of package kg sees one. Each of those queries fixes an
// entity of the dialect's namespace as subject or as object, or fixes a
// predicate of the dialect's namespace, and the index has neither an entity
// as subject, nor a relation as predicate; its objects are predicate IRIs,
// which never fit an entity id (a Freebase entity id has one dot, a
// relation at least two; Wikidata's are in other namespaces). Only a raw
// query with a variable subject, predicate and object (?s ?p ?o) over the
// union of all graphs would see it.
const (
	// RelationIndexGraph is the graph Setup writes the index into.
	RelationIndexGraph = "urn:parog:relations"
	// RelationIndexNode prefixes an entity's IRI to name its index node.
	RelationIndexNode = "urn:parog:rel:"
	// RelationIndexOut links an index node to a predicate of the
	// entity's outgoing edges.
	RelationIndexOut = "urn:parog:rel-out"
	// RelationIndexIn links an index node to a predicate of the entity's
	// incoming edges.
	RelationIndexIn = "urn:parog:rel-in"
	// RelationIndexMarker is the subject of the triple, written last,
	// that says the index is complete: (RelationIndexMarker,
	// RelationIndexCount, the number of data triples indexed).
	RelationIndexMarker = "urn:parog:relation-index"
	// RelationIndexCount is the marker's predicate.
	RelationIndexCount = "urn:parog:rel-indexed"
)

// RelationIndex is what IndexRelations did.
type RelationIndex struct {
	// Built is false when the index was already complete for the data.
	Built bool
	// Data is the number of data triples indexed; Out and In the index
	// triples of each direction (0 when not Built), Triples all the
	// index graph's triples, the marker included.
	Data, Out, In, Triples int64
	// Time is the time the step took, checks included.
	Time time.Duration
}

// IndexRelations writes the relation index of graph (the data) into index,
// inside Virtuoso: two INSERT ... SELECT DISTINCT statements, with the
// transaction log off and every row committed on its own (log_enable(2)),
// so that a world of millions of triples does not fill the log, then the
// marker and a checkpoint. It does nothing when index already holds a
// complete index of graph as it is (the marker counts graph's triples); an
// index of other data, or one a killed run left without its marker, is
// cleared and written again.
func (s *Server) IndexRelations(ctx context.Context, graph, index string) (RelationIndex, error) {
	start := time.Now()
	var r RelationIndex
	g, err := sqlText(graph)
	if err != nil {
		return r, err
	}
	x, err := sqlText(index)
	if err != nil {
		return r, err
	}
	if strings.ContainsAny(g+x, "<>\" {}|^`") {
		return r, fmt.Errorf("virtuoso: relation index: graph IRIs %q, %q hold a character an IRI may not", g, x)
	}
	if r.Data, err = s.count(ctx, "COUNT(*)", "GRAPH <"+g+"> { ?s ?p ?o }"); err != nil {
		return r, fmt.Errorf("virtuoso: relation index: %w", err)
	}
	marked, err := s.count(ctx, "MAX(?n)", "GRAPH <"+x+"> { <"+RelationIndexMarker+"> <"+RelationIndexCount+"> ?n }")
	if err != nil {
		return r, fmt.Errorf("virtuoso: relation index: %w", err)
	}
	if marked != r.Data || r.Data == 0 {
		if err := s.writeRelationIndex(ctx, g, x, r.Data); err != nil {
			return r, err
		}
		r.Built = true
		for _, dir := range []struct {
			n    *int64
			pred string
		}{{&r.Out, RelationIndexOut}, {&r.In, RelationIndexIn}} {
			if *dir.n, err = s.count(ctx, "COUNT(*)", "GRAPH <"+x+"> { ?s <"+dir.pred+"> ?o }"); err != nil {
				return r, fmt.Errorf("virtuoso: relation index: %w", err)
			}
		}
		r.Triples = r.Out + r.In + 1 // the graph was cleared: the pairs and the marker
	} else if r.Triples, err = s.count(ctx, "COUNT(*)", "GRAPH <"+x+"> { ?s ?p ?o }"); err != nil {
		return r, fmt.Errorf("virtuoso: relation index: %w", err)
	}
	r.Time = time.Since(start)
	return r, nil
}

// writeRelationIndex clears index and writes graph's index and the marker
// (data, the number of graph's triples) into it. Subjects and objects that
// are blank nodes or literals get no index node: a listing names an
// entity by its IRI.
func (s *Server) writeRelationIndex(ctx context.Context, graph, index string, data int64) error {
	node := func(v string) string { return `IRI(CONCAT("` + RelationIndexNode + `", STR(` + v + `)))` }
	script := "log_enable(2, 1);\n" +
		"SPARQL CLEAR GRAPH <" + index + ">;\n" +
		"SPARQL INSERT { GRAPH <" + index + "> { ?n <" + RelationIndexOut + "> ?p } } WHERE { " +
		"{ SELECT DISTINCT ?s ?p WHERE { GRAPH <" + graph + "> { ?s ?p ?o } FILTER(isIRI(?s) && !isBlank(?s)) } } " +
		"BIND(" + node("?s") + " AS ?n) };\n" +
		"SPARQL INSERT { GRAPH <" + index + "> { ?n <" + RelationIndexIn + "> ?p } } WHERE { " +
		"{ SELECT DISTINCT ?o ?p WHERE { GRAPH <" + graph + "> { ?s ?p ?o } FILTER(isIRI(?o) && !isBlank(?o)) } } " +
		"BIND(" + node("?o") + " AS ?n) };\n" +
		"SPARQL INSERT DATA { GRAPH <" + index + "> { <" + RelationIndexMarker + "> <" + RelationIndexCount + "> " +
		strconv.FormatInt(data, 10) + " } };\n" +
		"checkpoint;\n"
	if _, err := s.ISQL(ctx, script); err != nil {
		return fmt.Errorf("virtuoso: relation index: %w", err)
	}
	return nil
}

// count runs SPARQL SELECT agg WHERE { where } through isql and returns
// the number; an unbound one (MAX of nothing) is 0.
func (s *Server) count(ctx context.Context, agg, where string) (int64, error) {
	const tag = "PAROG-COUNT"
	out, err := s.ISQL(ctx, `SPARQL SELECT ("`+tag+`" AS ?t) (`+agg+` AS ?n) WHERE { `+where+" };\n")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == tag {
			if f[1] == "NULL" {
				return 0, nil
			}
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("count %q: %w", f[1], err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("no count in %q", out)
}
