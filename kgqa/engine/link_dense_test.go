package engine

import (
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

// specializationsMet is a conjunction of the dense world (parog dataset
// generate --shapes conjunction --seed 5: gen-conjunction-37),
// with the plan a planner gives it. The profession Giopreark Suhaind has
// two specializations, Guitarist-GB and Musician-GB; Treagith
// Veackdrioca has three, Professor-GB, Musician-GB and Record
// producer-GB, and is itself a specialization of two, Teacher-GB and
// Bassist: the same relation the other way round, whose words are as
// close to "specializations" as the right way's.
var specializationsMet = Request{
	Question:      "Among the specializations of Giopreark Suhaind, which is specialization of Treagith Veackdrioca?",
	TopicEntities: []string{"m.dzp9d_1h", "m.dzp9d_4"},
	Plan: &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the specializations of Giopreark Suhaind.", Op: kgqa.OpFind},
		{ID: "s2", Text: "Find the specializations of Treagith Veackdrioca.", Op: kgqa.OpFind},
		{ID: "s3", Text: "Find the professions in both #1 and #2.", Op: kgqa.OpIntersect, Needs: []string{"s1", "s2"}},
	}},
}

// An intersect that comes back empty because one branch followed the
// wrong relation, on the dense world, where the model errs once, and the
// same question where it is right.
func TestEmptyIntersectMeetsOnTheDenseWorld(t *testing.T) {
	emptyIntersect(t, denseGraph(t, 3, "embedded"))
}

func TestEmptyIntersectMeetsOnTheDenseWorldOnVirtuoso(t *testing.T) {
	emptyIntersect(t, denseGraph(t, 3, "virtuoso"))
}

func emptyIntersect(t *testing.T, g kg.Graph) {
	gold := []string{"Musician-GB"}
	// Plan ordering: both branches explored, each with its own relation
	// choice and verdict (cost ordering would check the larger against
	// the smaller's candidates, with no verdict to get wrong). Neither
	// branch's offer has a clear top, "specializations" and
	// "specialization of" sharing their words, so the relation choice is
	// asked with clear_top_facts on.
	cfg := config.Default().Engine
	cfg.Ordering = OrderingPlan
	askMet := func(t *testing.T, wrap func(*kgqatest.Model) llmtest.Handler) *kgqa.Answer {
		t.Helper()
		m := kgqatest.NewDemoModel()
		h := newHarnessOn(t, g, m, cfg)
		if wrap != nil {
			h.server.SetHandler(wrap(m))
		}
		return ask(t, h, specializationsMet)
	}

	// Right, the model keeps Treagith Veackdrioca's specializations (both
	// ways round: the words do not say which), the intersect meets
	// Giopreark Suhaind's at Musician-GB, and nothing is revisited.
	var right *kgqa.Answer
	t.Run("right", func(t *testing.T) {
		right = askMet(t, nil)
		assert.Equal(t, gold, sortedNames(right.Entities))
		assert.Empty(t, right.Recoveries)
		require.NotNil(t, right.Certificate)
		assert.True(t, right.Certificate.Verified, right.Certificate.Error)
	})

	// The model reads "specialization of" for s2 and follows
	// people.profession.specialization_of out of Treagith Veackdrioca,
	// to the two professions it is a specialization of, and judges those
	// facts aligned. No check doubts the verdict: the relation's words
	// are those of the right one (it is the right relation followed the
	// other way), and it reaches professions as the subgoal asks. The
	// intersect comes back empty; s2, a branch from a topic entity, is
	// reopened along the relation that joins Treagith Veackdrioca to
	// s1's answers, chosen by the subgoal's words and asked of the KG,
	// and s3 meets at Musician-GB, with no model call beyond the right
	// run's. Without the link, s2's next-best entities are the two its
	// wrong relation reached, which meet nothing either, and the answer
	// is empty.
	t.Run("wrong relation judged aligned", func(t *testing.T) {
		ans := askMet(t, func(m *kgqatest.Model) llmtest.Handler {
			const marker = "Current subgoal: Find the specializations of Treagith"
			rels := once(m, "relations", marker, func(openai.ChatCompletionRequest) llmtest.Reply {
				return llmtest.JSON(map[string]any{"relations": []map[string]string{{"id": "people.profession.specialization_of", "dir": "out"}}, "reason": "wrong"})
			})
			return onceThen(rels, "refine", marker, func(req openai.ChatCompletionRequest) llmtest.Reply {
				return llmtest.JSON(map[string]any{"reason": "wrong", "aligned": true, "answer": "the profession", "entities": firstTail(req),
					"used_facts": []int{1}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
			})
		})
		assert.Equal(t, gold, sortedNames(ans.Entities))
		require.Len(t, ans.Recoveries, 1, "the backtrack alone: no check doubted the verdict first")
		rec := ans.Recoveries[0]
		assert.Equal(t, kgqa.RecoveryBacktrack, rec.Kind)
		assert.Equal(t, "s2", rec.Subgoal)
		assert.Contains(t, []string{"Teacher-GB", "Bassist"}, rec.From, "the wrong answer the verdict kept")
		assert.Contains(t, rec.To, "meeting s3")
		assert.Equal(t, "people.profession.specializations (out), meeting s3: Musician-GB", rec.To)

		s2 := record(t, ans, "s2")
		require.Len(t, s2.Rounds, 2, "the model's round and the link's")
		assert.Equal(t, []kgqa.Relation{{ID: "people.profession.specialization_of", Dir: kgqa.Out}}, s2.Rounds[0].Chosen)
		link := s2.Rounds[1]
		assert.Equal(t, []kgqa.Relation{{ID: "people.profession.specializations", Dir: kgqa.Out}}, link.Chosen)
		assert.Equal(t, "link", link.ChosenBy)
		assert.Equal(t, "backtrack", link.Retry)
		require.Len(t, link.Facts, 1, "the link's fact, from Treagith Veackdrioca to Musician-GB")
		assert.Equal(t, "Musician-GB", link.Facts[0].Tail.Name)
		require.NotNil(t, ans.Certificate)
		assert.True(t, ans.Certificate.Verified, "the link's fact certifies the answer: %s", ans.Certificate.Error)
		assert.Equal(t, gold, sortedNames(s2.Result.Entities))
		assert.Equal(t, []string{"Guitarist-GB", "Musician-GB"}, sortedNames(record(t, ans, "s1").Result.Entities), "s1 is untouched")
		if right != nil {
			assert.Equal(t, right.Usage.LLM.Calls, ans.Usage.LLM.Calls, "the link asks the KG only")
		}
	})
}
