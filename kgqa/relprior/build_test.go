package relprior_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/relprior"
	"github.com/parog/parog-go/kgqa/sft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// record is the SFT record parog sparql2plan writes for a WebQSP train
// question, with the relations of its gold query.
func record(id, split, question, subgoal string, rels ...string) *sft.Record {
	return &sft.Record{ID: id, Split: sft.SplitTrain, SourceSplit: split, Question: question,
		Plan:             &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: subgoal, Op: kgqa.OpFind}}},
		SubgoalRelations: map[string][]string{"s1": rels}}
}

func TestBuilderRefusesRecordsOfEvaluationSplits(t *testing.T) {
	for _, split := range []string{sft.SourceDev, sft.SourceTest, ""} {
		b := relprior.NewBuilder()
		_, err := b.Record(record("q", split, "what countries border france?", "Find the entities that France adjoin s."), false)
		require.ErrorIs(t, err, relprior.ErrEvalSplit, "split %q", split)
		assert.Contains(t, err.Error(), "q (split")
	}
}

func TestReadRecordsNamesTheBadLine(t *testing.T) {
	good, err := json.Marshal(record("WebQTrn-0", sft.SourceTrain, "what is the name of justin bieber brother?", "Find the siblings of Justin Bieber.", "people.person.sibling_s"))
	require.NoError(t, err)
	in := string(good) + "\n\n{not json\n"
	err = relprior.NewBuilder().ReadRecords(strings.NewReader(in), "sft.jsonl", false, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sft.jsonl:3: not an SFT record")
}

// The prior learned from real questions prefers, for a subgoal in the
// words of another question, the relations gold queries used for those
// words, and a relation the data never saw whose name has the words
// associated with them ("spouse") over one whose name has none.
func TestPriorFromRealQuestions(t *testing.T) {
	b := relprior.NewBuilder()
	for _, r := range []*sft.Record{
		record("WebQTrn-176", sft.SourceTrain, "where was gabriel faure born?", "Find the place of birth of Gabriel Fauré.", "people.person.place_of_birth"),
		record("WebQTrn-389", sft.SourceTrain, "when was blessed kateri born?", "Find the date of birth of Kateri Tekakwitha.", "people.person.date_of_birth"),
		record("WebQTrn-1311", sft.SourceTrain, "who is martin luther king jr wife?", "Find the spouses of Martin Luther King, Jr. with type of union a specific entity.",
			"people.person.spouse_s", "people.marriage.spouse", "people.marriage.type_of_union"),
		record("WebQTrn-1540", sft.SourceTrain, "who is kobe bryant wife bio?", "Find the spouses of Kobe Bryant with type of union a specific entity.",
			"people.person.spouse_s", "people.marriage.spouse", "people.marriage.type_of_union"),
	} {
		_, err := b.Record(r, false)
		require.NoError(t, err)
	}
	p := b.Prior(2, "test")
	var buf bytes.Buffer
	require.NoError(t, p.Write(&buf))
	p, err := relprior.Read(&buf)
	require.NoError(t, err)

	sc := p.For("Find the wife of Abraham Lincoln.")
	require.True(t, sc.Known())
	assert.Greater(t, sc.Score("people.person.spouse_s"), sc.Score("people.person.place_of_birth"))
	assert.Greater(t, sc.Score("fictional_universe.fictional_character.spouse"), sc.Score("fictional_universe.fictional_character.place_of_birth"),
		"an unseen relation named for a spouse")
	assert.Equal(t, []int{1, 0}, sc.Rank([]string{"people.person.place_of_birth", "people.person.spouse_s"}))
	born := p.For("Where was Abraham Lincoln born?")
	assert.Greater(t, born.Score("people.person.place_of_birth"), born.Score("people.person.spouse_s"))
	assert.False(t, p.For("Lincoln").Known(), "a name the prior dropped")
}

func TestReadRefusesAnotherVersionAndAnEmptyPrior(t *testing.T) {
	_, err := relprior.Read(strings.NewReader(`{"version": 99, "subgoals": 3, "words": {"a": 1}}`))
	require.ErrorContains(t, err, "format version 99")
	_, err = relprior.Read(strings.NewReader(`{"version": 1, "subgoals": 0}`))
	require.ErrorContains(t, err, "no subgoal")
	_, err = relprior.Load("no-such-prior.json")
	require.ErrorContains(t, err, "no-such-prior.json")
}
