package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// TestOneAtATimeIsDeterministic asks questions whose plans have independent
// subgoals several times with engine.parallelism 1 and checks that every
// run sends the model the same prompts: a replayed or
// sharded eval depends on it. With subgoals in parallel the prompts may
// differ (a prompt shows what the other subgoals have found so far).
func TestOneAtATimeIsDeterministic(t *testing.T) {
	for _, id := range []string{"demo-01", "demo-05"} {
		t.Run(id, func(t *testing.T) {
			q := demoQuestion(t, id)
			cfg := config.Default().Engine
			cfg.Parallelism = 1
			var first []string
			for run := range 8 {
				h := newHarness(t, kgqatest.NewDemoModel(), cfg)
				ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
				require.NoError(t, err)
				assert.Equal(t, 1.0, hit(ans, q))
				var prompts []string
				for _, req := range h.server.Requests() {
					var text strings.Builder
					for _, m := range req.Chat.Messages {
						text.WriteString(m.Role + ": " + m.Content + "\n")
					}
					prompts = append(prompts, text.String())
				}
				// A subgoal's tentative answer and its relation choice are asked at
				// once, so their arrival order is free; their text is not.
				slices.Sort(prompts)
				if run == 0 {
					first = prompts
					require.NotEmpty(t, first)
					continue
				}
				assert.Equal(t, first, prompts, "run %d sent other prompts", run)
			}
		})
	}
}
