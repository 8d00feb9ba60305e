package kg

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	virt "github.com/parog/parog-go/kgqa/kgdata/virtuoso"
)

// The relation indexes of the package's Virtuoso: one per data graph, each
// in a graph of its own, so that an endpoint whose dataset is a data graph
// and its index sees one index of exactly that data.
const (
	fixtureIndex = "urn:parog:relations:fixture"
	demoIndex    = "urn:parog:relations:demo"
)

var indexed struct {
	once sync.Once
	err  error
}

// indexedURL is the /sparql URL whose dataset is graph and its relation
// index (written once, by the setup kit's IndexRelations).
func indexedURL(t *testing.T, graph, index string) string {
	t.Helper()
	srv := virtuoso(t)
	indexed.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, g := range [][2]string{{fixtureGraph, fixtureIndex}, {demoGraph, demoIndex}} {
			if _, indexed.err = srv.IndexRelations(ctx, g[0], g[1]); indexed.err != nil {
				return
			}
		}
	})
	require.NoError(t, indexed.err)
	return srv.GraphURL(graph) + "&default-graph-uri=" + url.QueryEscape(index)
}

// openStore opens the Freebase store of an endpoint, with no cache.
func openStore(t *testing.T, endpoint string) *store {
	t.Helper()
	cfg := endpointConfig(endpoint)
	cfg.CacheSize = 0
	s, ok := openFixture(t, cfg).(*store)
	require.True(t, ok)
	return s
}

// ntEntities returns the ids of the dialect's entities that N-Triples nt
// names, as subject or object.
func ntEntities(t *testing.T, d Dialect, nt []byte) []string {
	t.Helper()
	seen := map[string]bool{}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(nt))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		for _, tok := range strings.Fields(sc.Text()) {
			id, ok := strings.CutPrefix(strings.Trim(tok, "<>"), FreebaseNS)
			if ok && strings.HasPrefix(tok, "<") && d.ValidEntity(id) && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	require.NoError(t, sc.Err())
	return ids
}

func TestRelationIndexVocabulary(t *testing.T) {
	assert.Equal(t, virt.RelationIndexNode, relIndexNodePrefix)
	assert.Equal(t, virt.RelationIndexOut, relIndexOut)
	assert.Equal(t, virt.RelationIndexIn, relIndexIn)
	assert.Equal(t, virt.RelationIndexMarker, relIndexMarker)
	assert.Equal(t, virt.RelationIndexCount, relIndexCount)
	for _, tag := range []string{tagRelIndexMarker, tagRelIndexOut, tagRelIndexIn, tagRelIndexBatch} {
		q, err := render(tag, queryArgs{Indexed: []indexedRef{{"<e>", "<n>"}}, Limit: 1})
		require.NoError(t, err)
		for _, iri := range []string{relIndexOut, relIndexIn, relIndexMarker, relIndexCount} {
			q = strings.ReplaceAll(q, "<"+iri+">", "")
		}
		assert.NotContains(t, q, "urn:parog", "%s names an IRI the setup kit does not write", tag)
	}
}

// TestRelationIndexListsWhatTheScansList lists every entity of the fixture
// and of the demo graph from the relation index, and from the entity's
// facts on the same endpoint (the index ignored) and on an endpoint
// without the index: all three lists are the same, one by one and
// batched.
func TestRelationIndexListsWhatTheScansList(t *testing.T) {
	fixture, err := os.ReadFile("testdata/fixture.nt")
	require.NoError(t, err)
	for _, c := range []struct {
		name, graph, index string
		nt                 []byte
	}{
		{"fixture", fixtureGraph, fixtureIndex, fixture},
		{"demo", demoGraph, demoIndex, demokg.Freebase()},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			idx := openStore(t, indexedURL(t, c.graph, c.index))
			scan := openStore(t, indexedURL(t, c.graph, c.index))
			scan.relIndex.Store(relIndexAbsent)
			plain := openStore(t, virtuoso(t).GraphURL(c.graph))
			require.True(t, idx.hasRelIndex(ctx), "the index is not found")
			require.False(t, plain.hasRelIndex(ctx), "an endpoint without the index found one")

			ids := append(ntEntities(t, idx.Dialect(), c.nt), unknownID)
			listed := 0
			for _, id := range ids {
				var rec kgqa.Recorder
				got, err := idx.Relations(kgqa.WithRecorder(ctx, &rec), id)
				require.NoError(t, err)
				sent := rec.Transcript(func(string) int { return 0 }).Queries
				require.Len(t, sent, 2)
				for _, q := range sent {
					require.Contains(t, q.SPARQL, relIndexNodePrefix, "a listing of %s not from the index", id)
				}
				want, err := scan.Relations(ctx, id)
				require.NoError(t, err)
				require.Equal(t, want, got, "relations of %s", id)
				other, err := plain.Relations(ctx, id)
				require.NoError(t, err)
				require.Equal(t, other, got, "relations of %s without the index", id)
				listed += len(got)
			}
			batched, err := RelationsOf(ctx, idx, ids)
			require.NoError(t, err)
			scanned, err := RelationsOf(ctx, scan, ids)
			require.NoError(t, err)
			for _, id := range ids {
				one, err := plain.Relations(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, one, batched[id], "relations of %s listed from the index with others", id)
				assert.Equal(t, one, scanned[id], "relations of %s listed with others", id)
			}
			t.Logf("%d entities, %d relations listed", len(ids), listed)
			assert.Greater(t, listed, 3*len(ids)/2)
		})
	}
}

// TestRelationIndexChangesNoOtherPrimitive runs the hand-checked contract
// on the fixture, and every primitive of the demo graph against the
// embedded store, at endpoints whose dataset holds the relation index: its
// triples change no name, neighbour, count, search or link.
func TestRelationIndexChangesNoOtherPrimitive(t *testing.T) {
	t.Run("fixture contract", func(t *testing.T) {
		g := openFixture(t, endpointConfig(indexedURL(t, fixtureGraph, fixtureIndex)))
		require.True(t, uncached(g).(*store).hasRelIndex(context.Background()))
		runContract(t, g)
	})
	t.Run("demo graph", func(t *testing.T) {
		backendsAgree(t, "freebase", embedded.BuiltinDemoFreebase, indexedURL(t, demoGraph, demoIndex), demokg.FreebaseQuestions(), 100)
	})
}

// TestBatchRowCapFallback lowers the batch row cap so that the batched
// listings and neighbour reads reach it: every entity of such a batch is
// read again on its own, and gets what the one-entity call gives.
func TestBatchRowCapFallback(t *testing.T) {
	emb := fixtureConfig()
	emb.CacheSize = 0
	embStore, ok := openFixture(t, emb).(*store)
	require.True(t, ok)
	stores := map[string]*store{
		"embedded":                 embStore,
		"virtuoso":                 openStore(t, virtuoso(t).GraphURL(fixtureGraph)),
		"virtuoso with rel. index": openStore(t, indexedURL(t, fixtureGraph, fixtureIndex)),
	}
	ids := []string{france, germany, nijmegen, "m.059j2", "m.0154j"}
	rel := kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var full Stats
			want, err := s.RelationsOf(WithStats(ctx, &full), ids)
			require.NoError(t, err)
			require.EqualValues(t, 1, full.Queries.Load(), "under the cap, one query")
			wantN, err := s.NeighborsOf(ctx, ids, rel, 0)
			require.NoError(t, err)

			s.batchRows = 3
			t.Cleanup(func() { s.batchRows = maxBatchRows })
			var st Stats
			got, err := s.RelationsOf(WithStats(ctx, &st), ids)
			require.NoError(t, err)
			kinds := map[string]int{}
			for _, q := range st.Usage().Queries {
				kinds[q.Kind]++
			}
			assert.Equal(t, 1, kinds[kindRelationsBatch])
			assert.GreaterOrEqual(t, kinds[kindRelations], len(ids), "each entity listed again on its own")
			gotN, err := s.NeighborsOf(WithStats(ctx, &st), ids, rel, 0)
			require.NoError(t, err)
			for _, id := range ids {
				one, err := s.Relations(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, one, got[id], "relations of %s", id)
				assert.Equal(t, one, want[id], "relations of %s under the cap", id)
				facts, err := s.Neighbors(ctx, id, rel, 0)
				require.NoError(t, err)
				assert.Equal(t, facts, gotN[id], "neighbors of %s", id)
				assert.Equal(t, facts, wantN[id], "neighbors of %s under the cap", id)
			}
			kinds = map[string]int{}
			for _, q := range st.Usage().Queries {
				kinds[q.Kind]++
			}
			assert.Equal(t, 1, kinds[kindNeighborsBatch])
			assert.GreaterOrEqual(t, kinds[kindNeighbors], len(ids), "each head read again on its own")
		})
	}
}

// TestRelationIndexOff opens the same endpoint, whose dataset holds the
// relation index, with kg.relation_index auto and off: auto lists from the
// index, off from the facts (no query names an index node, and the marker
// is never looked up), and both list the same relations.
func TestRelationIndexOff(t *testing.T) {
	ctx := context.Background()
	endpoint := indexedURL(t, fixtureGraph, fixtureIndex)
	listings := map[string][]kgqa.Relation{}
	for _, mode := range []string{"", "auto", "off"} {
		cfg := endpointConfig(endpoint)
		cfg.CacheSize = 0
		cfg.RelationIndex = mode
		s, ok := openFixture(t, cfg).(*store)
		require.True(t, ok)
		var rec kgqa.Recorder
		got, err := s.Relations(kgqa.WithRecorder(ctx, &rec), france)
		require.NoError(t, err)
		sent := rec.Transcript(func(string) int { return 0 }).Queries
		require.Len(t, sent, 2, mode)
		for _, q := range sent {
			if mode == "off" {
				assert.NotContains(t, q.SPARQL, relIndexNodePrefix, "kg.relation_index off read the index")
			} else {
				assert.Contains(t, q.SPARQL, relIndexNodePrefix, "kg.relation_index %q did not read the index", mode)
			}
		}
		assert.Equal(t, mode != "off", s.hasRelIndex(ctx), mode)
		listings[mode] = got
	}
	assert.NotEmpty(t, listings["off"])
	assert.Equal(t, listings["auto"], listings["off"])
	assert.Equal(t, listings[""], listings["off"])
}
