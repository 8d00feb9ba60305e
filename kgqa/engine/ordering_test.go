package engine

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cost-based ordering keeps the answers of the demo graph's conjunction
// questions identical to exploring every branch, and where it applies it
// verifies one branch against another's candidates with fewer model
// calls: with two branches from topic entities, the larger against the
// smaller; with a branch that follows an earlier subgoal, the branch from
// topic entities against it, with no estimate.
func TestCostOrderingKeepsConjunctionAnswers(t *testing.T) {
	for _, tc := range []struct {
		id        string
		ordered   bool   // cost ordering applies to the intersect
		explored  string // the branch that runs first
		following bool   // the first branch follows an earlier subgoal
	}{
		// s3 starts from s2's airports: Nijmegen's countries (2) run
		// first and France's neighbours (s1) check them.
		{"demo-01", true, "s3", true},
		// The countries bordering Spain (2 along the relation the words
		// pick) before those bordering Germany (8).
		{"demo-03", true, "s2", false},
		// 3 and 3 rivers: a tie keeps the plan's order.
		{"demo-04", true, "s1", false},
		// The Swiss franc's 2 countries before Italy's 6 neighbours: the
		// estimate counts along the relations the model chose (words
		// alone picked a river relation for "bordering Italy", counted 1
		// and ran the larger branch first).
		{"demo-05", true, "s2", false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			q := demoQuestion(t, tc.id)
			var gold []string
			for _, a := range q.Answers {
				gold = append(gold, a.ID)
			}
			run := func(ordering string) (*kgqa.Answer, *kgqatest.Model) {
				// clear_top_facts off: a checked branch's relations are
				// the model's choice (the estimate counts along them),
				// which no clear top skips, while plan ordering's second
				// branch skips it on a clear top: on demo-04 (two clear
				// tops) the calls then tie, and the comparison of calls
				// below would be of the switch, not of the ordering.
				cfg := clearTopBudgets(false)
				cfg.Ordering = ordering
				m := kgqatest.NewDemoModel()
				h := newHarness(t, m, cfg)
				return ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)}), m
			}
			full, fm := run(OrderingPlan)
			cost, cm := run(OrderingCost)
			require.Equal(t, gold, entityIDs(full.Entities), brief(full))
			assert.Equal(t, entityIDs(full.Entities), entityIDs(cost.Entities), brief(cost))
			var inter *kgqa.SubgoalRecord
			for _, s := range cost.Subgoals {
				if s.Op == kgqa.OpIntersect {
					inter = s
				}
			}
			require.NotNil(t, inter)
			if !tc.ordered {
				assert.Nil(t, inter.Ordering)
				assert.Equal(t, fm.Total(), cm.Total())
				return
			}
			require.NotNil(t, inter.Ordering, brief(cost))
			o := inter.Ordering
			for _, b := range o.Branches {
				t.Logf("%s: %v estimated %d actual %d (%s)", b.Subgoal, b.Relation, b.Estimated, b.Actual, b.Role)
			}
			assert.Equal(t, OrderingCost, o.Method)
			require.Len(t, o.Branches, 2)
			assert.Equal(t, tc.explored, o.Branches[0].Subgoal)
			assert.Equal(t, roleExplored, o.Branches[0].Role)
			assert.Equal(t, roleVerified, o.Branches[1].Role)
			if !tc.following {
				assert.LessOrEqual(t, o.Branches[0].Estimated, o.Branches[1].Estimated)
			}
			for _, b := range o.Branches {
				assert.Equal(t, len(record(t, cost, b.Subgoal).Result.Entities), b.Actual, b.Subgoal)
				if tc.following {
					assert.Nil(t, b.Relation, "nothing was estimated")
					assert.Equal(t, -1, b.Estimated)
				} else {
					require.NotNil(t, b.Relation)
				}
			}
			checked := record(t, cost, o.Branches[1].Subgoal)
			require.NotNil(t, checked.Verification)
			assert.Equal(t, tc.explored, checked.Verification.Against)
			assert.False(t, checked.Verification.Fallback)
			assert.Equal(t, "verified", checked.Result.Source)
			assert.Nil(t, checked.Tentative, "a check asks for no tentative answer")
			assert.Nil(t, checked.Verdict, "nor for a refinement")
			reason := "most_selective_branch_first"
			if tc.following {
				reason = "following_branch_first"
			}
			assert.Equal(t, reason, cost.RetrievalPlan.Reasons["ordering"])
			assert.Less(t, cm.Total(), fm.Total(), "model calls: cost %d, plan %d", cm.Total(), fm.Total())
			assert.Less(t, cost.Usage.LLM.TotalTokens, full.Usage.LLM.TotalTokens)
		})
	}
}

// One subgoal at a time, a verified branch runs after the branch it
// checks, whatever the plan's order, and the rest keeps Plan.Order's.
func TestExecutionOrderPutsCheckAfterItsBranch(t *testing.T) {
	plan := &kgqa.Plan{Version: 1, Subgoals: []kgqa.Subgoal{
		{ID: "s1", Text: "Find the countries bordering Germany", Op: kgqa.OpFind},
		{ID: "s2", Text: "Find the countries bordering Spain", Op: kgqa.OpFind},
		{ID: "s3", Text: "Keep what #1 and #2 share", Op: kgqa.OpIntersect, Needs: []string{"s1", "s2"}},
	}}
	r := &run{after: map[string][]string{}}
	order, err := executionOrder(r, plan)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, order)
	r.after["s1"] = []string{"s2"}
	order, err = executionOrder(r, plan)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 0, 2}, order)
}

// With the branches run one at a time (parallelism 1), the ordering and
// the answers are those of the parallel executor.
func TestCostOrderingOneAtATime(t *testing.T) {
	q := demoQuestion(t, "demo-03")
	cfg := config.Default().Engine
	cfg.Parallelism = 1
	h := newHarness(t, kgqatest.NewDemoModel(), cfg)
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{q.Answers[0].ID}, entityIDs(ans.Entities), brief(ans))
	require.NotNil(t, record(t, ans, "s3").Ordering)
	assert.NotNil(t, record(t, ans, "s1").Verification)
}

// When the branch that runs first yields no entity (here Spain's
// neighbours: its evidence is judged misaligned and its tentative answer
// names nothing), the other branch is not checked against nothing: it is
// explored in full, with its tentative answer and refinement, and the
// intersection keeps what the branches found. Before, the conjunction
// came back empty.
func TestCostOrderingExploresWhenFirstBranchFindsNothing(t *testing.T) {
	q := demoQuestion(t, "demo-03")
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		_, current, _ := strings.Cut(llmtest.LastUser(req), "Current subgoal: ")
		current, _, _ = strings.Cut(current, "\n")
		if llmtest.StageOf(req) == "refine" && strings.Contains(current, "Spain") {
			return llmtest.JSON(map[string]any{"reason": "not about borders", "aligned": false, "answer": "", "entities": []string{}, "used_facts": []int{}})
		}
		return m.Handle(req)
	})
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	o := record(t, ans, "s3").Ordering
	require.NotNil(t, o, brief(ans))
	require.Equal(t, "s2", o.Branches[0].Subgoal, "Spain's branch runs first")
	s1 := record(t, ans, "s1")
	require.NotNil(t, s1.Verification, brief(ans))
	assert.True(t, s1.Verification.Fallback)
	assert.NotNil(t, s1.Tentative, "explored in full, the branch gets a tentative answer")
	assert.NotNil(t, s1.Verdict, "and a refinement")
	assert.True(t, s1.Retrieval.Tentative)
	assert.Equal(t, "evidence", s1.Result.Source)
	assert.Contains(t, entityIDs(ans.Entities), q.Answers[0].ID, brief(ans))
	assert.Contains(t, record(t, ans, "s3").SetOp.Note, "s2")
}
