package server_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// "what does \usepackage do", typed as is, got 400 malformed JSON.
func TestQuestionWithLiteralBackslash(t *testing.T) {
	h := newHarness(t, setup{})
	r := h.call(t, "POST", "/v1/plan", "application/json", []byte(`{"question":"what does \usepackage do"}`))
	assert.NotEqual(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.NotContains(t, string(r.body), "malformed")
}
