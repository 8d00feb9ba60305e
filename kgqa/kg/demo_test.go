package kg

import (
	"context"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoBackendsAgree runs every primitive on the shipped demo graph in
// the embedded store and in Virtuoso, from each demo question's topic
// entities and answers, and requires the same answers from both.
func TestDemoBackendsAgree(t *testing.T) {
	t.Run("freebase", func(t *testing.T) {
		backendsAgree(t, "freebase", embedded.BuiltinDemoFreebase, virtuoso(t).GraphURL(demoGraph), demokg.FreebaseQuestions(), 100)
	})
	t.Run("wikidata", func(t *testing.T) {
		backendsAgree(t, "wikidata", embedded.BuiltinDemoWikidata, virtuosoWithWikidata(t), demokg.WikidataQuestions(), 50)
	})
}

func backendsAgree(t *testing.T, dialect, builtin, endpoint string, qs []dataset.DemoRecord, minFacts int) {
	c := endpointConfig(endpoint)
	c.Dialect, c.CacheSize = dialect, 0
	backendsAgreeWith(t, dialect, builtin, c, adapters.Open, qs, minFacts)
}

// backendsAgreeWith is backendsAgree with the endpoint's store opened from
// virtCfg by open.
func backendsAgreeWith(t *testing.T, dialect, builtin string, virtCfg config.KG, open OpenBackend, qs []dataset.DemoRecord, minFacts int) {
	cfg := config.Default().KG
	cfg.Dialect, cfg.Files = dialect, []string{builtin}
	cfg.CacheSize = 0
	emb := openFixture(t, cfg)
	virt, err := Open(context.Background(), virtCfg, "", open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = virt.Close() })
	ctx := context.Background()

	ids := map[string]string{}
	for _, q := range qs {
		for _, e := range q.TopicEntities {
			ids[e.ID] = e.Name
		}
		for _, a := range q.Answers {
			if a.ID != "" {
				ids[a.ID] = a.Name
			}
		}
	}
	require.NotEmpty(t, ids)
	facts := 0
	for id, name := range ids {
		en, err := emb.Name(ctx, id)
		require.NoError(t, err)
		vn, err := virt.Name(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, en, vn, "name of %s", id)

		es, err := emb.Search(ctx, name, 10)
		require.NoError(t, err)
		vs, err := virt.Search(ctx, name, 10)
		require.NoError(t, err)
		assert.Equal(t, es, vs, "search %q", name)

		er, err := emb.Relations(ctx, id)
		require.NoError(t, err)
		vr, err := virt.Relations(ctx, id)
		require.NoError(t, err)
		require.Equal(t, er, vr, "relations of %s", id)
		for _, rel := range er {
			ef, err := emb.Neighbors(ctx, id, rel, 0)
			require.NoError(t, err)
			vf, err := virt.Neighbors(ctx, id, rel, 0)
			require.NoError(t, err)
			assert.Equal(t, ef, vf, "neighbors of %s via %v", id, rel)
			facts += len(ef)
		}
	}
	// Listed together, every entity has the list it has alone.
	var all []string
	for id := range ids {
		all = append(all, id)
	}
	eb, err := RelationsOf(ctx, emb, all)
	require.NoError(t, err)
	vb, err := RelationsOf(ctx, virt, all)
	require.NoError(t, err)
	for _, id := range all {
		er, err := emb.Relations(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, er, eb[id], "embedded: relations of %s listed with %d others", id, len(all)-1)
		assert.Equal(t, er, vb[id], "Virtuoso: relations of %s listed with %d others", id, len(all)-1)
	}
	// Read together, every entity has the facts it has alone, along every
	// relation that several of them have.
	byRel := map[kgqa.Relation][]string{}
	for _, id := range all {
		for _, rel := range eb[id] {
			byRel[rel] = append(byRel[rel], id)
		}
	}
	batched := 0
	for rel, heads := range byRel {
		if len(heads) < 2 {
			continue
		}
		ef, err := NeighborsOf(ctx, emb, heads, rel, 0)
		require.NoError(t, err)
		vf, err := NeighborsOf(ctx, virt, heads, rel, 0)
		require.NoError(t, err)
		for _, id := range heads {
			one, err := emb.Neighbors(ctx, id, rel, 0)
			require.NoError(t, err)
			assert.Equal(t, one, ef[id], "embedded: neighbors of %s via %v read with %d others", id, rel, len(heads)-1)
			assert.Equal(t, one, vf[id], "Virtuoso: neighbors of %s via %v read with %d others", id, rel, len(heads)-1)
			batched += len(one)
		}
	}
	assert.Positive(t, batched)
	t.Logf("compared %d entities and %d facts", len(ids), facts)
	assert.Greater(t, facts, minFacts)
}
