package score

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/parog/parog-go/dataset"
)

// Cases worked by hand from ToG's exact_match.
func TestToGHit(t *testing.T) {
	q := dataset.Question{Answers: []dataset.Answer{{Name: "Jamaican Creole English Language"}, {Name: "Jamaican English"}}}
	cases := []struct {
		response string
		hit      bool
	}{
		{"Jamaican English", true},
		{"jamaicanenglish", true},              // spaces and case do not count
		{"English", true},                      // a substring of a gold name
		{"They speak Jamaican English.", true}, // a gold name inside the response
		{"Spanish", false},
		{"", false},
		{"   ", false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.hit, ToGHit(q, tc.response), "%q", tc.response)
	}
	strict := Scorer{}
	assert.False(t, strict.Score(q, PredictedSet(nil, "English")).Hit, "the strict rule does not take a substring")
}
