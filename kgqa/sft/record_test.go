package sft

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
)

// line is a record as sparql2plan writes it for a two-step question.
const line = `{"id":"WebQTrn-1","source":"webqsp","split":"train","source_split":"train",
"messages":[{"role":"system","content":"Plan the question."},
{"role":"user","content":"what country is the grand bahama island in?"},
{"role":"assistant","content":"{\"version\":1,\"subgoals\":[{\"id\":\"s1\",\"text\":\"Find Grand Bahama.\",\"op\":\"find\"},{\"id\":\"s2\",\"text\":\"Find the country that contains #1.\",\"needs\":[\"s1\"],\"op\":\"find\"}]}"}],
"kinds":["composition"],"rendering":"template","question_used":"original",
"plan":{"version":1,"subgoals":[{"id":"s1","text":"Find Grand Bahama.","op":"find"},{"id":"s2","text":"Find the country that contains #1.","needs":["s1"],"op":"find"}]},
"renderings":{"template":["Find Grand Bahama.","Find the country that contains #1."]},
"question":"what country is the grand bahama island in?"}`

func decode(t *testing.T, mutate func(r *Record)) *Record {
	t.Helper()
	var r Record
	require.NoError(t, json.Unmarshal([]byte(line), &r))
	if mutate != nil {
		mutate(&r)
	}
	return &r
}

func TestValidate(t *testing.T) {
	r := decode(t, nil)
	require.NoError(t, r.Validate())
	require.NotNil(t, r.Gold())
	assert.Equal(t, "s2", r.Gold().AnswerID())
	assert.Equal(t, []kgqa.Kind{kgqa.KindComposition}, r.Kinds)
	assert.Equal(t, "Plan the question.", r.System())
	assert.Equal(t, "what country is the grand bahama island in?", r.UserText())
	assert.Len(t, r.Prompt(), 2, "the prompt stops before the assistant's reply")

	for _, tc := range []struct {
		name   string
		mutate func(r *Record)
		want   string // "" for a valid record
	}{
		{"no system message", func(r *Record) { r.Messages = r.Messages[1:] }, ""},
		{"no plan field", func(r *Record) { r.Plan = nil }, ""},
		{"plan field without version", func(r *Record) { r.Plan.Version = 0 }, ""},
		{"missing id", func(r *Record) { r.ID = " " }, "missing id"},
		{"source split as split", func(r *Record) { r.Split = SourceTest }, `split "test" is not train or validation`},
		{"roles swapped", func(r *Record) { r.Messages[1], r.Messages[2] = r.Messages[2], r.Messages[1] }, `message 2 has role "assistant", want "user"`},
		{"empty question", func(r *Record) { r.Messages[1].Content = "  " }, "message 2 (user) is empty"},
		{"reply not a plan", func(r *Record) { r.Messages[2].Content = "The Bahamas" }, "assistant message"},
		{"plan field differs", func(r *Record) { r.Plan.Subgoals[1].Text = "Find the capital of #1." }, "plan field differs"},
		{"plan field invalid", func(r *Record) { r.Plan.Subgoals[1].Needs = []string{"s9"} }, "plan field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := decode(t, tc.mutate)
			err := r.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidRecord)
			assert.ErrorContains(t, err, tc.want)
			assert.Nil(t, r.Gold(), "no gold plan from an invalid record")
		})
	}
}

// TestRoundTrip checks that writing a record keeps every field the
// reader uses: the writer and the reader share this one type.
func TestRoundTrip(t *testing.T) {
	r := decode(t, nil)
	agrees, f1 := true, 0.8
	r.LabelAgrees, r.Consistency = &agrees, &f1
	out, err := json.Marshal(r)
	require.NoError(t, err)
	var back Record
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, *r, back)
}

// TestValidateConditions: a record whose plan carries a version 2
// condition (WebQTrn-3's text value) validates with the version stated or
// left out, and its gold plan keeps the condition.
func TestValidateConditions(t *testing.T) {
	const plan = `{"version":2,"subgoals":[{"id":"s1","text":"Find what Grand Bahama is contained by.","op":"find"},{"id":"s2","text":"Keep those of #1 whose loc type is Country.","needs":["s1"],"op":"filter","args":{"attribute":"loc type","cmp":"=","value":"Country","type":"text"}}]}`
	for name, version := range map[string]int{"stated": 2, "left out": 0} {
		t.Run(name, func(t *testing.T) {
			r := decode(t, func(r *Record) {
				r.Messages[2].Content = plan
				var p kgqa.Plan
				require.NoError(t, json.Unmarshal([]byte(plan), &p))
				p.Version = version
				r.Plan = &p
			})
			require.NoError(t, r.Validate())
			require.NotNil(t, r.Gold().Subgoals[1].Args)
			assert.Equal(t, kgqa.TypeText, r.Gold().Subgoals[1].Args.Type)
			assert.Equal(t, kgqa.PlanVersionConditions, r.Gold().Version)
		})
	}
}
