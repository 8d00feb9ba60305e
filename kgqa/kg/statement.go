package kg

import (
	"context"
	"fmt"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
)

// Wikidata statements as facts.
//
// A property of an item is read from two places: its truthy edges
// (wdt:P, best-rank values only) and its statements (p:P to a statement
// node, ps:P to the value, pq: to the qualifiers, wikibase:rank). Relations
// lists a property and direction once, whichever of the two it comes from.
// Neighbors returns:
//
//   - every truthy edge as a one-hop fact, as before;
//   - every statement that is not deprecated as two-hop facts through its
//     node (the statement id is the fact's Mediator): the value (outgoing)
//     or the subject (incoming, Dir2 In), and each qualifier (Dir2 Out);
//   - except a statement with no qualifier whose value, read from the
//     head, is also a truthy edge's: it says nothing the one-hop fact does
//     not, and would give the same tail twice. A statement with qualifiers
//     repeats its value through the node even when a truthy edge holds it,
//     so that the value and its qualifiers (a date, a role) share a
//     mediator.
//
// Deprecated statements (wikibase:DeprecatedRank) are skipped everywhere:
// Wikidata keeps them as known-wrong values, so reading them as facts would
// answer with what the graph says is false. Normal-rank statements beside a
// preferred one (older populations, former offices) are kept: they are true
// of their qualifiers' time, which is what dated questions ask about.

// relationRow maps a row of relationsQuery (a
// predicate IRI and its ?dir) to a relation, or reports false when the row
// names no relation of the dialect.
func (d *dialect) relationRow(pred, dir string) (kgqa.Relation, bool) {
	var (
		id string
		ok bool
		rd kgqa.Direction
	)
	switch dir {
	case string(kgqa.Out), string(kgqa.In):
		id, ok = d.relationID(pred)
		rd = kgqa.Direction(dir)
	case statementOut:
		id, ok = strings.CutPrefix(pred, WikidataClaimNS)
		rd = kgqa.Out
	case statementIn:
		id, ok = strings.CutPrefix(pred, WikidataStatementNS)
		rd = kgqa.In
	}
	if !ok || !d.ValidRelation(id) || (d.v.expansion != expandQualifier && rd != kgqa.Direction(dir)) {
		return kgqa.Relation{}, false
	}
	return kgqa.Relation{ID: id, Dir: rd}, true
}

// statements reads id's Wikidata statements about rel as facts through
// their nodes (see the top of this file); truthy are the one-hop facts
// along rel already found.
func (s *store) statements(ctx context.Context, id string, rel kgqa.Relation, truthy []kgqa.Fact) ([]kgqa.Fact, error) {
	q, err := s.d.qualifierQuery(id, rel, maxExpansionRows)
	if err != nil {
		return nil, err
	}
	t, err := s.run(ctx, kindStatements, id, q)
	if err != nil {
		return nil, fmt.Errorf("kg: neighbors of %s via %s: statements: %w", id, rel.ID, err)
	}
	var facts []kgqa.Fact
	qualified := make(map[string]bool)
	for _, row := range t.Rows {
		for _, row := range s.statementRows(rel, row) {
			f, ok := s.twoHop(id, rel, row)
			if !ok {
				continue
			}
			if strings.HasPrefix(row["r"].Value, WikidataQualifierNS) {
				qualified[f.Mediator] = true
			}
			facts = append(facts, f)
		}
	}
	onHop := make(map[string]bool, len(truthy))
	for _, f := range truthy {
		onHop[f.Tail.Key()] = true
	}
	kept := facts[:0]
	for _, f := range facts {
		// Unqualified, a statement has one fact: its value or subject.
		if !qualified[f.Mediator] && onHop[f.Tail.Key()] {
			continue
		}
		kept = append(kept, f)
	}
	facts = dedupeTwoHop(kept)
	if err := s.fillNames(ctx, facts); err != nil {
		return nil, fmt.Errorf("kg: neighbors of %s via %s: statements: %w", id, rel.ID, err)
	}
	return facts, nil
}

// statementRows splits a row of an incoming qualifierQuery (a statement ?m, its
// subject ?s, one qualifier or the main value ?r with value ?t) into the
// two edges of the statement node it holds: the subject's claim, which
// points into the node (?s p:P ?m), and the qualifier, which points out of
// it (the main value's is the way back to the head, which twoHop drops).
// Rows of an outgoing qualifierQuery pass unchanged.
func (s *store) statementRows(rel kgqa.Relation, row map[string]backend.Node) []map[string]backend.Node {
	subj, ok := row["s"]
	if !ok {
		return []map[string]backend.Node{row}
	}
	claim := map[string]backend.Node{
		"m": row["m"], "t": subj, "d": {Kind: backend.NodeLiteral, Value: string(kgqa.In)},
		"r": {Kind: backend.NodeIRI, Value: WikidataClaimNS + rel.ID},
	}
	qual := map[string]backend.Node{"m": row["m"], "r": row["r"], "t": row["t"], "d": {Kind: backend.NodeLiteral, Value: string(kgqa.Out)}}
	return []map[string]backend.Node{claim, qual}
}
