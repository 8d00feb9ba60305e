package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// The answer places every accounted LLM call on its timeline, each inside
// the question's wall time, with the stages the usage counts.
func TestAskRecordsCallSpans(t *testing.T) {
	q := demoQuestion(t, "demo-01")
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	u := ans.Usage
	require.Len(t, u.Calls, u.LLM.Calls)
	stages, tokens := map[kgqa.Stage]int{}, 0
	for _, c := range u.Calls {
		stages[c.Stage]++
		tokens += c.Tokens
		assert.GreaterOrEqual(t, c.StartMS, int64(0))
		assert.LessOrEqual(t, c.StartMS+c.MS, u.WallMS, "call %+v ends after the question", c)
	}
	for stage, tally := range u.LLM.ByStage {
		assert.Equal(t, tally.Calls, stages[stage], "stage %s", stage)
	}
	assert.Equal(t, u.LLM.TotalTokens, tokens)
}

func TestCallSpans(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	calls := []kgqa.Call{
		{Role: kgqa.Reasoner, Stage: "plan", Start: start.Add(5 * time.Millisecond), Latency: 20 * time.Millisecond, PromptTokens: 10, CompletionTokens: 2},
		{Role: kgqa.Reasoner, Stage: "refine", Latency: time.Millisecond},
		{Role: kgqa.Planner, Stage: "plan", Start: start.Add(-time.Millisecond), Latency: 3 * time.Millisecond, Err: "boom"},
	}
	assert.Equal(t, []kgqa.CallSpan{
		{Role: kgqa.Reasoner, Stage: "plan", StartMS: 5, MS: 20, Tokens: 12},
		{Role: kgqa.Planner, Stage: "plan", StartMS: 0, MS: 3, Failed: true},
	}, callSpans(calls, start))
}
