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

// RelationIndexProgress is the subject of the triples that say, while
// the index is being written, which data it is of and which predicates are
// done: (RelationIndexProgress, RelationIndexBegun, the number of data
// triples) and one (RelationIndexProgress, RelationIndexDone, predicate)
// per predicate indexed. They are deleted before the marker is written.
const (
	RelationIndexProgress = "urn:parog:relation-index-progress"
	// RelationIndexBegun is the predicate of the progress triple naming
	// the number of data triples the index being written is of.
	RelationIndexBegun = "urn:parog:rel-indexing"
	// RelationIndexDone is the predicate of the progress triples naming
	// the predicates already indexed.
	RelationIndexDone = "urn:parog:rel-done"
)

// DefaultIndexPart is the number of data triples one part of the
// relation index covers by default: small enough that a part's DISTINCT
// fits the default query memory of a small server, large enough that the
// parts' overhead (an isql process, a checkpoint) stays small.
const DefaultIndexPart = 1_000_000

// RelationIndex is what IndexRelations did.
type RelationIndex struct {
	// Built is false when the index was already complete for the data.
	Built bool
	// Data is the number of data triples indexed; Out and In the index
	// triples of each direction (0 when not Built), Triples all the
	// index graph's triples, the marker included.
	Data, Out, In, Triples int64
	// Predicates is the number of the data's predicates and Parts the
	// parts they were written in (0 when not Built); Resumed is the
	// number of predicates an earlier, stopped run had already indexed.
	Predicates, Parts, Resumed int
	// Time is the time the step took, checks included.
	Time time.Duration
}

// IndexProgress is reported after each part of the relation index.
type IndexProgress struct {
	// Part is the number of parts written so far by this run, of Parts.
	Part, Parts int
	// Triples is the number of data triples indexed so far (earlier runs
	// included), of Data.
	Triples, Data int64
	// Elapsed is the time since the step began.
	Elapsed time.Duration
}

// IndexOptions tune IndexRelationsWith.
type IndexOptions struct {
	// PartTriples is the number of data triples one part covers at most
	// (default DefaultIndexPart); a predicate with more is a part alone.
	PartTriples int64
	// Progress, if set, receives each part's end.
	Progress func(IndexProgress)
}

// IndexRelations is IndexRelationsWith with the default options.
func (s *Server) IndexRelations(ctx context.Context, graph, index string) (RelationIndex, error) {
	return s.IndexRelationsWith(ctx, graph, index, IndexOptions{})
}

// IndexRelationsWith writes the relation index of graph (the data) into
// index, inside Virtuoso, in parts: the data's predicates, grouped in
// IRI order into parts of at most o.PartTriples data triples, each part
// two INSERT ... SELECT DISTINCT statements (one per direction) restricted
// to its predicates, with the transaction log off and every row committed
// on its own (log_enable(2)), so that neither the log nor one query's
// memory grows with the world. After each part, progress triples name its
// predicates done, and a checkpoint makes the part durable. When every
// part is written, the progress triples are deleted, then the marker is
// written and a checkpoint taken.
//
// It does nothing when index already holds a complete index of graph as it
// is (the marker counts graph's triples). A run stopped between parts, or
// in one, resumes: the predicates the progress triples name are skipped
// and the part it was in is written again (inserting a triple the graph
// holds changes nothing). An index of other data, or one without progress
// triples of this data (written by an older setup), is cleared and written
// again.
func (s *Server) IndexRelationsWith(ctx context.Context, graph, index string, o IndexOptions) (RelationIndex, error) {
	start := time.Now()
	var r RelationIndex
	if o.PartTriples <= 0 {
		o.PartTriples = DefaultIndexPart
	}
	g, err := sqlText(graph)
	if err != nil {
		return r, err
	}
	x, err := sqlText(index)
	if err != nil {
		return r, err
	}
	if !iriSafe(g) || !iriSafe(x) {
		return r, fmt.Errorf("virtuoso: relation index: graph IRIs %q, %q hold a character an IRI may not", g, x)
	}
	if r.Data, err = s.count(ctx, "COUNT(*)", "GRAPH <"+g+"> { ?s ?p ?o }"); err != nil {
		return r, fmt.Errorf("virtuoso: relation index: %w", err)
	}
	marked, err := s.count(ctx, "MAX(?n)", "GRAPH <"+x+"> { <"+RelationIndexMarker+"> <"+RelationIndexCount+"> ?n }")
	if err != nil {
		return r, fmt.Errorf("virtuoso: relation index: %w", err)
	}
	if marked == r.Data && r.Data > 0 {
		if r.Triples, err = s.count(ctx, "COUNT(*)", "GRAPH <"+x+"> { ?s ?p ?o }"); err != nil {
			return r, fmt.Errorf("virtuoso: relation index: %w", err)
		}
		r.Time = time.Since(start)
		return r, nil
	}
	if err := s.writeRelationIndex(ctx, g, x, &r, o, start); err != nil {
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
	r.Triples = r.Out + r.In + 1 // the progress triples were deleted: the pairs and the marker
	r.Time = time.Since(start)
	return r, nil
}

// iriSafe reports whether v may stand between < and > in SPARQL and
// inside a double-quoted literal.
func iriSafe(v string) bool {
	return v != "" && !strings.ContainsAny(v, "<>\" {}|^`\\\n\r\t")
}

// predicateCount is one predicate of the data and its number of triples.
type predicateCount struct {
	iri string
	n   int64
}

// writeRelationIndex writes graph's index into index, part by part, as
// IndexRelationsWith says, and the marker last; r gets the predicates,
// parts and resumed predicates. Subjects and objects that are blank nodes
// or literals get no index node: a listing names an entity by its IRI.
func (s *Server) writeRelationIndex(ctx context.Context, graph, index string, r *RelationIndex, o IndexOptions, start time.Time) error {
	fail := func(err error) error { return fmt.Errorf("virtuoso: relation index: %w", err) }
	begun, err := s.count(ctx, "MAX(?n)", "GRAPH <"+index+"> { <"+RelationIndexProgress+"> <"+RelationIndexBegun+"> ?n }")
	if err != nil {
		return fail(err)
	}
	done := map[string]bool{}
	if begun == r.Data {
		rows, err := s.selectRows(ctx, "?p WHERE { GRAPH <"+index+"> { <"+RelationIndexProgress+"> <"+RelationIndexDone+"> ?p } }")
		if err != nil {
			return fail(err)
		}
		for _, row := range rows {
			done[row[0]] = true
		}
	} else {
		script := "log_enable(2, 1);\n" +
			"SPARQL CLEAR GRAPH <" + index + ">;\n" +
			"SPARQL INSERT DATA { GRAPH <" + index + "> { <" + RelationIndexProgress + "> <" + RelationIndexBegun + "> " +
			strconv.FormatInt(r.Data, 10) + " } };\n"
		if _, err := s.ISQL(ctx, script); err != nil {
			return fail(err)
		}
	}
	preds, err := s.predicateCounts(ctx, graph)
	if err != nil {
		return fail(err)
	}
	r.Predicates = len(preds)
	var todo []predicateCount
	p := IndexProgress{Data: r.Data}
	for _, pc := range preds {
		if done[pc.iri] {
			r.Resumed++
			p.Triples += pc.n
			continue
		}
		todo = append(todo, pc)
	}
	parts := splitParts(todo, o.PartTriples)
	r.Parts, p.Parts = len(parts), len(parts)
	for _, part := range parts {
		if _, err := s.ISQL(ctx, indexPartScript(graph, index, part)); err != nil {
			return fail(err)
		}
		p.Part++
		for _, pc := range part {
			p.Triples += pc.n
		}
		p.Elapsed = time.Since(start)
		if o.Progress != nil {
			o.Progress(p)
		}
	}
	script := "log_enable(2, 1);\n" +
		"SPARQL DELETE WHERE { GRAPH <" + index + "> { <" + RelationIndexProgress + "> ?p ?o } };\n" +
		"SPARQL INSERT DATA { GRAPH <" + index + "> { <" + RelationIndexMarker + "> <" + RelationIndexCount + "> " +
		strconv.FormatInt(r.Data, 10) + " } };\n" +
		"checkpoint;\n"
	if _, err := s.ISQL(ctx, script); err != nil {
		return fail(err)
	}
	return nil
}

// predicateCounts lists graph's predicates with their triples, in IRI
// order.
func (s *Server) predicateCounts(ctx context.Context, graph string) ([]predicateCount, error) {
	rows, err := s.selectRows(ctx, "?p (COUNT(*) AS ?n) WHERE { GRAPH <"+graph+"> { ?s ?p ?o } } GROUP BY ?p ORDER BY ?p")
	if err != nil {
		return nil, err
	}
	out := make([]predicateCount, 0, len(rows))
	for _, row := range rows {
		if len(row) != 2 || !iriSafe(row[0]) {
			return nil, fmt.Errorf("predicates: row %q", row)
		}
		n, err := strconv.ParseInt(row[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("predicates: count %q: %w", row[1], err)
		}
		out = append(out, predicateCount{iri: row[0], n: n})
	}
	return out, nil
}

// maxPartPredicates bounds the predicates of one part, and so the length
// of its queries' text.
const maxPartPredicates = 200

// splitParts groups preds, in their order, into parts of at most limit
// triples and maxPartPredicates predicates; a predicate with more than
// limit triples is a part alone.
func splitParts(preds []predicateCount, limit int64) [][]predicateCount {
	var parts [][]predicateCount
	var cur []predicateCount
	var n int64
	for _, pc := range preds {
		if len(cur) > 0 && (n+pc.n > limit || len(cur) == maxPartPredicates) {
			parts = append(parts, cur)
			cur, n = nil, 0
		}
		cur = append(cur, pc)
		n += pc.n
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// indexPartScript is the isql script that writes the index pairs of the
// predicates of part, both directions, then names them done, then takes a
// checkpoint.
func indexPartScript(graph, index string, part []predicateCount) string {
	node := func(v string) string { return `IRI(CONCAT("` + RelationIndexNode + `", STR(` + v + `)))` }
	var values, doneTriples strings.Builder
	for _, pc := range part {
		values.WriteString(" <" + pc.iri + ">")
		doneTriples.WriteString("<" + RelationIndexProgress + "> <" + RelationIndexDone + "> <" + pc.iri + "> . ")
	}
	insert := func(v, pred string) string {
		return "SPARQL INSERT { GRAPH <" + index + "> { ?n <" + pred + "> ?p } } WHERE { " +
			"{ SELECT DISTINCT " + v + " ?p WHERE { VALUES ?p {" + values.String() + " } GRAPH <" + graph + "> { ?s ?p ?o } " +
			"FILTER(isIRI(" + v + ") && !isBlank(" + v + ")) } } BIND(" + node(v) + " AS ?n) };\n"
	}
	return "log_enable(2, 1);\n" +
		insert("?s", RelationIndexOut) +
		insert("?o", RelationIndexIn) +
		"SPARQL INSERT DATA { GRAPH <" + index + "> { " + doneTriples.String() + "} };\n" +
		"checkpoint;\n"
}

// selectRows runs SPARQL SELECT ("tag" AS ?t) rest (the other variables
// and the rest of the query) through isql and returns each row's values
// after the tag, split on white space (so values must hold none: numbers
// and IRIs).
func (s *Server) selectRows(ctx context.Context, rest string) ([][]string, error) {
	const tag = "PAROG-ROW"
	out, err := s.ISQL(ctx, `SPARQL SELECT ("`+tag+`" AS ?t) `+rest+";\n")
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && f[0] == tag {
			rows = append(rows, f[1:])
		}
	}
	return rows, nil
}

// count runs SPARQL SELECT agg WHERE { where } through isql and returns
// the number; an unbound one (MAX of nothing) is 0.
func (s *Server) count(ctx context.Context, agg, where string) (int64, error) {
	rows, err := s.selectRows(ctx, "("+agg+" AS ?n) WHERE { "+where+" }")
	if err != nil {
		return 0, err
	}
	for _, row := range rows {
		if len(row) != 1 {
			continue
		}
		if row[0] == "NULL" {
			return 0, nil
		}
		n, err := strconv.ParseInt(row[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("count %q: %w", row[0], err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("no count in %q", rows)
}
