package engine

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every demo question's answer carries a certificate whose query, run on
// the demo graph by the engine, returns exactly the answer.
func TestEveryDemoAnswerIsCertified(t *testing.T) {
	for _, q := range demokg.FreebaseQuestions() {
		t.Run(q.ID, func(t *testing.T) {
			h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
			ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
			require.NoError(t, err)
			c := ans.Certificate
			require.NotNil(t, c)
			assert.Equal(t, kgqa.CoversAll, c.Covers)
			assert.True(t, c.Verified, "error: %s\n%s\ntrace:\n%s", c.Error, c.SPARQL, brief(ans))
			assert.Equal(t, len(ans.Entities), c.Rows)
		})
	}
}
