package clip

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestText(t *testing.T) {
	assert.Equal(t, "short", Text("short", 10))
	assert.Equal(t, "abc...", Text("abcdef", 3))
	got := Text("Zürich", 2) // "ü" is two bytes: the cut backs off to "Z"
	assert.Equal(t, "Z...", got)
	assert.True(t, utf8.ValidString(got))
}
