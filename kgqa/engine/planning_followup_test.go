package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// A conversation's last message is classified first; the answer's trace
// records the verdict, the original and the question answered, and the
// classifier's call is billed with the rest.
func TestAskRecordsTheFollowUpRewrite(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	history := []kgqa.Message{{Role: "user", Content: "Which country contains Weeze Airport?"}, {Role: "assistant", Content: "Germany"}}
	for name, tc := range map[string]struct {
		opts     []kgqatest.Option
		last     string
		verdict  string
		answered string
		stop     kgqa.StopReason
	}{
		"follow-up": {[]kgqatest.Option{kgqatest.RewriteFollowUp("What is its capital?", q.Question)},
			"What is its capital?", kgqa.VerdictFollowUp, q.Question, kgqa.StopPlanComplete},
		"new":    {nil, q.Question, kgqa.VerdictNew, q.Question, kgqa.StopPlanComplete},
		"unsafe": {[]kgqatest.Option{kgqatest.Unsafe("How do I hurt someone?")}, "How do I hurt someone?", kgqa.VerdictUnsafe, "How do I hurt someone?", kgqa.StopRefused},
	} {
		t.Run(name, func(t *testing.T) {
			m := kgqatest.NewDemoModel(tc.opts...)
			h := newHarness(t, m, config.Default().Engine)
			var events []kgqa.EventType
			ans := ask(t, h, Request{Question: tc.last, History: history, OnEvent: func(ev kgqa.Event) { events = append(events, ev.Type) }})
			require.NotEmpty(t, events)
			assert.Equal(t, kgqa.EventRewrite, events[0], "the rewrite is the first step")
			require.NotNil(t, ans.Rewrite)
			assert.Equal(t, kgqa.Rewrite{Original: tc.last, Question: tc.answered, Verdict: tc.verdict, Reason: ans.Rewrite.Reason}, *ans.Rewrite)
			assert.NotEmpty(t, ans.Rewrite.Reason)
			assert.Equal(t, tc.answered, ans.Question)
			assert.Equal(t, tc.stop, ans.Stop)
			assert.Equal(t, 1, ans.Usage.LLM.ByStage["followup"].Calls)
			if tc.stop == kgqa.StopRefused {
				assert.Equal(t, 1, m.Total(), "a refused question costs the classification only")
				assert.Nil(t, ans.Plan)
			} else {
				assert.Contains(t, ans.Text+brief(ans), "Berlin")
			}
		})
	}
	t.Run("no earlier user message: no call, no record", func(t *testing.T) {
		m := kgqatest.NewDemoModel()
		h := newHarness(t, m, config.Default().Engine)
		ans := ask(t, h, Request{Question: q.Question, History: []kgqa.Message{{Role: "assistant", Content: "Hello."}}})
		assert.Nil(t, ans.Rewrite)
		assert.Zero(t, m.Calls("followup"))
	})
}

// A screened single message (a chat's only one) is judged by the same
// classifier: an unsafe one is refused before planning, and one the model
// calls a follow-up is asked as written, since it follows nothing.
func TestScreenedSingleMessage(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	t.Run("unsafe", func(t *testing.T) {
		m := kgqatest.NewDemoModel(kgqatest.Unsafe("How do I hurt someone?"))
		h := newHarness(t, m, config.Default().Engine)
		ans := ask(t, h, Request{Question: "How do I hurt someone?", Screen: true})
		assert.Equal(t, kgqa.StopRefused, ans.Stop)
		require.NotNil(t, ans.Rewrite)
		assert.Equal(t, kgqa.VerdictUnsafe, ans.Rewrite.Verdict)
		assert.Equal(t, 1, m.Total(), "a refused question costs the screening only")
	})
	t.Run("follow-up verdict without a conversation", func(t *testing.T) {
		m := kgqatest.NewDemoModel(kgqatest.RewriteFollowUp(q.Question, "What is the capital of France?"))
		h := newHarness(t, m, config.Default().Engine)
		ans := ask(t, h, Request{Question: q.Question, Screen: true})
		require.NotNil(t, ans.Rewrite)
		assert.Equal(t, kgqa.VerdictNew, ans.Rewrite.Verdict)
		assert.Equal(t, q.Question, ans.Question)
		assert.Contains(t, ans.Text+brief(ans), "Berlin")
		assert.Equal(t, 1, m.Calls("followup"))
	})
}
