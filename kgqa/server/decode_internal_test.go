package server

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A question with a backslash that starts no JSON escape ("what does
// \usepackage do") was refused with 400 as malformed JSON; it reads as the
// text it is. Valid escapes keep their meaning.
func TestLiteralBackslashes(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"TeX command", `{"question":"what does \usepackage do"}`, `what does \usepackage do`},
		{"windows path", `{"question":"is C:\data\x a file"}`, `is C:\data\x a file`},
		{"short u escape", `{"question":"a \u12 b"}`, `a \u12 b`},
		{"known escapes", `{"question":"a\"b\\c\/d\n\u00e9"}`, "a\"b\\c/d\né"},
		{"escaped backslash before u", `{"question":"\\usepackage"}`, `\usepackage`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v struct{ Question string }
			require.NoError(t, json.Unmarshal(literalBackslashes([]byte(tc.body)), &v))
			assert.Equal(t, tc.want, v.Question)
		})
	}
	valid := []byte(`{"question":"plain \n text"}`)
	assert.Same(t, &valid[0], &literalBackslashes(valid)[0], "valid JSON is not copied")
}
