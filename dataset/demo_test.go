package dataset_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa/kg/demokg"
)

// TestLoadShippedDemoQuestions reads both shipped demo question files
// through the loader: every question of the one demo shape
// (dataset.DemoRecord) loads, with its gold data intact.
func TestLoadShippedDemoQuestions(t *testing.T) {
	for name, qs := range map[string][]dataset.DemoRecord{"freebase": demokg.FreebaseQuestions(), "wikidata": demokg.WikidataQuestions()} {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(qs)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "questions.json")
			require.NoError(t, os.WriteFile(path, data, 0o644))
			got, err := dataset.LoadFile(context.Background(), path, dataset.Demo)
			require.NoError(t, err)
			require.Empty(t, got.Skipped)
			require.Len(t, got.Questions, len(qs))
			for i, want := range qs {
				q := got.Questions[i]
				assert.Equal(t, want.ID, q.ID)
				assert.Equal(t, want.Question, q.Text)
				assert.Equal(t, want.Type, q.Label)
				assert.Equal(t, want.SPARQL, q.SPARQL)
				require.Len(t, q.TopicEntities, len(want.TopicEntities), want.ID)
				for j, e := range want.TopicEntities {
					assert.Equal(t, e.Name, q.TopicEntities[j].Name)
					assert.Equal(t, e.ID, q.TopicEntities[j].ID, "ids in the file are already normalised")
				}
				require.Len(t, q.Answers, len(want.Answers), want.ID)
				for j, a := range want.Answers {
					assert.Equal(t, a.Name, q.Answers[j].Name)
					assert.Equal(t, a.Datatype, q.Answers[j].Datatype)
					assert.Equal(t, a.ID, q.Answers[j].ID)
				}
				assert.JSONEq(t, string(want.Plan), string(q.Plan))
			}
		})
	}
}
