package llm_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/prompts"
)

func compile(t *testing.T, name string, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	require.NoError(t, err, name)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(name+".json", doc))
	s, err := c.Compile(name + ".json")
	require.NoError(t, err, name)
	return s
}

// TestEveryReplySchemaIsStrictCompatible sends every stage's reply schema
// through Strictify, as the client does, and checks that the result is
// strict-compatible, still a valid JSON schema, keeps "reason" first
// where the model explains itself, and accepts a reply whose optional
// fields are null as well as the reply that leaves them out.
func TestEveryReplySchemaIsStrictCompatible(t *testing.T) {
	for _, stage := range prompts.Names {
		t.Run(stage, func(t *testing.T) {
			orig := prompts.Schema(stage)
			strict := llm.Strictify(orig)
			assert.True(t, llm.StrictCompatible(strict), "%s", strict)
			compile(t, stage, strict)
			var props struct {
				Properties json.RawMessage `json:"properties"`
			}
			require.NoError(t, json.Unmarshal(orig, &props))
			if bytes.Contains(props.Properties, []byte(`"reason"`)) {
				first := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(props.Properties)), "{"))
				assert.True(t, strings.HasPrefix(first, `"reason"`), "reason is the first property of %s", stage)
				sp := string(strict)
				assert.Contains(t, sp, `"properties":{"reason":`, "reason is the first property of the strict form")
				assert.Contains(t, sp, `"required":["reason"`, "reason is the first required property of the strict form")
			}
		})
	}
	for name, tc := range map[string]struct {
		stage, omitted, nulled string
	}{
		"tentative without a reason": {prompts.Tentative, `{"answer":"Paris","entities":["Paris"]}`, `{"reason":null,"answer":"Paris","entities":["Paris"]}`},
		"plan leaf without needs or args": {prompts.Plan,
			`{"subgoals":[{"id":"s1","text":"Find the capital of France.","op":"find"}]}`,
			`{"version":null,"answer":null,"subgoals":[{"id":"s1","text":"Find the capital of France.","needs":null,"op":"find","args":null,"tentative":null}]}`},
	} {
		t.Run(name, func(t *testing.T) {
			orig := compile(t, tc.stage+"-orig", prompts.Schema(tc.stage))
			strict := compile(t, tc.stage+"-strict", llm.Strictify(prompts.Schema(tc.stage)))
			omitted, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.omitted))
			require.NoError(t, err)
			nulled, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.nulled))
			require.NoError(t, err)
			assert.NoError(t, orig.Validate(omitted))
			assert.NoError(t, strict.Validate(nulled))
			assert.Error(t, strict.Validate(omitted), "strict form requires every property")
		})
	}
}

func TestStrictifyKeepsKeyOrderAndLeavesBadSchemas(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["a"]}`)
	got := string(llm.Strictify(in))
	assert.Equal(t, `{"type":"object","properties":{"z":{"type":["string","null"]},"a":{"type":"integer"}},"required":["z","a"],"additionalProperties":false}`, got)
	bad := json.RawMessage(`{"type":`)
	assert.Equal(t, string(bad), string(llm.Strictify(bad)))
}
