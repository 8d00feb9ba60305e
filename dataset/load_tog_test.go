package dataset_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/realdata"
)

// The three ToG files load whole, with ids derived from the text, their
// topic entities and answers.
func TestLoadToGFiles(t *testing.T) {
	cases := []struct {
		file    string
		format  dataset.Format
		n       int
		first   string
		topic   dataset.Entity
		answers []dataset.Answer
	}{
		{"tog/WebQuestions.json", dataset.WebQuestions, 2032, "what does jamaican people speak?",
			dataset.Entity{ID: "m.03_r3", Name: "Jamaica"}, []dataset.Answer{{Name: "Jamaican Creole English Language"}, {Name: "Jamaican English"}}},
		{"tog/SimpleQA.json", dataset.SimpleQuestions, 1000, "where is the madam satan located",
			dataset.Entity{ID: "m.02qkg8m", Name: "Madam Satan"}, []dataset.Answer{{Name: "United States of America"}}},
		{"tog/qald_10-en.json", dataset.QALD, 333, "After whom is the Riemannian geometry named?",
			dataset.Entity{}, []dataset.Answer{{ID: "Q42299", Name: "Bernhard Riemann"}}},
	}
	for _, tc := range cases {
		t.Run(string(tc.format), func(t *testing.T) {
			path := realdata.Path(t, tc.file)
			got, err := dataset.LoadFile(context.Background(), path, tc.format)
			require.NoError(t, err)
			assert.Empty(t, got.Skipped)
			assert.Len(t, got.Questions, tc.n)
			q := got.Questions[0]
			assert.Equal(t, tc.first, q.Text)
			assert.Regexp(t, `^`+string(tc.format)+`-[0-9a-f]{10}$`, q.ID)
			assert.Equal(t, tc.answers, q.Answers)
			if tc.topic.ID != "" {
				assert.Equal(t, []dataset.Entity{tc.topic}, q.TopicEntities)
			}
			ids := map[string]bool{}
			for _, q := range got.Questions {
				assert.False(t, ids[q.ID], "ids are unique: %s", q.ID)
				ids[q.ID] = true
				assert.Equal(t, tc.format, q.Source)
			}
		})
	}
}
