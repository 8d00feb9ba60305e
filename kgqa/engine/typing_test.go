package engine

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real FB15k-237 names three entities "Chicago": the city, the 2002
// film and the band. testdata/chicago holds every FB15k-237 line that
// mentions one of them (see NOTICE) and the schema lines of their
// relations.
const (
	chicagoCity = "m.01_d4"
	chicagoFilm = "m.01cmp9"
	chicagoBand = "m.01vrwfv"
)

// chicagoGraph opens the Chicago excerpt in the embedded store.
func chicagoGraph(tb testing.TB) kg.Graph {
	tb.Helper()
	cfg := config.Default().KG
	cfg.Files = []string{"testdata/chicago/chicago.nt.gz"}
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// typedSubgoal is a find subgoal whose first round retrieved the real
// facts of anchor along rel.
func typedSubgoal(t *testing.T, e *Engine, anchor string, rel kgqa.Relation) *subgoalRun {
	t.Helper()
	facts, err := e.g.Neighbors(t.Context(), anchor, rel, 0)
	require.NoError(t, err)
	require.NotEmpty(t, facts, "%s has facts along %s", anchor, rel.ID)
	return &subgoalRun{
		run: &run{e: e},
		s:   kgqa.Subgoal{ID: "s1", Text: "Find it.", Op: kgqa.OpFind},
		rec: &kgqa.SubgoalRecord{ID: "s1", Rounds: []*kgqa.Round{{Chosen: []kgqa.Relation{rel}, Facts: facts}}},
	}
}

// A tentative answer "Chicago" is grounded to the Chicago of the type the
// subgoal's relation leads to, whatever the popularity: the city has the
// most relations and leads when nothing is expected, and for a
// birthplace; the film leads for what a writer's story became, the band
// (the least popular) for what originated in the city. With the schema the
// range of people.person.place_of_birth (location.location) types the
// answer; without it, ids name domains and the city holds the relation
// itself.
func TestTentativeGroundedByExpectedType(t *testing.T) {
	schema, err := kg.LoadSchema("testdata/chicago")
	require.NoError(t, err)
	g := chicagoGraph(t)
	h := newHarnessOn(t, g, kgqatest.NewDemoModel(), config.Default().Engine)
	cases := []struct {
		name   string
		anchor string
		rel    kgqa.Relation
		want   string
		types  []string
	}{
		{"birthplace", "m.06kxk2", kgqa.Relation{ID: "people.person.place_of_birth", Dir: kgqa.Out}, chicagoCity, []string{"location.location"}},
		{"story became a film", "m.01c7qd", kgqa.Relation{ID: "film.film.story_by", Dir: kgqa.In}, chicagoFilm, []string{"film.film"}},
		{"band from the city", chicagoCity, kgqa.Relation{ID: "music.artist.origin", Dir: kgqa.In}, chicagoBand, []string{"music.artist"}},
	}
	for _, withSchema := range []bool{true, false} {
		e := mustNew(t, g, h.client, config.Default().Engine)
		if withSchema {
			e = mustNew(t, g, h.client, config.Default().Engine, WithSchema(schema))
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				sg := typedSubgoal(t, e, c.anchor, c.rel)
				res, err := fromTentative(t.Context(), sg, &kgqa.Tentative{Answer: "Chicago", Names: []string{"Chicago"}})
				require.NoError(t, err)
				require.NotEmpty(t, res.Entities)
				assert.Equal(t, c.want, res.Entities[0].ID, "schema %v", withSchema)
				assert.Len(t, res.Entities, 1, "only the compatible homonym is kept")
				require.Len(t, sg.rec.Grounding, 1)
				gr := sg.rec.Grounding[0]
				require.NotNil(t, gr.Expected)
				assert.Equal(t, "relations", gr.Expected.From)
				if withSchema || c.rel.Dir == kgqa.In {
					assert.Equal(t, c.types, gr.Expected.Types)
				} else {
					assert.Empty(t, gr.Expected.Types, "no schema: a range is unknown")
				}
				require.Len(t, gr.Scores, 3, "the three homonyms are scored")
				assert.Equal(t, c.want, gr.Scores[0].ID)
				require.NotNil(t, gr.Scores[0].Compatible)
				assert.True(t, *gr.Scores[0].Compatible)
				assert.GreaterOrEqual(t, gr.Scores[0].Score, 1.0)
				for _, s := range gr.Scores[1:] {
					require.NotNil(t, s.Compatible)
					assert.False(t, *s.Compatible, "%s", s.ID)
					assert.Less(t, s.Score, 1.0)
				}
			})
		}
	}

	// With no expected type, popularity alone: the city (28 relations),
	// the film (20), the band (8).
	e := mustNew(t, g, h.client, config.Default().Engine, WithSchema(schema))
	got, scores, err := e.ground(t.Context(), "Chicago", answerType{})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, []string{chicagoCity, chicagoFilm, chicagoBand}, entityIDs(termsOf(got)))
	for i := 1; i < len(scores); i++ {
		assert.GreaterOrEqual(t, scores[i-1].Degree, scores[i].Degree)
		assert.Nil(t, scores[i].Compatible)
	}
}

// A subgoal whose exploration traversed nothing falls back to its
// wh-word: "where" asks for a location, which ranks the city first.
func TestExpectedTypeFromQuestionWord(t *testing.T) {
	schema, err := kg.LoadSchema("testdata/chicago")
	require.NoError(t, err)
	g := chicagoGraph(t)
	h := newHarnessOn(t, g, kgqatest.NewDemoModel(), config.Default().Engine)
	e := mustNew(t, g, h.client, config.Default().Engine, WithSchema(schema))
	sg := &subgoalRun{run: &run{e: e}, s: kgqa.Subgoal{ID: "s1", Text: "Where did the band play first?", Op: kgqa.OpFind}, rec: &kgqa.SubgoalRecord{}}
	w := expectedType(sg)
	assert.Equal(t, &kgqa.ExpectedType{Types: []string{"location.location"}, From: "question_word"}, w.record())
	got, _, err := e.ground(t.Context(), "Chicago", w)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, chicagoCity, got[0].ID)

	for _, text := range []string{"Find the film's release year.", "Keep those of #1 whose gender is Male."} {
		sg.s.Text = text
		assert.Nil(t, expectedType(sg).record(), "no opening wh-word, no facts: nothing expected (%s)", text)
	}
}

func termsOf(es []kgqa.Entity) []kgqa.Term {
	out := make([]kgqa.Term, len(es))
	for i, e := range es {
		out[i] = kgqa.Term{ID: e.ID, Name: e.Name}
	}
	return out
}

// Through Ask: the reasoner believes Fred Ebb's story became "Chicago"
// and misjudges the facts that show it, so its tentative answer stands.
// The subgoal followed film.film.story_by back from Fred Ebb, so the
// answer is a film: the 2002 film is grounded, not the city that
// popularity alone would pick, and the trace says why.
func TestAskGroundsAStandingTentativeAnswerByType(t *testing.T) {
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the film whose story is by Fred Ebb.", Op: kgqa.OpFind}}}
	for name, c := range map[string]struct {
		opts []Option
		want string
	}{
		"typed":           {nil, chicagoFilm},
		"with the schema": {[]Option{WithSchema(mustSchema(t))}, chicagoFilm},
	} {
		t.Run(name, func(t *testing.T) {
			m := kgqatest.NewDemoModel(kgqatest.Believe("story is by", "Chicago"), kgqatest.Distrust("story is by"))
			h := newHarnessOn(t, chicagoGraph(t), m, config.Default().Engine)
			e := mustNew(t, h.g, h.client, config.Default().Engine, c.opts...)
			ans, err := e.Ask(t.Context(), Request{Question: "Which film's story is by Fred Ebb?", Plan: plan, TopicEntities: []string{"m.01c7qd"}})
			require.NoError(t, err)
			rec := record(t, ans, "s1")
			assert.Equal(t, "tentative", rec.Result.Source, brief(ans))
			require.NotEmpty(t, rec.Rounds)
			assert.Contains(t, rec.Rounds[0].Chosen, kgqa.Relation{ID: "film.film.story_by", Dir: kgqa.In})
			assert.Equal(t, []string{c.want}, entityIDs(ans.Entities), brief(ans))
			require.Len(t, rec.Grounding, 1)
			g := rec.Grounding[0]
			require.NotNil(t, g.Expected)
			assert.Contains(t, g.Expected.Types, "film.film")
			require.Len(t, g.Scores, 3)
			assert.Equal(t, chicagoFilm, g.Scores[0].ID)
			assert.Equal(t, chicagoCity, g.Scores[1].ID, "the city is more popular, not compatible")
			assert.Greater(t, g.Scores[1].Degree, g.Scores[0].Degree)
		})
	}
}

func mustSchema(t *testing.T) *kg.Schema {
	t.Helper()
	s, err := kg.LoadSchema("testdata/chicago")
	require.NoError(t, err)
	return s
}
