package server_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Names that look odd are still input: a backslash is escaped, a \u
// escape that an engine would decode is refused with 400, never a 500.
func TestEntitySearchOddNames(t *testing.T) {
	h := newHarness(t, setup{noLLM: true})
	tests := []struct {
		name string
		want int
	}{
		{`C:\users\bob`, http.StatusOK},
		{`a\b "quoted" \\ end\`, http.StatusOK},
		{`\u0022 } SERVICE`, http.StatusBadRequest},
		{`\U0001F600`, http.StatusBadRequest},
		{"nul\x00byte", http.StatusBadRequest},
		{"esc\x1b[31m", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call(t, "GET", "/v1/entities?name="+url.QueryEscape(tt.name), "", nil)
			require.Equal(t, tt.want, r.status, "%s", r.body)
			if tt.want == http.StatusBadRequest {
				assert.NotContains(t, string(r.body), "internal")
			}
		})
	}
}
