package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocParagraphsStartSentences catches a broken sentence left by an
// edit: a paragraph that begins in lower case right after a heading or a
// finished sentence is the tail of a sentence whose head was lost
// (docs/freebase.md opened with one). A paragraph continuing a sentence
// around a code block is fine.
func TestDocParagraphsStartSentences(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "../../README.md")
	for _, page := range pages {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		inCode, last, blank := false, "", false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				inCode, last, blank = !inCode, line, false
				continue
			}
			if inCode {
				continue
			}
			if strings.TrimSpace(line) == "" {
				blank = true
				continue
			}
			first := []rune(line)[0]
			ended := strings.HasPrefix(last, "#") || strings.HasSuffix(last, ".") || strings.HasSuffix(last, ":")
			if blank && ended && !strings.HasPrefix(last, "```") && unicode.IsLower(first) {
				assert.Failf(t, "broken sentence", "%s:%d starts a paragraph mid-sentence: %q", filepath.Base(page), i+1, line)
			}
			last, blank = line, false
		}
	}
}
