package prompts

import (
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
)

// evalOnly lists the dev and test files of the data directory, with the
// fields that hold their question text. Their questions are for
// evaluation only: none may appear in a prompt's examples.
var evalOnly = map[string][]string{
	"cwq_sample.json":           {"question", "machine_question"},
	"grailqa_sample.json":       {"question"},
	"pog/cwq_gold.json":         {"question"},
	"pog/webqsp_test_gold.json": {"RawQuestion"},
	"pog/grailqa_gold.json":     {"question"},
	"tog/WebQuestions.json":     {"question"},
	"tog/SimpleQA.json":         {"question"},
	"tog/qald_10-en.json":       {"question"},
}

// normalise lower-cases s and keeps its letters and digits, one space
// between words, so that punctuation and case do not hide a copy.
func normalise(s string) string {
	return " " + strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ") + " "
}

// TestNoEvaluationQuestionInPrompts fails when a question of a dev or
// test file appears, after normalising, in a prompt template or few-shot
// example: the examples must come from training splits only.
func TestNoEvaluationQuestionInPrompts(t *testing.T) {
	var text strings.Builder
	require.NoError(t, fs.WalkDir(os.DirFS("."), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tmpl") {
			return err
		}
		b, err := os.ReadFile(path)
		text.WriteString(normalise(string(b)))
		return err
	}))
	templates := text.String()
	require.Contains(t, templates, " question ", "the templates were read")
	for file, fields := range evalOnly {
		path := realdata.Path(t, file)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var rows []map[string]any
		require.NoError(t, json.Unmarshal(b, &rows), file)
		require.NotEmpty(t, rows, file)
		for _, row := range rows {
			for _, f := range fields {
				q, _ := row[f].(string)
				n := normalise(q)
				if len(strings.Fields(n)) < 4 {
					continue // too short to be a copy rather than a phrase
				}
				if strings.Contains(templates, n) {
					t.Errorf("%s question %q appears in a prompt template", file, q)
				}
			}
		}
	}
}
