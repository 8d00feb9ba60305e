package kg

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/wikidata.nt holds one person, Alice (Q1), with every kind of
// statement the dialect tells apart:
//
//   - P39 Mayor (Q9): truthy edge and a statement with a start date, plus a
//     deprecated statement Governor (Q13) with a date of its own;
//   - P19 Springfield (Q10): truthy edge and a preferred statement with no
//     qualifier, plus a deprecated statement Shelbyville (Q11);
//   - P27 Freedonia (Q12): a deprecated statement only;
//   - P69 Hill College (Q30): a statement only, with no rank and no
//     qualifier (a partial dump);
//   - P646: a statement of a noise property.
//
// Bob (Q2) is Treasurer (Q8, truthy, preferred) and was Mayor from 2005 (a
// normal-rank statement, no truthy edge); Carol (Q3) was born in
// Springfield (truthy, unqualified statement); Springfield has two dated
// populations, the 2020 one truthy.
const (
	wikidataFixture      = "testdata/wikidata.nt"
	wikidataFixtureGraph = "urn:parog:test-wikidata"
)

var wikidataFixtureLoad struct {
	once sync.Once
	err  error
}

// openWikidataFixture opens testdata/wikidata.nt in the embedded store, or,
// with virt, in the package's Virtuoso.
func openWikidataFixture(t *testing.T, virt bool) Graph {
	t.Helper()
	if !virt {
		cfg := fixtureConfig()
		cfg.Dialect, cfg.Files, cfg.CacheSize = "wikidata", []string{wikidataFixture}, 0
		return openFixture(t, cfg)
	}
	srv := virtuoso(t)
	wikidataFixtureLoad.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		wikidataFixtureLoad.err = srv.Load(ctx, wikidataFixtureGraph, wikidataFixture)
	})
	require.NoError(t, wikidataFixtureLoad.err, "load the Wikidata fixture into Virtuoso")
	cfg := endpointConfig(srv.GraphURL(wikidataFixtureGraph))
	cfg.Dialect, cfg.CacheSize = "wikidata", 0
	return openFixture(t, cfg)
}

// factRow is a fact in one comparable line: path, second direction,
// statement and tail (an entity id with its name, or a literal).
type factRow struct {
	path, dir2, mediator, tail string
}

func factRows(t *testing.T, head string, rel kgqa.Relation, facts []kgqa.Fact) []factRow {
	t.Helper()
	rows := []factRow{}
	for _, f := range facts {
		assert.Equal(t, head, f.Head.ID)
		assert.Equal(t, rel.Dir, f.Dir)
		assert.Equal(t, rel.ID, f.Path[0])
		p := f.Path[0]
		if len(f.Path) > 1 {
			p += "/" + f.Path[1]
		}
		tail := f.Tail.Name
		if f.Tail.ID != "" {
			tail = f.Tail.ID + " " + f.Tail.Name
		}
		rows = append(rows, factRow{p, string(f.Dir2), f.Mediator, tail})
	}
	return rows
}

const (
	date2001 = "2001-01-01T00:00:00Z"
	date2005 = "2005-01-01T00:00:00Z"
)

func TestWikidataStatementContract(t *testing.T) {
	for _, backend := range []string{"embedded", "virtuoso"} {
		t.Run(backend, func(t *testing.T) {
			runWikidataContract(t, openWikidataFixture(t, backend == "virtuoso"))
		})
	}
}

func runWikidataContract(t *testing.T, g Graph) {
	ctx := context.Background()
	t.Run("relations through statements, deduplicated, deprecated left out", func(t *testing.T) {
		cases := map[string][]kgqa.Relation{
			// P27 has a deprecated statement only, P646 is noise.
			"Q1": {{ID: "P19", Dir: kgqa.Out}, {ID: "P39", Dir: kgqa.Out}, {ID: "P69", Dir: kgqa.Out}},
			// wdt: from Alice, ps: from Alice's and Bob's statements: once.
			"Q9":  {{ID: "P39", Dir: kgqa.In}},
			"Q10": {{ID: "P1082", Dir: kgqa.Out}, {ID: "P19", Dir: kgqa.In}},
			// Statement-only, no truthy edge points at the college.
			"Q30": {{ID: "P69", Dir: kgqa.In}},
			// Only deprecated statements point at these.
			"Q11": {}, "Q12": {}, "Q13": {},
		}
		for id, want := range cases {
			rels, err := g.Relations(ctx, id)
			require.NoError(t, err, id)
			if len(want) == 0 {
				assert.Empty(t, rels, id)
				continue
			}
			assert.Equal(t, want, rels, id)
		}
	})
	cases := []struct {
		name string
		id   string
		rel  kgqa.Relation
		want []factRow
	}{
		{"statement-only value reads through its statement", "Q1", kgqa.Relation{ID: "P69", Dir: kgqa.Out}, []factRow{
			{"P69/P69", "out", "Q1-6", "Q30 Hill College"},
		}},
		{"incoming statement without qualifiers gives its subject", "Q30", kgqa.Relation{ID: "P69", Dir: kgqa.In}, []factRow{
			{"P69/P69", "in", "Q1-6", "Q1 Alice"},
		}},
		{"unqualified statement of a truthy value is the one-hop fact; deprecated dropped", "Q1", kgqa.Relation{ID: "P19", Dir: kgqa.Out}, []factRow{
			{"P19", "", "", "Q10 Springfield"},
		}},
		{"incoming unqualified statements of truthy edges add nothing", "Q10", kgqa.Relation{ID: "P19", Dir: kgqa.In}, []factRow{
			{"P19", "", "", "Q1 Alice"},
			{"P19", "", "", "Q3 Carol"},
		}},
		{"incoming: unqualified statement beside its truthy edge", "Q8", kgqa.Relation{ID: "P39", Dir: kgqa.In}, []factRow{
			{"P39", "", "", "Q2 Bob"},
		}},
		{"qualified statement repeats its value; deprecated one dropped", "Q1", kgqa.Relation{ID: "P39", Dir: kgqa.Out}, []factRow{
			{"P39", "", "", "Q9 Mayor"},
			{"P39/P39", "out", "Q1-1", "Q9 Mayor"},
			{"P39/P580", "out", "Q1-1", date2001},
		}},
		{"incoming qualified statements, with and without truthy edge", "Q9", kgqa.Relation{ID: "P39", Dir: kgqa.In}, []factRow{
			{"P39", "", "", "Q1 Alice"},
			{"P39/P39", "in", "Q1-1", "Q1 Alice"},
			{"P39/P580", "out", "Q1-1", date2001},
			{"P39/P39", "in", "Q2-2", "Q2 Bob"},
			{"P39/P580", "out", "Q2-2", date2005},
		}},
		{"dated literal values", "Q10", kgqa.Relation{ID: "P1082", Dir: kgqa.Out}, []factRow{
			{"P1082", "", "", "30000"},
			{"P1082/P1082", "out", "Q10-1", "30000"},
			{"P1082/P585", "out", "Q10-1", "2020-01-01T00:00:00Z"},
			{"P1082/P1082", "out", "Q10-2", "25000"},
			{"P1082/P585", "out", "Q10-2", "2010-01-01T00:00:00Z"},
		}},
		{"deprecated-only property has no facts", "Q1", kgqa.Relation{ID: "P27", Dir: kgqa.Out}, []factRow{}},
		{"nothing points at a deprecated value", "Q11", kgqa.Relation{ID: "P19", Dir: kgqa.In}, []factRow{}},
		{"nor at a deprecated qualified value", "Q13", kgqa.Relation{ID: "P39", Dir: kgqa.In}, []factRow{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			facts, err := g.Neighbors(ctx, c.id, c.rel, 0)
			require.NoError(t, err)
			// The order is part of the contract: one-hop facts first, then
			// each statement's facts together.
			assert.Equal(t, c.want, factRows(t, c.id, c.rel, facts))
		})
	}
	t.Run("limit keeps the first facts", func(t *testing.T) {
		facts, err := g.Neighbors(ctx, "Q9", kgqa.Relation{ID: "P39", Dir: kgqa.In}, 2)
		require.NoError(t, err)
		assert.Equal(t, []factRow{{"P39", "", "", "Q1 Alice"}, {"P39/P39", "in", "Q1-1", "Q1 Alice"}},
			factRows(t, "Q9", kgqa.Relation{ID: "P39", Dir: kgqa.In}, facts))
	})
}

// Both backends give the same relations and facts for every entity of the
// fixture, along every relation either lists and along the deprecated-only
// one.
func TestWikidataStatementBackendsAgree(t *testing.T) {
	emb, virt := openWikidataFixture(t, false), openWikidataFixture(t, true)
	ctx := context.Background()
	facts := 0
	for _, id := range []string{"Q1", "Q2", "Q3", "Q8", "Q9", "Q10", "Q11", "Q12", "Q13", "Q30"} {
		er, err := emb.Relations(ctx, id)
		require.NoError(t, err)
		vr, err := virt.Relations(ctx, id)
		require.NoError(t, err)
		require.Equal(t, er, vr, "relations of %s", id)
		for _, rel := range append(er, kgqa.Relation{ID: "P27", Dir: kgqa.Out}, kgqa.Relation{ID: "P19", Dir: kgqa.In}) {
			ef, err := emb.Neighbors(ctx, id, rel, 0)
			require.NoError(t, err)
			vf, err := virt.Neighbors(ctx, id, rel, 0)
			require.NoError(t, err)
			assert.Equal(t, ef, vf, "neighbors of %s via %v", id, rel)
			facts += len(ef)
		}
	}
	assert.Greater(t, facts, 20)
}
