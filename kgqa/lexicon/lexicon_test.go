package lexicon

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStopword(t *testing.T) {
	for _, tc := range []struct {
		word string
		want bool
	}{{"the", true}, {"which", true}, {"find", true}, {"border", false}, {"The", false}, {"", false}} {
		t.Run(tc.word, func(t *testing.T) { assert.Equal(t, tc.want, Stopword(tc.word)) })
	}
}
