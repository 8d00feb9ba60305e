package score

import (
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesMatch(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pred, gold string
		want       bool
	}{
		{"empty prediction never matches", "", "Germany", false},
		{"empty prediction vs empty gold", "", "", false},
		{"punctuation only is empty", "?!", "Germany", false},
		{"yes is not an answer", "Yes", "Germany", false},
		{"yes in braces is not an answer even for gold yes", "{Yes}", "yes", false},
		{"substring is not a match", "Paris", "Paris Hilton", false},
		{"superstring is not a match", "Germany and France", "Germany", false},
		{"case and article", "the netherlands", "Netherlands", true},
		{"leading article on the gold side", "Beatles", "The Beatles", true},
		{"inner article is kept", "Alexander Great", "Alexander the Great", false},
		{"dotted initialism is the word", "USA", "U.S.A.", true},
		{"a shorter initialism is another word", "U.S.", "USA", false},
		{"initialism inside a name", "Washington DC", "Washington, D.C.", true},
		{"spaced initials are not joined", "JRR Tolkien", "J. R. R. Tolkien", false},
		{"diacritics", "Zurich", "Zürich", true},
		{"thousands separator", "1,000", "1000", true},
		{"trailing zero fraction", "3.50", "3.5", true},
		{"different numbers", "1001", "1000", false},
		{"bad thousands grouping is not a number", "1,00", "100", false},
		{"number with unit is not a number", "42 km", "42", false},
		{"year matches full date", "1990", "1990-01-01", true},
		{"full date matches year gold", "1990-07-04", "1990", true},
		{"month precision agrees", "1990-07", "1990-07-04", true},
		{"different day", "1990-07-04", "1990-07-05", false},
		{"different year", "1991", "1990-01-01", false},
		{"written date", "July 4, 1990", "1990-07-04", true},
		{"day-first written date", "4 July 1990", "1990-07-04", true},
		{"datetime with zone", "2014-10-29T00:00:00Z", "2014-10-29", true},
		{"written date wrong month", "June 4, 1990", "1990-07-04", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NamesMatch(tc.pred, tc.gold))
		})
	}
}

func TestScore(t *testing.T) {
	q := dataset.Question{ID: "q1", Answers: []dataset.Answer{
		{ID: "m.0345h", Name: "Germany", Aliases: []string{"Deutschland"}},
		{ID: "m.05qhw", Name: "Poland"},
	}}
	lit := dataset.Question{ID: "q2", Answers: []dataset.Answer{{Name: "2014-10-29", Datatype: dataset.XSD + "date"}}}
	for _, tc := range []struct {
		name    string
		q       dataset.Question
		ents    []PredEntity
		text    string
		hit     bool
		f1      float64
		top     string
		aliases string
	}{
		{name: "no prediction", q: q, hit: false, f1: 0},
		{name: "yes text is no prediction", q: q, text: "Yes", hit: false, f1: 0},
		{name: "ID hit with wrong name", q: q, ents: []PredEntity{{ID: "m.0345h", Name: "Allemagne"}}, hit: true, f1: 2 * 1 * 0.5 / 1.5, top: "Allemagne"},
		{name: "ID spelled as IRI", q: q, ents: []PredEntity{{ID: "http://rdf.freebase.com/ns/m.0345h"}}, hit: true, f1: 2 * 1 * 0.5 / 1.5, top: "http://rdf.freebase.com/ns/m.0345h"},
		{name: "wrong ID but right name is a name hit", q: q, ents: []PredEntity{{ID: "m.999", Name: "germany"}}, hit: true, f1: 2 * 1 * 0.5 / 1.5, top: "germany"},
		{name: "alias from the file", q: q, ents: []PredEntity{{Name: "Deutschland"}}, hit: true, f1: 2 * 1 * 0.5 / 1.5},
		{name: "second prediction right is no hit", q: q, ents: []PredEntity{{Name: "France"}, {Name: "Germany"}}, hit: false, f1: 0.5},
		{name: "full set", q: q, ents: []PredEntity{{Name: "Poland"}, {ID: "m.0345h"}}, hit: true, f1: 1},
		{name: "text used when no entities", q: q, text: " Germany ", hit: true, f1: 2 * 1 * 0.5 / 1.5, top: "Germany"},
		{name: "empty-named literal entity dropped, text used", q: q, ents: []PredEntity{{Name: ""}}, text: "Poland", hit: true, f1: 2 * 1 * 0.5 / 1.5, top: "Poland"},
		{name: "literal date as written date", q: lit, text: "October 29, 2014", hit: true, f1: 1, top: "October 29, 2014"},
		{name: "literal date year only", q: lit, ents: []PredEntity{{Name: "2014", Datatype: dataset.XSD + "gYear"}}, hit: true, f1: 1, top: "2014"},
		{name: "alias file by question id", q: q, text: "BRD", aliases: `{"q1": ["BRD"]}`, hit: true, f1: 2 * 1 * 0.5 / 1.5},
		{name: "alias file by answer id", q: q, text: "Polska", aliases: `{"m.05qhw": "Polska"}`, hit: true, f1: 2 * 1 * 0.5 / 1.5},
		{name: "alias file by answer name", q: q, text: "Polska", aliases: `{"poland": ["Polska"]}`, hit: true, f1: 2 * 1 * 0.5 / 1.5},
		{name: "alias of another question does not apply", q: q, text: "BRD", aliases: `{"q9": ["BRD"]}`, hit: false, f1: 0},
		{name: "no gold answers", q: dataset.Question{ID: "q3"}, text: "Germany", hit: false, f1: 0, top: "Germany"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Scorer
			if tc.aliases != "" {
				a, err := ParseAliases([]byte(tc.aliases))
				require.NoError(t, err)
				s.Aliases = a
			}
			got := s.Score(tc.q, PredictedSet(tc.ents, tc.text))
			assert.Equal(t, tc.hit, got.Hit, "hit")
			assert.InDelta(t, tc.f1, got.F1, 1e-9, "f1")
			if tc.top != "" {
				assert.Equal(t, tc.top, got.Top)
			}
		})
	}
}

func TestAnswerItems(t *testing.T) {
	assert.Equal(t, []string{"Germany", "Poland"}, AnswerItems("{Yes}. The answer is {Germany} and {Poland}."))
	assert.Equal(t, []string{"Germany"}, AnswerItems("Germany"))
	assert.Empty(t, AnswerItems("{Yes}"))
	assert.Empty(t, AnswerItems(""))
	assert.Empty(t, AnswerItems("{}"))
}

func TestParseAliasesErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"array", `["a"]`, "JSON object"},
		{"truncated", `{"q1": ["a"`, "not valid JSON"},
		{"number value", `{"q1": 3}`, `key "q1": want a name or a list of names`},
		{"number in list", `{"q1": ["a", 3]}`, `key "q1": item 1: want a string`},
		{"nested object", `{"q1": {"a": 1}}`, `key "q1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseAliases([]byte(tc.in))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadAliasFile)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoadAliasesNamesFile(t *testing.T) {
	_, err := LoadAliases("testdata/eval/aliases_bad.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aliases_bad.json")
	assert.Contains(t, err.Error(), `key "WebQTest-1"`)
	a, err := LoadAliases("testdata/eval/aliases.json")
	require.NoError(t, err)
	assert.Equal(t, []string{"USA", "United States of America"}, a.ForQuestion("WebQTest-1"))
	_, err = LoadAliases("testdata/eval/missing.json")
	require.ErrorContains(t, err, "no such file")
}
