package engine

import (
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

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
	var mu sync.Mutex // requests come concurrently
	wrongs := 0
	ans := askTwoHop(t, g, noClearTop(), sportChampionship, name, func(m *kgqatest.Model) llmtest.Handler {
		choices := 0
		return func(req openai.ChatCompletionRequest) llmtest.Reply {
			user := llmtest.LastUser(req)
			mu.Lock()
			defer mu.Unlock()
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
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, wrongs, "the same facts judged aligned twice")
	assert.Equal(t, sportChampionship.answers, sortedNames(ans.Entities))
	var kinds []kgqa.RecoveryKind
	for _, r := range ans.Recoveries {
		kinds = append(kinds, r.Kind)
	}
	assert.Equal(t, []kgqa.RecoveryKind{kgqa.RecoveryAlignedRecheck, kgqa.RecoveryAlignedRecheck}, kinds)
}
