package kgqatest

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

func request(stage, user string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Metadata: map[string]string{llmtest.StageKey: stage},
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "scripted test"},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	}
}

func TestDemoModelKnobs(t *testing.T) {
	gold := demokg.FreebaseQuestions()[0]
	sub := "Current subgoal: Find the country that contains Weeze Airport.\n"
	for _, tc := range []struct {
		name   string
		opts   []Option
		stage  string
		user   string
		status int
		want   string // a JSON value the reply must equal
	}{
		{"gold plan for a demo question", nil, "plan", "Question: " + gold.Question, 0, string(gold.Plan)},
		{"one find step for another question", nil, "plan", "Question: Who?", 0,
			`{"version":1,"subgoals":[{"id":"s1","text":"Who?","op":"find"}]}`},
		{"refused plan", []Option{RefusePlan(gold.Question)}, "plan", "Question: " + gold.Question, 400, ""},
		{"no belief", nil, "tentative", sub, 0, `{"answer":"I am not sure.","entities":[]}`},
		{"belief by phrase", []Option{Believe("weeze airport", "Netherlands")}, "tentative", sub, 0,
			`{"answer":"Netherlands","entities":["Netherlands"]}`},
		{"a phrase wins over the default belief", []Option{BelieveAlways("Atlantis"), Believe("weeze airport", "Netherlands")}, "tentative", sub, 0,
			`{"answer":"Netherlands","entities":["Netherlands"]}`},
		{"default belief", []Option{BelieveAlways("Atlantis"), Believe("river", "Rhine")}, "tentative", sub, 0,
			`{"answer":"Atlantis","entities":["Atlantis"]}`},
		{"recognised answer in the facts", []Option{Recognise("Which country?", "Germany")}, "sufficiency",
			"Question: Which country?\nF1. Weeze Airport [m.01785m] -[location.location.containedby]-> Germany [m.0345h]\n", 0,
			`{"sufficient":true,"answer":"Germany","entities":["m.0345h"],"reason":"scripted"}`},
		{"unknown stage", nil, "nonsense", "", 500, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewDemoModel(tc.opts...)
			r := m.Handle(request(tc.stage, tc.user))
			assert.Equal(t, tc.status, r.Status)
			if tc.want != "" {
				require.True(t, json.Valid([]byte(r.Content)), r.Content)
				assert.JSONEq(t, tc.want, r.Content)
			}
			assert.Equal(t, 1, m.Calls(tc.stage))
			assert.Equal(t, 1, m.Total())
		})
	}
}

func TestDemoModelCounts(t *testing.T) {
	m := NewDemoModel()
	for _, stage := range []string{"plan", "plan", "tentative"} {
		m.Handle(request(stage, "Question: Who?"))
	}
	assert.Equal(t, 2, m.Calls("plan"))
	assert.Equal(t, 1, m.Calls("tentative"))
	assert.Equal(t, 3, m.Total())
	m.Reset()
	assert.Zero(t, m.Calls("plan"))
	assert.Zero(t, m.Total())
}

// The two demo sets share a question with different gold plans; each
// model gives its own graph's plan.
func TestWikidataModelGivesWikidataPlans(t *testing.T) {
	wd, fb := demokg.WikidataQuestions()[0], demokg.FreebaseQuestions()[0]
	require.Equal(t, fb.Question, wd.Question)
	require.NotEqual(t, string(fb.Plan), string(wd.Plan))
	r := NewWikidataDemoModel().Handle(request("plan", "Question: "+wd.Question))
	assert.JSONEq(t, string(wd.Plan), r.Content)
	r = NewDemoModel().Handle(request("plan", "Question: "+fb.Question))
	assert.JSONEq(t, string(fb.Plan), r.Content)
}
