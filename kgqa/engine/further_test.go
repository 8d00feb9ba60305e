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

// A subgoal that names two hops ("the championship of the leagues of
// Koudick Krouxtynd"), on the dense world: the model judges the leagues
// aligned, though a league is a step on the way: it has a championship
// of its own, which the subgoal's words name and the leagues' relation
// does not. Asked again, the model judges the leagues misaligned, and
// the subgoal explores on to the championship.
func TestAlignedMiddleOnTheDenseWorld(t *testing.T) { alignedMiddle(t, denseGraph(t, 3, "embedded")) }

func TestAlignedMiddleOnTheDenseWorldOnVirtuoso(t *testing.T) {
	alignedMiddle(t, denseGraph(t, 3, "virtuoso"))
}

func alignedMiddle(t *testing.T, g kg.Graph) {
	const name = "Koudick Krouxtynd"
	const text = "Find the championship of the leagues of " + name + "."
	req := Request{Question: sportChampionship.question, TopicEntities: []string{sportChampionship.topic},
		Plan: &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: text, Op: kgqa.OpFind}}}}
	noClearTop := config.Default().Engine
	noClearTop.ClearTopFacts = false
	m := kgqatest.NewDemoModel()
	h := newHarnessOn(t, g, m, noClearTop)
	first := once(m, "refine", text, func(req openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.JSON(map[string]any{"reason": "wrong", "aligned": true, "answer": "the league", "entities": firstTail(req),
			"used_facts": []int{1}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
	})
	h.server.SetHandler(onceThen(first, "refine", "words go further", func(openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.JSON(map[string]any{"reason": "a league is not a championship", "aligned": false, "answer": "", "entities": []string{},
			"used_facts": []int{}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
	}))
	ans := ask(t, h, req)
	// The scripted model's last verdict keeps the facts along both of
	// the championship relations it chose (one of them leads back to the
	// league): the championship must be among them. Without the check,
	// the league alone is the answer.
	assert.Contains(t, sortedNames(ans.Entities), "Caitoum")
	require.NotEmpty(t, ans.Recoveries)
	assert.Equal(t, kgqa.RecoveryAlignedRecheck, ans.Recoveries[0].Kind)
	assert.Equal(t, "s1", ans.Recoveries[0].Subgoal)
	assert.Equal(t, "misaligned", ans.Recoveries[0].To)
	assert.Equal(t, 6, ans.Usage.LLM.Calls, "one re-ask beyond the method's own")
}

// The model keeps the sport's positions for "the leagues" and judges them
// aligned; asked again (the leagues outrank the positions) it judges them
// misaligned, chooses no other relation, and then, shown the same facts
// in the next round, judges them aligned again. The two disagreeing judgements are not settled by the last one:
// the doubt is put to it again, and the subgoal explores on to the
// leagues.
func TestDoubtReopenedOnTheDenseWorld(t *testing.T) { doubtReopened(t, denseGraph(t, 3, "embedded")) }

func TestDoubtReopenedOnTheDenseWorldOnVirtuoso(t *testing.T) {
	doubtReopened(t, denseGraph(t, 3, "virtuoso"))
}

func doubtReopened(t *testing.T, g kg.Graph) {
	const name = "Koudick Krouxtynd"
	noClearTop := config.Default().Engine
	noClearTop.ClearTopFacts = false
	wrongs := 0
	ans := askTwoHop(t, g, noClearTop, sportChampionship, name, func(m *kgqatest.Model) llmtest.Handler {
		choices := 0
		return func(req openai.ChatCompletionRequest) llmtest.Reply {
			user := llmtest.LastUser(req)
			if choices < 2 && strings.HasPrefix(llmtest.StageOf(req), "relations") && strings.Contains(user, "Find the leagues") {
				// The positions, then (after the re-ask) nothing more.
				choices++
				picked := []map[string]string{}
				if choices == 1 {
					picked = append(picked, map[string]string{"id": "sports.sport.positions", "dir": "out"})
				}
				return llmtest.JSON(map[string]any{"relations": picked, "reason": "wrong"})
			}
			if wrongs < 2 && strings.HasPrefix(llmtest.StageOf(req), "refine") && strings.Contains(user, "Find the leagues") &&
				!strings.Contains(user, "matches the subgoal's words better") && strings.Contains(user, "positions") {
				wrongs++
				return llmtest.JSON(map[string]any{"reason": "wrong", "aligned": true, "answer": "the position", "entities": firstTail(req),
					"used_facts": []int{1}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
			}
			return m.Handle(req)
		}
	})
	assert.Equal(t, 2, wrongs, "the same facts judged aligned twice")
	assert.Equal(t, sportChampionship.answers, sortedNames(ans.Entities))
	var kinds []kgqa.RecoveryKind
	for _, r := range ans.Recoveries {
		kinds = append(kinds, r.Kind)
	}
	assert.Equal(t, []kgqa.RecoveryKind{kgqa.RecoveryAlignedRecheck, kgqa.RecoveryAlignedRecheck}, kinds)
}
