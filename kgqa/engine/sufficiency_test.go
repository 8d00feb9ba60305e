package engine

import (
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// A find whose rounds found no aligned evidence retries along its
// anchors' untried relations; the retry's refine call judges sufficiency
// as the rounds' did, so an answer the retry shows stops the run without
// a call of its own (the rounds' "not sufficient" was judged on the
// evidence the retry replaced).
func TestRetryJudgesSufficiencyInItsRefineCall(t *testing.T) {
	q := demoQuestion(t, "demo-02")
	m := kgqatest.NewDemoModel(kgqatest.Recognise(q.Question, "2014 World Series"))
	var mu sync.Mutex
	misread := false
	handle := func(req openai.ChatCompletionRequest) llmtest.Reply {
		mu.Lock()
		first := !misread && llmtest.StageOf(req) == "refine" && strings.Contains(llmtest.LastUser(req), "Current subgoal: Find the championships")
		misread = misread || first
		mu.Unlock()
		if first {
			return llmtest.JSON(map[string]any{"aligned": false, "answer": "", "entities": []string{}, "used_facts": []int{},
				"reason": "scripted: misread", "sufficient": false, "final_answer": "", "final_entities": []string{}})
		}
		return m.Handle(req)
	}
	cfg := config.Default().Engine
	cfg.MaxRounds = 1
	h := newHarness(t, m, cfg, llmtest.WithHandler(handle))
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q), Plan: compositionPlan})
	s2 := record(t, ans, "s2")
	require.NotEmpty(t, s2.Rounds)
	assert.Equal(t, retryUntried, s2.Rounds[len(s2.Rounds)-1].Retry, brief(ans))
	assert.Equal(t, kgqa.StopSufficient, ans.Stop, brief(ans))
	assert.Equal(t, "s2", ans.Final.After)
	assert.Zero(t, m.Calls("sufficiency"))
}
