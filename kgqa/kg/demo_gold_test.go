package kg

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const wikidataGraph = "urn:parog:demo-wikidata"

// The Wikidata demo graph is loaded into the package's Virtuoso on first
// use only.
var wikidataLoad struct {
	once sync.Once
	err  error
}

func virtuosoWithWikidata(t *testing.T) string {
	t.Helper()
	srv := virtuoso(t)
	wikidataLoad.once.Do(func() {
		file := filepath.Join(t.TempDir(), "demo-wikidata.nt")
		if wikidataLoad.err = os.WriteFile(file, demokg.Wikidata(), 0o644); wikidataLoad.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		wikidataLoad.err = srv.Load(ctx, wikidataGraph, file)
	})
	require.NoError(t, wikidataLoad.err, "load the Wikidata demo graph into Virtuoso")
	return srv.GraphURL(wikidataGraph)
}

// TestDemoGoldSPARQL runs every demo question's gold SPARQL through Select
// on the embedded store and on Virtuoso, and requires exactly the gold
// answers from both: entity answers by id, literal answers by lexical form.
func TestDemoGoldSPARQL(t *testing.T) {
	suites := []struct {
		name      string
		dialect   string
		builtin   string
		questions []dataset.DemoRecord
		endpoint  func(t *testing.T) string
	}{
		{"freebase", "freebase", embedded.BuiltinDemoFreebase, demokg.FreebaseQuestions(),
			func(t *testing.T) string { return virtuoso(t).GraphURL(demoGraph) }},
		{"wikidata", "wikidata", embedded.BuiltinDemoWikidata, demokg.WikidataQuestions(), virtuosoWithWikidata},
	}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			require.NotEmpty(t, s.questions)
			emb := config.Default().KG
			emb.Dialect, emb.Files, emb.CacheSize = s.dialect, []string{s.builtin}, 0
			virt := endpointConfig(s.endpoint(t))
			virt.Dialect, virt.CacheSize = s.dialect, 0
			backends := map[string]Graph{"embedded": openFixture(t, emb), "virtuoso": openFixture(t, virt)}
			for _, q := range s.questions {
				want := goldKeys(q.Answers)
				for name, g := range backends {
					t.Run(q.ID+"/"+name, func(t *testing.T) {
						res, err := g.Select(context.Background(), q.SPARQL)
						require.NoError(t, err, q.SPARQL)
						require.NotEmpty(t, res.Vars)
						var got []string
						for _, row := range res.Rows {
							if term, ok := row[res.Vars[0]]; ok {
								got = append(got, answerKey(term.ID, term.Name))
							}
						}
						sort.Strings(got)
						assert.Equal(t, want, got, "%s: %s", q.ID, q.Question)
					})
				}
			}
		})
	}
}

func goldKeys(answers []dataset.DemoAnswer) []string {
	keys := make([]string, 0, len(answers))
	for _, a := range answers {
		keys = append(keys, answerKey(a.ID, a.Name))
	}
	sort.Strings(keys)
	return keys
}

// answerKey is an entity's id, or a literal's lexical form.
func answerKey(id, name string) string {
	if id != "" {
		return "entity:" + id
	}
	return "literal:" + name
}
