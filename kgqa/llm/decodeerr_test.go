package llm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

type namedRelation struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

type relationsReply struct {
	Keep      []string                 `json:"keep"`
	Relations []namedRelation          `json:"relations"`
	ByName    map[string]namedRelation `json:"by_name"`
	Best      *namedRelation           `json:"best"`
	Count     int                      `json:"count"`
	Done      bool                     `json:"done"`
}

// TestRepairTurnNamesNoGoType: the repair turn tells the model what is
// wrong with the JSON it wrote - the field, the JSON type expected there
// and what it found - and never a Go type or package name.
func TestRepairTurnNamesNoGoType(t *testing.T) {
	tests := []struct {
		name, first, says string
	}{
		{"string for an array", `{"keep": "a"}`, `field "keep" must be an array, not a string`},
		{"number in an array", `{"keep": [1]}`, `each element of field "keep" must be a string, not a number`},
		{"nested field", `{"relations": [{"name": 3}]}`, `field "relations.name" must be a string, not a number`},
		{"element of the wrong type", `{"relations": [1]}`, `each element of field "relations" must be an object, not a number`},
		{"object value", `{"by_name": {"x": {"score": "high"}}}`, `field "by_name.score" must be a number, not a string`},
		{"through a pointer", `{"best": {"score": true}}`, `field "best.score" must be a number, not a boolean`},
		{"fraction for an integer", `{"count": 1.5}`, `field "count" must be an integer, not the number 1.5`},
		{"string for a boolean", `{"done": "yes"}`, `field "done" must be a boolean, not a string`},
		{"array for the object", `["a"]`, `the JSON value must be an object, not an array`},
		{"unknown field", `{"kept": []}`, `unknown field "kept"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text(tt.first), llmtest.Text(`{"keep": ["a"]}`)))
			c := newClient(t, srv, nil)
			var out relationsReply
			_, err := c.JSON(context.Background(), ask("relations", "Which relations?"), &out, nil)
			require.NoError(t, err)
			assert.Equal(t, []string{"a"}, out.Keep)

			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			msgs := reqs[1].Chat.Messages
			require.Len(t, msgs, 3)
			repair := msgs[2].Content
			assert.Contains(t, repair, tt.says)
			for _, goName := range []string{"relationsReply", "namedRelation", "llm.", "Go ", "[]string", "float64", "int ", "map["} {
				assert.NotContains(t, repair, goName)
			}
		})
	}
}
