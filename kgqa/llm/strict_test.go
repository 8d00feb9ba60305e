package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStrictCompatible(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   bool
	}{
		{"all required, closed", `{"type":"object","additionalProperties":false,"required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, true},
		{"an optional property", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, false},
		{"open object", `{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`, false},
		{"nested optional in array items", `{"type":"object","additionalProperties":false,"required":["xs"],"properties":{"xs":{"type":"array","items":{"type":"object","additionalProperties":false,"required":[],"properties":{"id":{"type":"string"}}}}}}`, false},
		{"nested all required", `{"type":"object","additionalProperties":false,"required":["xs"],"properties":{"xs":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"string"}}}}}}`, true},
		{"not json", `{`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, StrictCompatible([]byte(tc.schema)))
		})
	}
}
