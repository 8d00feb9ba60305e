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
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// The model takes the person's height for "the family" and judges the
// height aligned: its answer is a number, and the next step explores from
// it ("Find the profession of #1"), which a value cannot be. No relation
// offered says "family", so no check by the subgoal's words doubts the
// verdict; the kind of its answer does. Asked again, told why, the model
// judges the height misaligned, the subgoal explores on, and its answer
// comes from its facts that reach people (the parents), whose profession
// is the answer. Without the check the number stands as the first
// subgoal's answer; here the backtrack of the step left with nothing
// mends it too, but a superlative or an intersect reading the number
// is not left with nothing, and would answer from it.
func TestValueAskedAgainOnTheDenseWorld(t *testing.T) {
	valueAskedAgain(t, denseGraph(t, 3, "embedded"))
}

func TestValueAskedAgainOnTheDenseWorldOnVirtuoso(t *testing.T) {
	valueAskedAgain(t, denseGraph(t, 3, "virtuoso"))
}

func valueAskedAgain(t *testing.T, g kg.Graph) {
	const name = "Veathcogith Haickraishond"
	family := parentsProfession
	family.first = "family"
	var mu sync.Mutex // requests come concurrently
	var notes []string
	ans := askTwoHop(t, g, noClearTop(), family, name, func(m *kgqatest.Model) llmtest.Handler {
		rels := once(m, "relations", "Current subgoal: Find the family", func(openai.ChatCompletionRequest) llmtest.Reply {
			return llmtest.JSON(map[string]any{"relations": []map[string]string{{"id": "people.person.height_meters", "dir": "out"}}, "reason": "wrong"})
		})
		return func(req openai.ChatCompletionRequest) llmtest.Reply {
			user := llmtest.LastUser(req)
			if !strings.HasPrefix(llmtest.StageOf(req), "refine") || !strings.Contains(user, "Current subgoal: Find the family") {
				return rels(req)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(user, "is a value, not an entity") {
				notes = append(notes, user)
				return llmtest.JSON(map[string]any{"reason": "a height is no relative", "aligned": false, "answer": "I do not know.", "entities": []string{},
					"used_facts": []int{}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
			}
			if len(notes) == 0 {
				return llmtest.JSON(map[string]any{"reason": "wrong", "aligned": true, "answer": "the height", "entities": []string{tailAlong(req, "height")},
					"used_facts": []int{1}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
			}
			return m.Handle(req)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, notes, 1, "the value verdict asked again once")
	assert.Contains(t, notes[0], `the next step ("Find the profession of #1.") reads it as entities`)
	assert.Equal(t, parentsProfession.answers, sortedNames(ans.Entities))
	var kinds []kgqa.RecoveryKind
	for _, r := range ans.Recoveries {
		kinds = append(kinds, r.Kind)
		if r.Kind == kgqa.RecoveryAlignedRecheck {
			assert.Equal(t, "s1", r.Subgoal)
			assert.Equal(t, "misaligned", r.To)
		}
	}
	// The height's facts reached no person, so the round followed the
	// next-best relation too (the parents) before the verdict; after it,
	// the next round's (the quotations-book id, then the children) gave
	// no aligned fact either, and the backtrack reopened the subgoal with
	// the people its facts reached.
	assert.Equal(t, []kgqa.RecoveryKind{kgqa.RecoveryNextRelation, kgqa.RecoveryAlignedRecheck, kgqa.RecoveryNextRelation, kgqa.RecoveryBacktrack}, kinds)
	for _, e := range ans.Subgoals[1].Anchors {
		assert.True(t, e.IsEntity(), "the profession is asked of people, not of %q", e.Name)
	}
}

// tailAlong is the tail, as the refine prompt renders it, of the first
// fact whose relation holds word ("F2. head -[relation]-> tail").
func tailAlong(req openai.ChatCompletionRequest, word string) string {
	for _, line := range strings.Split(llmtest.LastUser(req), "\n") {
		if _, rest, ok := strings.Cut(line, "-["); ok && strings.HasPrefix(strings.TrimSpace(line), "F") {
			if rel, tail, ok := strings.Cut(rest, "]-> "); ok && strings.Contains(rel, word) {
				return strings.TrimSpace(tail)
			}
		}
	}
	return ""
}

// The model reads Harold Ramis's membership for "the group" and answers
// with the date the membership began, judging it aligned: a value the
// membership node gives as its "from", which the subgoal's words do not
// name, where the same node leads to the group. Asked again, told why,
// it answers with the group the same facts show. Without the check the
// date is the answer.
func TestMediatorDetailAskedAgainOnTheDenseWorld(t *testing.T) {
	mediatorDetailAskedAgain(t, denseGraph(t, 3, "embedded"))
}

func TestMediatorDetailAskedAgainOnTheDenseWorldOnVirtuoso(t *testing.T) {
	mediatorDetailAskedAgain(t, denseGraph(t, 3, "virtuoso"))
}

func mediatorDetailAskedAgain(t *testing.T, g kg.Graph) {
	const sub = "Current subgoal: Find the group of Harold Ramis"
	m := kgqatest.NewDemoModel()
	h := newHarnessOn(t, g, m, config.Default().Engine)
	var mu sync.Mutex // requests come concurrently
	var notes []string
	h.server.SetHandler(onceThen(func(req openai.ChatCompletionRequest) llmtest.Reply {
		user := llmtest.LastUser(req)
		if strings.HasPrefix(llmtest.StageOf(req), "refine") && strings.Contains(user, "a detail of the node they pass through") {
			mu.Lock()
			notes = append(notes, user)
			mu.Unlock()
			return llmtest.JSON(map[string]any{"reason": "the membership's group", "aligned": true, "answer": "Dedrond Drondcick", "entities": []string{"m.dzf86"},
				"used_facts": []int{2}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
		}
		return m.Handle(req)
	}, "refine", sub, func(req openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.JSON(map[string]any{"reason": "wrong", "aligned": true, "answer": "the start", "entities": []string{tailAlong(req, "from")},
			"used_facts": []int{1}, "sufficient": false, "final_answer": "", "final_entities": []string{}})
	}))
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the group of Harold Ramis.", Op: kgqa.OpFind}}}
	ans := ask(t, h, Request{Question: "What is the group of Harold Ramis?", TopicEntities: []string{"m.01pjr7"}, Plan: plan})
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, notes, 1, "the date asked again once")
	assert.Contains(t, notes[0], "group membership: from")
	assert.Equal(t, []string{"Dedrond Drondcick"}, sortedNames(ans.Entities))
	require.NotEmpty(t, ans.Recoveries)
	assert.Equal(t, []kgqa.Recovery{{Kind: kgqa.RecoveryAlignedRecheck, Subgoal: "s1", From: "aligned: 2015-03-17T06:36:00", To: "aligned: Dedrond Drondcick"}}, ans.Recoveries)
}
