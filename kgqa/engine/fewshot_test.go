package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/prompts"
)

// TestFewShotPlanExamplesAreValidPlans: a model copies the shape of the
// examples, so each must be a plan the engine accepts, and together they
// show every kind of step the planner is asked to use.
func TestFewShotPlanExamplesAreValidPlans(t *testing.T) {
	msgs, err := prompts.Builtin.Render(prompts.PlanFewShot, prompts.PlanData{Question: "Who?"})
	require.NoError(t, err)
	ops := map[kgqa.Op]int{}
	n := 0
	for _, line := range strings.Split(msgs[0].Content, "\n") {
		if !strings.HasPrefix(line, `{"version"`) {
			continue
		}
		n++
		p, err := kgqa.ParsePlan([]byte(line))
		require.NoError(t, err, "example %d is a valid plan: %s", n, line)
		for _, s := range p.Subgoals {
			ops[s.Op]++
		}
	}
	require.GreaterOrEqual(t, n, 5)
	for _, op := range []kgqa.Op{kgqa.OpFind, kgqa.OpFilter, kgqa.OpIntersect, kgqa.OpCompare, kgqa.OpSuperlative, kgqa.OpCount} {
		assert.Positive(t, ops[op], "an example shows a %s step", op)
	}
}
