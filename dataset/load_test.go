package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
)

func TestNormalizeMID(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"m.03_dwn", "m.03_dwn", true},
		{"ns:m.03_dwn", "m.03_dwn", true},
		{":m.0yrlqjm", "m.0yrlqjm", true},
		{"<http://rdf.freebase.com/ns/m.03_dwn>", "m.03_dwn", true},
		{"http://rdf.freebase.com/ns/g.122y5frt", "g.122y5frt", true},
		{"/m/0fsw3", "m.0fsw3", true},
		{" m.0fsw3 ", "m.0fsw3", true},
		{"Q42", "Q42", false},
		{"m.", "m.", false},
		{"ns:people.person.place_of_birth", "ns:people.person.place_of_birth", false},
		{"m.03 dwn", "m.03 dwn", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := NormalizeMID(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.ok, ok)
		})
	}
}

// The whole samples (from the real data directory) and their excerpts
// (from testdata, which a fresh clone has) load with the same first
// question; each excerpt keeps the first record and the sample's one
// GrailQA count question.
func TestLoadSharedSamples(t *testing.T) {
	for _, tc := range []struct {
		name     string
		path     func(testing.TB, string) string
		cwq, gqa int
	}{{"whole", realdata.Path, 1057, 493}, {"excerpt", realdata.Excerpt, 30, 30}} {
		t.Run(tc.name, func(t *testing.T) { loadSamples(t, tc.path, tc.cwq, tc.gqa) })
	}
}

func loadSamples(t *testing.T, path func(testing.TB, string) string, ncwq, ngqa int) {
	ctx := context.Background()
	t.Run("cwq", func(t *testing.T) {
		got, err := LoadFile(ctx, path(t, "cwq_sample.json"), CWQ)
		require.NoError(t, err)
		assert.Empty(t, got.Skipped)
		require.Len(t, got.Questions, ncwq)
		q := got.Questions[0]
		assert.Equal(t, "WebQTest-832_c334509bb5e02cacae1ba2e80c176499", q.ID)
		assert.Equal(t, "Lou Seal is the mascot for the team that last won the World Series when?", q.Text)
		assert.Equal(t, []Entity{{ID: "m.03_dwn", Name: "Lou Seal"}}, q.TopicEntities)
		assert.Equal(t, []Answer{{Name: "2014 World Series"}}, q.Answers)
		assert.Equal(t, "composition", q.Label)
		assert.Equal(t, CWQ, q.Source)
		assert.Contains(t, q.SPARQL, "ns:m.03_dwn")
	})
	t.Run("grailqa", func(t *testing.T) {
		got, err := LoadFile(ctx, path(t, "grailqa_sample.json"), GrailQA)
		require.NoError(t, err)
		assert.Empty(t, got.Skipped)
		require.Len(t, got.Questions, ngqa)
		q := got.Questions[0]
		assert.Equal(t, "2101960008000", q.ID)
		assert.Equal(t, []Entity{{ID: "m.0yrlqjm", Name: "The Illusion"}}, q.TopicEntities)
		assert.Equal(t, []Answer{{ID: "m.0yrltsn", Name: "The Illusion"}}, q.Answers)
		assert.Equal(t, "none", q.Label)
		var count *Question
		for i := range got.Questions {
			if got.Questions[i].Label == "count" {
				count = &got.Questions[i]
			}
		}
		require.NotNil(t, count, "the sample has one count question")
		assert.Equal(t, []Answer{{Name: "5", Datatype: XSD + "integer"}}, count.Answers)
	})
}

// The WebQSP train excerpt, in the release's envelope: 30 questions, the
// first being the release's first.
func TestLoadWebQSPTrainExcerpt(t *testing.T) {
	got, err := LoadFile(t.Context(), realdata.Excerpt(t, "webqsp/WebQSP.train.json"), WebQSP)
	require.NoError(t, err)
	assert.Empty(t, got.Skipped)
	require.Len(t, got.Questions, 30)
	q := got.Questions[0]
	assert.Equal(t, "WebQTrn-0", q.ID)
	assert.Equal(t, "what is the name of justin bieber brother?", q.Text)
	assert.Equal(t, WebQSP, q.Source)
}

func TestLoadWebQSPFixture(t *testing.T) {
	got, err := LoadFile(context.Background(), "testdata/webqsp_small.json", WebQSP)
	require.NoError(t, err)
	require.Len(t, got.Questions, 3)
	require.Len(t, got.Skipped, 2)
	assert.Equal(t, 3, got.Skipped[0].Index)
	assert.Equal(t, "WebQTrn-bad-1", got.Skipped[0].ID)
	assert.Contains(t, got.Skipped[0].Reason, "Parses")
	assert.Equal(t, 4, got.Skipped[1].Index)
	assert.Contains(t, got.Skipped[1].Reason, "missing QuestionId")

	ohio := got.Questions[1]
	assert.Equal(t, "WebQTrn-3", ohio.ID)
	assert.Equal(t, "who is the governor of ohio 2011?", ohio.Text)
	// "/m/0fsw3" in the second parse is the same entity as "m.0fsw3".
	assert.Equal(t, []Entity{{ID: "m.0fsw3", Name: "Ohio"}}, ohio.TopicEntities)
	// Answers are the union over parses: Kasich appears in both.
	assert.Equal(t, []Answer{{ID: "m.02q3bs", Name: "Ted Strickland"}, {ID: "m.07zyzd", Name: "John Kasich"}, {ID: "m.0c_md_", Name: "Mary Taylor"}}, ohio.Answers)
	assert.True(t, strings.HasPrefix(ohio.SPARQL, "PREFIX ns:"), "the first parse's query is kept")
	assert.Contains(t, ohio.SPARQL, "basic_title")

	eiffel := got.Questions[2]
	assert.Equal(t, []Answer{{Name: "1889-03-31", Datatype: XSD + "date"}}, eiffel.Answers)
	assert.True(t, eiffel.Answers[0].IsLiteral())
}

func TestLoadDemo(t *testing.T) {
	got, err := LoadFile(context.Background(), "testdata/demo_small.json", Demo)
	require.NoError(t, err)
	require.Len(t, got.Questions, 2)
	require.Len(t, got.Skipped, 2)
	assert.Equal(t, Skipped{Index: 2, ID: "demo-03", Reason: `field "question": want string, found JSON number`}, got.Skipped[0])
	assert.Equal(t, 3, got.Skipped[1].Index)
	q := got.Questions[0]
	assert.Equal(t, []Entity{{ID: "m.0f8l9c", Name: "France"}, {ID: "m.05g2b", Name: "Nijmegen"}}, q.TopicEntities)
	assert.Equal(t, "conjunction", q.Label)
	assert.JSONEq(t, `{"version":1,"subgoals":[{"id":"s1","text":"Find the countries bordering France.","op":"find"}]}`, string(q.Plan))
	assert.Nil(t, got.Questions[1].Plan)
	assert.Equal(t, XSD+"date", got.Questions[1].Answers[0].Datatype)
}

func TestMalformedRecordsAreSkipped(t *testing.T) {
	in := `[
	 {"ID":"a","question":"q a","sparql":"S","topic_entity":{"m.1":"One","ns:m.2":"Two"},"answer":"x"},
	 {"ID":"b","question":"q b","answer":7},
	 "not an object",
	 {"ID":"c","question":""},
	 {"ID":"d","question":"q d","topic_entity":{"m.1":3}},
	 {"ID":"e","question":"q e","answers":[{"answer":"Paris","answer_id":"m.05qtj","aliases":["City of Light"]}]}
	]`
	var qs []Question
	var skips []Skipped
	err := Decode(context.Background(), strings.NewReader(in), CWQ, func(q Question) error {
		qs = append(qs, q)
		return nil
	}, func(s Skipped) { skips = append(skips, s) })
	require.NoError(t, err)
	require.Len(t, qs, 2)
	assert.Equal(t, []Entity{{ID: "m.1", Name: "One"}, {ID: "m.2", Name: "Two"}}, qs[0].TopicEntities, "file order kept")
	assert.Equal(t, []Answer{{ID: "m.05qtj", Name: "Paris", Aliases: []string{"City of Light"}}}, qs[1].Answers)
	require.Len(t, skips, 4)
	assert.Equal(t, []int{1, 2, 3, 4}, []int{skips[0].Index, skips[1].Index, skips[2].Index, skips[3].Index})
	assert.Equal(t, "b", skips[0].ID)
	assert.Contains(t, skips[0].Reason, `field "answer"`)
	assert.Contains(t, skips[1].Reason, "not a JSON object")
	assert.Contains(t, skips[2].Reason, "missing question")
	assert.Contains(t, skips[3].Reason, "name is not a string")
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	tests := []struct {
		name, path string
		format     Format
		want       string
	}{
		{"missing file", filepath.Join(dir, "nope.json"), CWQ, "dataset: open:"},
		{"empty", write("empty.json", ""), CWQ, "empty input"},
		{"not json", write("text.json", "hello"), GrailQA, "not JSON"},
		{"object not array", write("obj.json", `{"a":1}`), CWQ, "want a JSON array of questions, found '{'"},
		{"truncated", write("trunc.json", `[{"ID":"a","question":"q"},{"ID":"b",`), CWQ, "record 1"},
		{"unterminated", write("unterm.json", `[{"ID":"a","question":"q"}`), CWQ, "unterminated array"},
		{"webqsp string", write("wq.json", `"x"`), WebQSP, "want a WebQSP object"},
		{"webqsp no questions", write("wq2.json", `{"Version":"1"}`), WebQSP, "no \"Questions\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadFile(context.Background(), tc.path, tc.format)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), filepath.Base(tc.path))
		})
	}
	_, err := LoadFile(context.Background(), write("x.json", "[]"), Format("csv"))
	assert.ErrorContains(t, err, `unknown format "csv"`)
}

func TestDecodeStopsOnContextAndYieldError(t *testing.T) {
	in := `[{"ID":"a","question":"q"},{"ID":"b","question":"q"}]`
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Decode(ctx, strings.NewReader(in), CWQ, func(Question) error { return nil }, nil)
	assert.ErrorIs(t, err, context.Canceled)

	stop := errors.New("stop")
	n := 0
	err = Decode(context.Background(), strings.NewReader(in), CWQ, func(Question) error { n++; return stop }, nil)
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, n)
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"cwq", "GrailQA", " webqsp", "demo"} {
		_, err := ParseFormat(s)
		assert.NoError(t, err, s)
	}
	_, err := ParseFormat("lcquad")
	assert.Error(t, err)
}

// WebQSP in PoG's answer-only list shape, beside the published envelope.
func TestLoadWebQSPListShape(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "webqsp_test_gold.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"QuestionId": "WebQTest-0", "RawQuestion": "what does jamaican people speak?", "TopicEntityMid": "m.03_r3",
 "Answers": [{"AnswerArgument": "m.01428y", "EntityName": "Jamaican English"}, {"AnswerArgument": "1962", "EntityName": null}]}]`), 0o644))
	got, err := LoadFile(t.Context(), path, WebQSP)
	require.NoError(t, err)
	require.Empty(t, got.Skipped)
	require.Len(t, got.Questions, 1)
	q := got.Questions[0]
	assert.Equal(t, "WebQTest-0", q.ID)
	assert.Equal(t, []Entity{{ID: "m.03_r3"}}, q.TopicEntities)
	require.Len(t, q.Answers, 2)
	assert.Equal(t, "m.01428y", q.Answers[0].ID, "a Freebase id is an entity")
	assert.Equal(t, "1962", q.Answers[1].Name, "anything else is a value")
	assert.Empty(t, q.Answers[1].ID)

}

// The gold files PoG is scored against, of all three benchmarks, load
// whole: the full ones from the real data directory, the excerpts' 30 from
// testdata.
func TestLoadPoGGold(t *testing.T) {
	for _, tc := range []struct {
		file  string
		f     Format
		whole int
	}{{"webqsp_test_gold.json", WebQSP, 1639}, {"cwq_gold.json", CWQ, 3531}, {"grailqa_gold.json", GrailQA, 1000}} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := LoadFile(t.Context(), realdata.Excerpt(t, "pog/"+tc.file), tc.f)
			require.NoError(t, err)
			assert.Len(t, got.Questions, 30)
			assert.Empty(t, got.Skipped)

			got, err = LoadFile(t.Context(), realdata.Path(t, "pog/"+tc.file), tc.f)
			require.NoError(t, err)
			assert.Len(t, got.Questions, tc.whole)
			assert.Empty(t, got.Skipped)
		})
	}
}
