package server

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/parog/parog-go/kgqa/api"
)

// askBodies are /v1/ask bodies as clients send them, and the odd ones the
// key check is for.
var askBodies = []string{
	`{"question":"What is the capital of France?","topic_entities":["m.0f8l9c"]}`,
	`{"question":"q","options":{"width":2,"WIDTH":3}}`,
	`{"Question":"q"}`,
	`{"question":"a","question":"b"}`,
	`{"question":"q"} {"question":"a","question":"b"}`,
	`{"qu\u0065stion":"a","question":"b"}`,
	`{"question":"q","topic_entities":[{"a":1,"a":2}]}`,
	`{"question":"q",`,
	`[{"x":[{"y":{"z":1,"z":2}}]}]`,
	`{"ſtion":1}`,
	` {"question" : "q" , "options" : { } } `,
}

// TestCheckKeys pins the verdicts the key check gives on the bodies above.
func TestCheckKeys(t *testing.T) {
	want := []string{
		"",
		`unknown field "WIDTH" (keys are case-sensitive: "width")`,
		`unknown field "Question" (keys are case-sensitive: "question")`,
		`key "question" appears twice in one object`,
		`key "question" appears twice in one object`,
		`key "question" appears twice in one object`,
		`key "a" appears twice in one object`,
		"",
		`key "z" appears twice in one object`,
		"",
		"",
	}
	for i, body := range askBodies {
		err := checkKeys([]byte(body), &api.AskRequest{})
		if want[i] == "" {
			assert.NoError(t, err, body)
		} else {
			assert.EqualError(t, err, want[i], body)
		}
	}
}

// BenchmarkCheckKeys is the key check of a usual /v1/ask body.
func BenchmarkCheckKeys(b *testing.B) {
	body := []byte(askBodies[0])
	b.ReportAllocs()
	for b.Loop() {
		if err := checkKeys(body, &api.AskRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}
