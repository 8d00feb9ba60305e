package engine

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// parentsHeight is gen-superlative-4 of the dense world (parog dataset
// generate --shapes superlative --per-shape 10 --seed 5), with the plan a
// planner gives it. George Burns has four parents (people.person.parents,
// and people.person.children in), three of them with a height; the
// tallest is Piovigiork Rairksio (5387.125).
func parentsHeight() Request {
	return Request{Question: "Which of the parents of George Burns has the largest height meters?", TopicEntities: []string{"m.01t94_1"},
		Plan: &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
			{ID: "s1", Text: "Find the parents of George Burns.", Op: kgqa.OpFind},
			{ID: "s2", Text: "Find which of #1 has the largest height meters.", Op: kgqa.OpSuperlative, Needs: []string{"s1"},
				Args: &kgqa.Args{Attribute: "height meters", Order: "max"}},
		}}}
}

// George Burns's parents, whom the parents' facts reach.
var burnsParents = []string{"Broulotel Poukoumdair", "Corichail Faibriond", "Pinex Jainykai", "Piovigiork Rairksio"}

// "Which of the parents of George Burns has the largest height meters?"
// on the dense world: the model judges the parents' facts misaligned, so
// the superlative gets no parent, or only the one the model believes;
// the engine reopens the parents' subgoal with the entities its facts
// reached and ranks them (see superlativeBacktracks).
func TestSuperlativeBacktracksOnTheDenseWorld(t *testing.T) {
	superlativeBacktracks(t, denseGraph(t, 3, "embedded"))
}

func TestSuperlativeBacktracksOnTheDenseWorldOnVirtuoso(t *testing.T) {
	superlativeBacktracks(t, denseGraph(t, 3, "virtuoso"))
}

func superlativeBacktracks(t *testing.T, g kg.Graph) {
	t.Run("right", func(t *testing.T) {
		ans := ask(t, newHarnessOn(t, g, kgqatest.NewDemoModel(), config.Default().Engine), parentsHeight())
		assert.Equal(t, []string{"Piovigiork Rairksio"}, sortedNames(ans.Entities))
		assert.Empty(t, ans.Recoveries)
	})

	// The model judges the parents' facts misaligned, every time it is
	// asked, the re-ask included (the refine reply is aligned false, its
	// tentative answer and no entity), so the first subgoal keeps its
	// tentative answer. Believing nothing ("I am not sure."), it leaves
	// the superlative no member to rank: the answer was none. Believing
	// one parent, it leaves the superlative that parent, no find's
	// evidence: the answer was that parent. Either way the superlative
	// is starved: the first subgoal is reopened with the entities its
	// facts reached along the parents, and the superlative, run again,
	// ranks them by their heights.
	for _, c := range []struct {
		name   string
		belief []string
		from   string // the first subgoal's answer before the backtrack
	}{{"nothing to rank", nil, "I am not sure."}, {"a believed parent", []string{"Pinex Jainykai"}, "Pinex Jainykai"}} {
		t.Run(c.name, func(t *testing.T) {
			opts := []kgqatest.Option{kgqatest.Distrust("Find the parents")}
			if c.belief != nil {
				opts = append(opts, kgqatest.Believe("parents", c.belief...))
			}
			ans := ask(t, newHarnessOn(t, g, kgqatest.NewDemoModel(opts...), config.Default().Engine), parentsHeight())
			assert.Equal(t, []string{"Piovigiork Rairksio"}, sortedNames(ans.Entities))
			var back []kgqa.Recovery
			for _, r := range ans.Recoveries {
				if r.Kind == kgqa.RecoveryBacktrack {
					back = append(back, r)
				}
			}
			require.Len(t, back, 1, "one backtrack: %+v", ans.Recoveries)
			assert.Equal(t, "s1", back[0].Subgoal)
			assert.Equal(t, c.from, back[0].From)
			assert.True(t, strings.HasPrefix(back[0].To, "people.person.parents (out): "), back[0].To)
			s1, s2 := record(t, ans, "s1"), record(t, ans, "s2")
			assert.Equal(t, "evidence", s1.Result.Source)
			assert.Equal(t, burnsParents, sortedNames(s1.Result.Entities))
			require.NotNil(t, s2.SetOp)
			assert.Equal(t, "exact", s2.SetOp.Method, "the heights ranked, not the tentative answer")
			// The three parents with a height were ranked (Virtuoso
			// prints an xsd:float with six digits: 5387.12).
			assert.Len(t, s2.SetOp.Values, 3)
			assert.Contains(t, s2.SetOp.Values, "m.dzp9a_1mim")
		})
	}
}

// Two-hop compositions on the dense world: in the second hop the model
// chooses a relation the wrong way round and answers with the hop's own
// anchor, twice; the engine overrules the verdict and explores on to the
// right answer (see echoOverruled).
func TestEchoOverruledOnTheDenseWorld(t *testing.T) { echoOverruled(t, denseGraph(t, 3, "embedded")) }

func TestEchoOverruledOnTheDenseWorldOnVirtuoso(t *testing.T) {
	echoOverruled(t, denseGraph(t, 3, "virtuoso"))
}

// In the second subgoal, which starts from the first one's answer, the
// model chooses the first hop's relation walked back ("in" from the
// entity it reached), whose facts point at the anchor, and answers with
// the anchor itself, judging the facts aligned. Asked again (the anchor
// "is the entity the subgoal starts from"), it gives the same answer.
// The engine overrules that verdict: no fact shown reaches the anchor,
// so the answer is where the facts start. The subgoal goes on, from the
// anchor along the relations it has not tried, and finds the answer.
// The relation choice needs clear tops off: the right relation is the
// clear top of the second subgoal's offer.
func echoOverruled(t *testing.T, g kg.Graph) {
	for _, c := range []struct {
		run    string
		c      twoHop
		name   string
		back   string // the first hop's relation, walked back from the anchor
		anchor string // the first subgoal's answer, the second's anchor
	}{
		{"parents", parentsProfession, "Veathcogith Haickraishond", "people.person.parents", "T. Rajendar"},
		{"film", filmSoundtrack, "Zakrurkkick Cucechix", "film.director.film", "Ocean's Eleven"},
		{"leagues", sportChampionship, "Koudick Krouxtynd", "sports.sport.leagues", "Colorado College"},
	} {
		t.Run(c.run, func(t *testing.T) {
			sub := "Current subgoal: Find the " + c.c.second + " of"
			m := kgqatest.NewDemoModel()
			h := newHarnessOn(t, g, m, noClearTop())
			rels := once(m, "relations", sub, func(openai.ChatCompletionRequest) llmtest.Reply {
				return llmtest.JSON(map[string]any{"relations": []map[string]string{{"id": c.back, "dir": "in"}}, "reason": "wrong"})
			})
			// The first fact's tail, as the prompt shows a fact along a
			// relation walked back, is the anchor.
			echo := func(req openai.ChatCompletionRequest) llmtest.Reply {
				return llmtest.JSON(map[string]any{"reason": "wrong", "aligned": true, "answer": c.anchor, "entities": firstTail(req),
					"used_facts": []int{1}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
			}
			h.server.SetHandler(onceThen(onceThen(rels, "refine", sub, echo), "refine", "is the entity the subgoal starts from", echo))
			req := c.c.request(c.name)
			var verdicts []kgqa.Verdict
			req.OnEvent = func(ev kgqa.Event) {
				if ev.Type == kgqa.EventRefinement && ev.Subgoal == "s2" && ev.Verdict != nil {
					verdicts = append(verdicts, *ev.Verdict)
				}
			}
			ans := ask(t, h, req)

			assert.Equal(t, c.c.answers, sortedNames(ans.Entities))
			assert.Equal(t, []kgqa.Recovery{{Kind: kgqa.RecoveryAlignedRecheck, Subgoal: "s2", From: "aligned: " + c.anchor, To: "misaligned (overruled)"}}, ans.Recoveries,
				"asked again, the model kept its answer, which the engine overruled")
			require.NotEmpty(t, verdicts)
			assert.Equal(t, overruledOwnAnchor, verdicts[0].Overruled)
			assert.False(t, verdicts[0].Aligned, "the overruled verdict counts as misaligned")
			assert.Empty(t, verdicts[0].Entities)
			s2 := record(t, ans, "s2")
			require.Len(t, s2.Rounds, 2, "the wrong relation's round and one more from the anchor")
			assert.Equal(t, []kgqa.Relation{{ID: c.back, Dir: kgqa.In}}, s2.Rounds[0].Chosen)
			assert.Equal(t, []string{c.anchor}, sortedNames(s2.Rounds[1].Anchors))
			assert.Zero(t, s2.Rounds[1].Depth, "from the anchor, along the relations not tried")
			assert.NotContains(t, s2.Rounds[1].Chosen, kgqa.Relation{ID: c.back, Dir: kgqa.In})
			assert.NotContains(t, sortedNames(s2.Result.Entities), c.anchor)
			// The right run's six calls, the re-ask, and the second
			// round's relation choice and verdict.
			assert.Equal(t, 9, ans.Usage.LLM.Calls)
		})
	}
}
