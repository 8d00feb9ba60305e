package retrieval

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
)

func TestDirectAnswer(t *testing.T) {
	for _, tc := range []struct {
		q, answer, reason string
	}{
		{"Hello!", GreetingReply, ReasonGreeting},
		{"  thank you very much. ", GreetingReply, ReasonGreeting},
		{"Who are you?", ServiceReply, ReasonService},
		{"what can you do", ServiceReply, ReasonService},
		{"What is 12 * 7?", "84", ReasonArithmetic},
		{"what's (2 + 3) x 4", "20", ReasonArithmetic},
		{"Calculate 1 / 8", "0.125", ReasonArithmetic},
		{"2 / 3", "0.6666666667", ReasonArithmetic},
		{"12/4/2", "1.5", ReasonArithmetic},
		{"how much is 2^10 - 24", "1000", ReasonArithmetic},
		{"10 ÷ 4 =", "2.5", ReasonArithmetic},
		{"-3 * -3", "9", ReasonArithmetic},
		{"What is 5 / 0?", "Division by zero has no value.", ReasonArithmetic},
	} {
		t.Run(tc.q, func(t *testing.T) {
			d, ok := DirectAnswer(tc.q)
			require.True(t, ok)
			assert.Equal(t, tc.answer, d.Answer)
			assert.Equal(t, tc.reason, d.Reason)
		})
	}
}

func TestNotDirect(t *testing.T) {
	for _, q := range []string{
		"", "?", "What is the song Hello about?", "hello, who directed Jaws?",
		"help me find the capital of France", "What is 1990?", "what is 9/11", "2/3", "What happened on 7/4/1776?",
		"what is 2 ^ 1000", "what is (2 + 3", "What is 3x?", "who are you in the film Her",
		"What is the population of 10 Downing Street?",
	} {
		_, ok := DirectAnswer(q)
		assert.False(t, ok, "%q routed direct", q)
	}
}

// TestKGQuestionsAreNeverDirect checks the direct route against real KG
// questions: every demo question, every question of the WebQSP train
// excerpt in testdata, and every WebQSP train question when the real data
// is present.
func TestKGQuestionsAreNeverDirect(t *testing.T) {
	for _, q := range append(demokg.FreebaseQuestions(), demokg.WikidataQuestions()...) {
		_, ok := DirectAnswer(q.Question)
		assert.False(t, ok, "demo question %s %q routed direct", q.ID, q.Question)
	}
	t.Run("excerpt", func(t *testing.T) { neverDirect(t, realdata.Excerpt(t, "webqsp/WebQSP.train.json"), 30) })
	t.Run("whole", func(t *testing.T) { neverDirect(t, realdata.Path(t, "webqsp/WebQSP.train.json"), 3098) })
}

// neverDirect checks that no question of a WebQSP file of n questions is
// routed direct.
func neverDirect(t *testing.T, path string, n int) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var file struct {
		Questions []struct {
			QuestionID  string `json:"QuestionId"`
			RawQuestion string `json:"RawQuestion"`
		} `json:"Questions"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	require.Len(t, file.Questions, n)
	for _, q := range file.Questions {
		_, ok := DirectAnswer(q.RawQuestion)
		assert.False(t, ok, "WebQSP %s %q routed direct", q.QuestionID, q.RawQuestion)
	}
}
