package oracle

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// sampleData is prompt data for every stage the engine has. A stage added
// to prompts.Names without a sample here fails TestEveryPromptKindIsRecognised:
// the oracle must learn to answer it before it can measure anything.
func sampleData() map[string]any {
	view := prompts.PlanView{Question: "What is the capital of the country that contains Weeze Airport?", Current: "s2",
		Subgoals: []prompts.SubgoalLine{{ID: "s1", Text: "Find the countries that contains Weeze Airport.", Op: "find"},
			{ID: "s2", Text: "Find the capital of #1.", Op: "find", Needs: "s1"}},
		Known: []string{"s1: Germany"}}
	facts := []string{"Germany [m.0345h] -[country: capital]-> Berlin [m.0156q]"}
	return map[string]any{
		prompts.Plan:        prompts.PlanData{Question: view.Question, Ops: []string{"find", "count"}},
		prompts.PlanFewShot: prompts.PlanData{Question: view.Question, Ops: []string{"find", "count"}},
		prompts.Mentions:    prompts.MentionsData{Question: view.Question},
		prompts.Tentative:   prompts.SubgoalData{Plan: view, Subgoal: "Find the capital of #1 (Germany)."},
		prompts.Relations: prompts.RelationsData{Plan: view, Subgoal: "Find the capital of #1 (Germany).", Anchors: []string{"Germany [m.0345h]"}, Max: 3,
			Out: []prompts.RelationGroup{{Type: "location.country", Names: []string{"capital"}}}},
		prompts.Prune:       prompts.PruneData{Plan: view, Subgoal: "Find the capital of #1 (Germany).", Candidates: facts, Keep: 3},
		prompts.Refine:      prompts.RefineData{Plan: view, Subgoal: "Find the capital of #1 (Germany).", Tentative: "Berlin", Facts: facts},
		prompts.Sufficiency: prompts.SufficiencyData{Plan: view, Facts: facts},
		prompts.Final:       prompts.SufficiencyData{Plan: view, Facts: facts},
		prompts.Select:      prompts.SelectData{Plan: view, Subgoal: "Keep the ones in Europe.", Members: []string{"Berlin [m.0156q]"}, Facts: facts},
		prompts.LQTAtoms:    prompts.LQTAtomsData{Question: view.Question, Ops: []string{"find", "count"}},
		prompts.FollowUp: prompts.FollowUpData{History: []prompts.Turn{{Role: "user", Text: "Which country contains Weeze Airport?"}, {Role: "assistant", Text: "Germany"}},
			Message: view.Question},
		prompts.LQTRelation: prompts.LQTRelationData{Question: view.Question, A: "Find the capital of #1 [Find the countries that contains Weeze Airport.].", B: "Find the countries that contains Weeze Airport."},
		prompts.LQTMerge: prompts.LQTMergeData{Question: view.Question, Tree: "Find the capital of #1.", Parent: "Find the capital of #1 [Find the countries that contains Weeze Airport.].",
			Child: "Find the countries that contains Weeze Airport.", Subtree: "Find the countries that contains Weeze Airport."},
	}
}

// chatRequest is the request the engine's client sends for stage, with
// its schema as response_format when schema is true.
func chatRequest(t *testing.T, stage string, data any, schema bool) openai.ChatCompletionRequest {
	t.Helper()
	req, err := prompts.Builtin.Request(kgqa.Reasoner, stage, data)
	require.NoError(t, err)
	out := openai.ChatCompletionRequest{Model: ModelID}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if schema {
		out.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: req.SchemaName, Schema: req.Schema}}
	}
	return out
}

// TestEveryPromptKindIsRecognised fails loudly when the engine has a
// prompt the oracle cannot tell apart: by the reply schema's name, and
// from the wording alone (an endpoint configured without JSON schemas).
func TestEveryPromptKindIsRecognised(t *testing.T) {
	data := sampleData()
	for _, stage := range prompts.Names {
		t.Run(stage, func(t *testing.T) {
			d, ok := data[stage]
			require.True(t, ok, "the engine has a prompt kind %q the oracle has no sample of: teach the oracle to answer it", stage)
			assert.Equal(t, stage, Stage(chatRequest(t, stage, d, true), ""), "by schema name")
			assert.Equal(t, stage, Stage(chatRequest(t, stage, d, false), ""), "from the prompt's wording alone")
		})
	}
	assert.Empty(t, Stage(openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Tell me a joke."}}}, ""),
		"a prompt of no known kind is not guessed")
}
