package kg

import (
	"context"
	"errors"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The contract suite runs every primitive on the fixture graph
// (testdata/fixture.nt) and checks answers read off that file by hand. Every
// backend must pass it unchanged.

const (
	france    = "m.0f8l9c"
	germany   = "m.0345h"
	nijmegen  = "m.05l5n"
	giants    = "m.0713r"
	ws2014    = "m.0ds8qct"
	unknownID = "m.0zzzzzz"
)

func tailNames(facts []kgqa.Fact) []string {
	var out []string
	for _, f := range facts {
		out = append(out, f.Tail.Name)
	}
	return out
}

// uncached is the graph behind g's cache, if it has one, so that a
// batched call's result is compared with the backend's own answer.
func uncached(g Graph) Graph {
	if c, ok := g.(*Cached); ok {
		return c.Unwrap()
	}
	return g
}

func runContract(t *testing.T, g Graph) {
	ctx := context.Background()
	t.Run("relations both directions without noise", func(t *testing.T) {
		rels, err := g.Relations(ctx, france)
		require.NoError(t, err)
		assert.Equal(t, []kgqa.Relation{
			{ID: "location.location.adjoin_s", Dir: kgqa.Out},
			{ID: "location.location.area", Dir: kgqa.Out},
			{ID: "location.location.contains", Dir: kgqa.Out},
			{ID: "location.statistical_region.population", Dir: kgqa.Out},
			{ID: "location.adjoining_relationship.adjoins", Dir: kgqa.In},
			{ID: "location.location.containedby", Dir: kgqa.In},
		}, rels)
	})
	t.Run("relations of unknown entity are empty", func(t *testing.T) {
		rels, err := g.Relations(ctx, unknownID)
		require.NoError(t, err)
		assert.Empty(t, rels)
	})
	t.Run("relations of several entities in one query", func(t *testing.T) {
		ids := []string{france, germany, nijmegen, unknownID, france}
		var st Stats
		got, err := RelationsOf(WithStats(ctx, &st), g, ids)
		require.NoError(t, err)
		assert.EqualValues(t, 1, st.Queries.Load(), "four entities, one query")
		require.Len(t, got, 4)
		for _, id := range ids {
			one, err := uncached(g).Relations(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, one, got[id], "relations of %s", id)
		}
		assert.Empty(t, got[unknownID])
		_, err = RelationsOf(ctx, g, []string{france, "bad id"})
		require.ErrorIs(t, err, ErrInvalidID)
	})
	t.Run("neighbors of several entities in one query", func(t *testing.T) {
		heads := []string{france, germany, "m.059j2", "m.0154j", unknownID}
		for _, c := range []struct {
			rel   kgqa.Relation
			limit int
		}{
			{kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, 0}, // named tails
			{kgqa.Relation{ID: "location.location.adjoin_s", Dir: kgqa.Out}, 0}, // mediators
			{kgqa.Relation{ID: "location.location.area", Dir: kgqa.Out}, 0},     // literals
			{kgqa.Relation{ID: "location.location.contains", Dir: kgqa.In}, 0},  // incoming
			{kgqa.Relation{ID: "location.location.adjoin_s", Dir: kgqa.Out}, 1}, // heads past the limit
			{kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, 2}, // heads at the limit
		} {
			got, err := NeighborsOf(ctx, g, append(heads, france), c.rel, c.limit)
			require.NoError(t, err)
			require.Len(t, got, len(heads))
			for _, id := range heads {
				one, err := uncached(g).Neighbors(ctx, id, c.rel, c.limit)
				require.NoError(t, err)
				assert.Equal(t, one, got[id], "neighbors of %s via %v, limit %d", id, c.rel, c.limit)
				again, err := g.Neighbors(ctx, id, c.rel, c.limit)
				require.NoError(t, err)
				assert.Equal(t, one, again, "neighbors of %s via %v, limit %d, as cached by the batch", id, c.rel, c.limit)
			}
		}
		_, err := NeighborsOf(ctx, g, []string{france, "bad id"}, kgqa.Relation{ID: "location.location.area", Dir: kgqa.Out}, 0)
		require.ErrorIs(t, err, ErrInvalidID)
	})
	t.Run("neighbors out", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, germany, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, 0)
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"Berlin", "Weeze Airport"}, tailNames(facts))
		for _, f := range facts {
			assert.Equal(t, []string{"location.location.contains"}, f.Path)
			assert.Equal(t, kgqa.Out, f.Dir)
			assert.Equal(t, germany, f.Head.ID)
			assert.Empty(t, f.Mediator)
		}
	})
	t.Run("neighbors in", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, nijmegen, kgqa.Relation{ID: "aviation.airport.serves", Dir: kgqa.In}, 0)
		require.NoError(t, err)
		require.Len(t, facts, 1)
		assert.Equal(t, kgqa.Term{ID: "m.0gn2g3", Name: "Weeze Airport"}, facts[0].Tail)
		assert.Equal(t, kgqa.In, facts[0].Dir)
	})
	t.Run("mediator expanded into one fact", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, france, kgqa.Relation{ID: "location.location.adjoin_s", Dir: kgqa.Out}, 0)
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"Germany", "Spain", "Belgium"}, tailNames(facts))
		for _, f := range facts {
			assert.Equal(t, []string{"location.location.adjoin_s", "location.adjoining_relationship.adjoins"}, f.Path)
			assert.Equal(t, kgqa.Out, f.Dir2)
			assert.Regexp(t, `^m\.0cvt\d{3}$`, f.Mediator)
		}
	})
	// France is the object of adjoins on the border nodes of Germany, Spain
	// and Belgium (lines 36-50 of the fixture); the only other edge of each
	// node is the neighbour's adjoin_s pointing in.
	t.Run("mediator expanded over its incoming edges", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, france, kgqa.Relation{ID: "location.adjoining_relationship.adjoins", Dir: kgqa.In}, 0)
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"Germany", "Spain", "Belgium"}, tailNames(facts))
		want := map[string]string{germany: "m.0cvt002", "m.06mkj": "m.0cvt004", "m.0154j": "m.0cvt006"}
		for _, f := range facts {
			assert.Equal(t, []string{"location.adjoining_relationship.adjoins", "location.location.adjoin_s"}, f.Path)
			assert.Equal(t, kgqa.In, f.Dir)
			assert.Equal(t, kgqa.In, f.Dir2)
			assert.Equal(t, want[f.Tail.ID], f.Mediator, f.Tail.Name)
			assert.Equal(t, france, f.Head.ID)
		}
	})
	t.Run("mediator with literal tails", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, germany, kgqa.Relation{ID: "location.statistical_region.gdp_nominal", Dir: kgqa.Out}, 0)
		require.NoError(t, err)
		require.Len(t, facts, 2)
		assert.Equal(t, "measurement_unit.dated_money_value.amount", facts[0].Path[1])
		assert.Equal(t, "measurement_unit.dated_money_value.valid_date", facts[1].Path[1])
		assert.Equal(t, "http://www.w3.org/2001/XMLSchema#gYear", facts[1].Tail.Datatype)
		assert.Equal(t, "2018", facts[1].Tail.Name)
		for _, f := range facts {
			assert.Equal(t, kgqa.Out, f.Dir2, "the incoming edge from Germany is the one followed")
		}
	})
	t.Run("literal neighbour keeps its datatype", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, ws2014, kgqa.Relation{ID: "time.event.end_date", Dir: kgqa.Out}, 0)
		require.NoError(t, err)
		require.Len(t, facts, 1)
		assert.Equal(t, kgqa.Term{Name: "2014-10-29", Datatype: "http://www.w3.org/2001/XMLSchema#date"}, facts[0].Tail)
	})
	t.Run("neighbors limit", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, giants, kgqa.Relation{ID: "sports.sports_team.championships", Dir: kgqa.Out}, 2)
		require.NoError(t, err)
		assert.Len(t, facts, 2)
	})
	t.Run("neighbors of unknown entity are empty", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, unknownID, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, 0)
		require.NoError(t, err)
		assert.Empty(t, facts)
	})
	t.Run("count of a neighbour list", func(t *testing.T) {
		for _, tc := range []struct {
			id   string
			rel  kgqa.Relation
			want int
		}{
			{germany, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, 2},
			{nijmegen, kgqa.Relation{ID: "aviation.airport.serves", Dir: kgqa.In}, 1},
			{france, kgqa.Relation{ID: "location.location.adjoin_s", Dir: kgqa.Out}, 3}, // three border nodes
			{unknownID, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, 0},
		} {
			n, err := g.Count(ctx, tc.id, tc.rel)
			require.NoError(t, err)
			assert.Equal(t, tc.want, n, "%s %v", tc.id, tc.rel)
		}
		_, err := g.Count(ctx, france, kgqa.Relation{ID: "location.location.contains> ?x", Dir: kgqa.Out})
		assert.ErrorIs(t, err, ErrInvalidID)
	})
	t.Run("linked candidates", func(t *testing.T) {
		const spain, belgium, berlin, weeze = "m.06mkj", "m.0154j", "m.0156q", "m.0gn2g3"
		for _, tc := range []struct {
			name  string
			id    string
			rel   kgqa.Relation
			cands []string
			want  []string
		}{
			{"direct, in the candidates' order", germany, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, []string{weeze, france, berlin}, []string{weeze, berlin}},
			{"direct in", nijmegen, kgqa.Relation{ID: "aviation.airport.serves", Dir: kgqa.In}, []string{berlin, weeze}, []string{weeze}},
			{"through a mediator", france, kgqa.Relation{ID: "location.location.adjoin_s", Dir: kgqa.Out}, []string{nijmegen, spain, germany, belgium}, []string{spain, germany, belgium}},
			{"through a mediator's incoming edge", france, kgqa.Relation{ID: "location.adjoining_relationship.adjoins", Dir: kgqa.In}, []string{germany, berlin}, []string{germany}},
			// Weeze Airport serves Nijmegen, but the airport has a name: it
			// is an entity, not a mediator, and Neighbors stops there.
			{"not through a named entity", germany, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, []string{nijmegen}, []string{}},
			{"none asked", germany, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, nil, []string{}},
			{"unknown anchor", unknownID, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, []string{berlin}, []string{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := g.Linked(ctx, tc.id, tc.rel, tc.cands)
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
			})
		}
		_, err := g.Linked(ctx, germany, kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}, []string{"m.0156q> ?p ?o } #"})
		assert.ErrorIs(t, err, ErrInvalidID)
	})
	t.Run("name in configured language", func(t *testing.T) {
		n, err := g.Name(ctx, france)
		require.NoError(t, err)
		assert.Equal(t, "France", n)
		n, err = g.Name(ctx, unknownID)
		require.NoError(t, err)
		assert.Empty(t, n)
	})
	t.Run("search exact and case-insensitive", func(t *testing.T) {
		for _, q := range []string{"France", "france", "FRANCE"} {
			es, err := g.Search(ctx, q, 5)
			require.NoError(t, err, q)
			assert.Equal(t, []kgqa.Entity{{ID: france, Name: "France"}}, es, q)
		}
		es, err := g.Search(ctx, "Frankreich", 5)
		require.NoError(t, err)
		assert.Empty(t, es, "names in other languages are not matched")
		es, err = g.Search(ctx, `No "such" \ place`, 5)
		require.NoError(t, err)
		assert.Empty(t, es)
	})
	t.Run("raw select", func(t *testing.T) {
		res, err := g.Select(ctx, `PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT ?ws ?d WHERE { ns:m.0713r ns:sports.sports_team.championships ?ws . ?ws ns:time.event.end_date ?d . }
ORDER BY DESC(?d) LIMIT 1`)
		require.NoError(t, err)
		assert.Equal(t, []string{"ws", "d"}, res.Vars)
		require.Len(t, res.Rows, 1)
		assert.Equal(t, ws2014, res.Rows[0]["ws"].ID)
		assert.Equal(t, "2014-10-29", res.Rows[0]["d"].Name)
	})
	t.Run("malformed ids are typed errors", func(t *testing.T) {
		_, err := g.Relations(ctx, "m.0f8l9c> ?p ?o } #")
		var ide *IDError
		require.ErrorAs(t, err, &ide)
		assert.Equal(t, "entity", ide.Kind)
		_, err = g.Neighbors(ctx, france, kgqa.Relation{ID: "location.location.contains> ?x", Dir: kgqa.Out}, 0)
		require.ErrorAs(t, err, &ide)
		assert.Equal(t, "relation", ide.Kind)
		_, err = g.Name(ctx, "Q142")
		assert.True(t, errors.Is(err, ErrInvalidID))
	})
	t.Run("update refused", func(t *testing.T) {
		_, err := g.Select(ctx, `INSERT DATA { <http://x/a> <http://x/b> <http://x/c> }`)
		assert.ErrorIs(t, err, ErrQuery)
	})
}
