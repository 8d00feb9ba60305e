package kg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa"
)

// linkedPerQuery is the number of candidates one Linked query asks about
// (each is three UNION branches).
const linkedPerQuery = 25

// Count implements Graph.
func (s *store) Count(ctx context.Context, id string, rel kgqa.Relation) (int, error) {
	if err := s.d.checkEntity(id); err != nil {
		return 0, err
	}
	if err := s.d.checkRelation(rel); err != nil {
		return 0, err
	}
	q, err := s.d.countQuery(id, rel)
	if err != nil {
		return 0, err
	}
	t, err := s.run(ctx, kindCount, id, q)
	if err != nil {
		return 0, fmt.Errorf("kg: count of %s via %s: %w", id, rel.ID, err)
	}
	if len(t.Rows) == 0 {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(t.Rows[0]["n"].Value))
	if err != nil {
		return 0, fmt.Errorf("kg: count of %s via %s: %w: count %q is not an integer", id, rel.ID, ErrBadResponse, t.Rows[0]["n"].Value)
	}
	return n, nil
}

// Linked implements Graph. On a dialect with mediator nodes it asks about
// the candidates only: a direct edge along rel, or an edge of a nameless
// mediator that rel reaches, whose relation is not noise (the facts
// Neighbors would give). Other dialects read rel's neighbours and keep the
// candidates among them.
func (s *store) Linked(ctx context.Context, id string, rel kgqa.Relation, candidates []string) ([]string, error) {
	if err := s.d.checkEntity(id); err != nil {
		return nil, err
	}
	if err := s.d.checkRelation(rel); err != nil {
		return nil, err
	}
	for _, c := range candidates {
		if err := s.d.checkEntity(c); err != nil {
			return nil, err
		}
	}
	if len(candidates) == 0 {
		return []string{}, nil
	}
	found := map[string]bool{}
	if s.d.v.expansion != expandMediator {
		facts, err := s.Neighbors(ctx, id, rel, s.neighborLimit)
		if err != nil {
			return nil, err
		}
		for _, f := range facts {
			found[f.Tail.ID] = true
		}
		return keepFound(candidates, found), nil
	}
	viaMediator := map[string][]string{} // mediator -> candidates it reaches
	for chunk := range slices.Chunk(candidates, linkedPerQuery) {
		q, err := s.d.linkedQuery(id, rel, chunk)
		if err != nil {
			return nil, err
		}
		t, err := s.run(ctx, kindLinked, id, q)
		if err != nil {
			return nil, fmt.Errorf("kg: linked from %s via %s: %w", id, rel.ID, err)
		}
		for _, row := range t.Rows {
			c := s.d.localID(row["t"].Value)
			if c == id {
				continue
			}
			m, ok := row["m"]
			if !ok || m.Value == "" {
				found[c] = true
				continue
			}
			r, ok := s.d.relationID(row["r"].Value)
			med := s.d.localID(m.Value)
			if !ok || s.d.Noise(r) || !s.d.ValidEntity(med) {
				continue
			}
			viaMediator[med] = append(viaMediator[med], c)
		}
	}
	// A node with a name is an entity, not a mediator: Neighbors stops
	// there, and so does Linked.
	var meds []string
	for m := range viaMediator {
		meds = append(meds, m)
	}
	slices.Sort(meds)
	named := map[string]bool{}
	for chunk := range slices.Chunk(meds, mediatorsPerCall) {
		q, err := s.d.namesQuery(chunk)
		if err != nil {
			return nil, err
		}
		t, err := s.run(ctx, kindNames, "", q)
		if err != nil {
			return nil, fmt.Errorf("kg: linked from %s via %s: names: %w", id, rel.ID, err)
		}
		for _, row := range t.Rows {
			named[s.d.localID(row["t"].Value)] = true
		}
	}
	for _, m := range meds {
		if !named[m] {
			for _, c := range viaMediator[m] {
				found[c] = true
			}
		}
	}
	return keepFound(candidates, found), nil
}

// keepFound returns the candidates found, in the candidates' order, once
// each.
func keepFound(candidates []string, found map[string]bool) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, c := range candidates {
		if found[c] && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// countQuery counts the distinct terms one hop from id along rel.
func (d *dialect) countQuery(id string, rel kgqa.Relation) (string, error) {
	a, err := d.hopArgs(0, id, rel)
	if err != nil {
		return "", err
	}
	return render(byDir(rel, tagCountOut, tagCountIn), a)
}

// linkedQuery asks which of the candidates rel reaches from id, directly
// or through a node (the store checks that the node is a mediator).
func (d *dialect) linkedQuery(id string, rel kgqa.Relation, candidates []string) (string, error) {
	a, err := d.hopArgs(maxExpansionRows, id, rel)
	if err != nil {
		return "", err
	}
	if a.Subjects, err = d.entityRefs(candidates); err != nil {
		return "", err
	}
	return render(byDir(rel, tagLinkedOut, tagLinkedIn), a)
}
