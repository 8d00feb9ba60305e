package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/prompts"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// once wraps the scripted model so that the first request of stage whose
// last user message contains marker gets reply instead; every other
// request, the repair turn included, gets the model's own reply.
func once(m *kgqatest.Model, stage, marker string, reply func(req openai.ChatCompletionRequest) llmtest.Reply) llmtest.Handler {
	return onceThen(m.Handle, stage, marker, reply)
}

// onceThen answers the first request of stage whose last user message
// holds marker with reply, and every other request with next. Requests
// come concurrently (a tentative call beside a relation choice).
func onceThen(next llmtest.Handler, stage, marker string, reply func(req openai.ChatCompletionRequest) llmtest.Reply) llmtest.Handler {
	var mu sync.Mutex
	done := false
	return func(req openai.ChatCompletionRequest) llmtest.Reply {
		mu.Lock()
		hit := !done && strings.HasPrefix(llmtest.StageOf(req), stage) && strings.Contains(llmtest.LastUser(req), marker)
		if hit {
			done = true
		}
		mu.Unlock()
		if hit {
			return reply(req)
		}
		return next(req)
	}
}

// A planner that turns "above 4,600 metres" into "< 4600" writes a valid
// plan; the plan check sends it back once with the reason, and the
// repaired plan runs. One planning call more, on this question only.
func TestPlanContradictingTheQuestionIsSentBack(t *testing.T) {
	q := demoQuestion(t, "demo-13") // Which mountain in Switzerland has an elevation above 4,600 metres?
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	var wrong kgqa.Plan
	require.NoError(t, json.Unmarshal(q.Plan, &wrong))
	wrong.Subgoals[1].Args.Cmp = "<"
	h.server.SetHandler(once(m, "plan", "", func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.JSON(wrong) }))
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	require.NotNil(t, ans.Plan)
	assert.Equal(t, ">", ans.Plan.Subgoals[1].Args.Cmp, "the repaired plan runs")
	assert.Contains(t, ans.PlanInfo.Note, "sent the first plan back")
	assert.Equal(t, 1, m.Calls("plan"), "one repair turn (the scripted model's only plan call; the wrong plan came first)")
	assert.Equal(t, []string{"m.06db_x"}, entityIDs(ans.Entities))
}

// A planner that still contradicts the question after the repair turn is
// not failed: a fault the check can name exactly (a comparison the wrong
// way round) is mended from the plan's own words; any other leaves the
// first valid plan to run (the check reads words).
func TestPlanQuestionedTwiceStillRuns(t *testing.T) {
	q := demoQuestion(t, "demo-13")
	var reversed kgqa.Plan
	require.NoError(t, json.Unmarshal(q.Plan, &reversed))
	reversed.Subgoals[1].Args.Cmp = "<"
	bundled := kgqa.Plan{Version: reversed.Version, Subgoals: slices.Clone(reversed.Subgoals)}
	bundled.Subgoals[0].Text = strings.TrimSuffix(bundled.Subgoals[0].Text, ".") + ", then find their elevations."
	for _, c := range []struct {
		name         string
		wrong        kgqa.Plan
		cmp          string
		note, mended string
	}{
		{"mended", reversed, ">", "the plan check mended the plan", "direction of s2 turned around"},
		{"kept", bundled, "<", "kept the plan the plan check questioned", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := kgqatest.NewDemoModel()
			h := newHarness(t, m, config.Default().Engine)
			h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
				if strings.HasPrefix(llmtest.StageOf(req), "plan") {
					return llmtest.JSON(c.wrong)
				}
				return m.Handle(req)
			})
			ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
			assert.Equal(t, c.cmp, ans.Plan.Subgoals[1].Args.Cmp)
			assert.Contains(t, ans.PlanInfo.Note, c.note)
			require.NotEmpty(t, ans.Recoveries)
			assert.Equal(t, kgqa.Recovery{Kind: kgqa.RecoveryPlanCheck, From: ans.Recoveries[0].From, To: c.mended}, ans.Recoveries[0])
		})
	}
}

// Every demo question's own plan fits its question: the check does not
// send a right plan back.
func TestLintPassesTheDemoPlans(t *testing.T) {
	for _, q := range append(demokg.FreebaseQuestions(), demokg.WikidataQuestions()...) {
		var p kgqa.Plan
		require.NoError(t, json.Unmarshal(q.Plan, &p), q.ID)
		assert.NoError(t, lintPlan(q.Question, &p), q.ID)
		var topics []kgqa.Topic
		for _, e := range q.TopicEntities {
			topics = append(topics, kgqa.Topic{ID: e.ID, Name: e.Name})
		}
		assert.Empty(t, unplannedTopics(q.Question, &p, topics), q.ID)
	}
}

// "Who is the mascot of the San Francisco Giants?": a refine reply that
// calls the facts aligned but answers with the team itself (the facts read
// the wrong way round) is overruled; exploration goes on and the next
// verdict answers the subgoal.
func TestVerdictAnsweringTheTopicEntityIsOverruled(t *testing.T) {
	q := demoQuestion(t, "demo-22")
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	team := q.TopicEntities[0].ID
	h.server.SetHandler(once(m, "refine", "mascot", func(openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.JSON(map[string]any{"reason": "the facts name the team", "aligned": true, "answer": q.TopicEntities[0].Name,
			"entities": []string{team}, "used_facts": []int{1}})
	}))
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.NotContains(t, entityIDs(ans.Entities), team)
	assert.Equal(t, answerIDs(q), entityIDs(ans.Entities))
	assert.Equal(t, 1, m.Calls("refine"), "after the overruled verdict, one that answered")
}

// The same question when the model's first relation choice is wrong and
// the subgoal has a single round: the facts are misaligned, and before
// the tentative answer is kept the anchor is explored once more along the
// relations not yet tried, which finds the mascot. Two calls more (a
// relations and a refine call), on the subgoal that missed only.
func TestMisalignedSubgoalRetriesUntriedRelations(t *testing.T) {
	q := demoQuestion(t, "demo-22")
	m := kgqatest.NewDemoModel()
	cfg := config.Default().Engine
	cfg.MaxRounds = 1
	h := newHarness(t, m, cfg)
	h.server.SetHandler(once(m, "relations", "mascot", func(req openai.ChatCompletionRequest) llmtest.Reply {
		out, in := prompts.ReadRelationGroups(llmtest.LastUser(req))
		for _, g := range append(out, in...) {
			for _, n := range g.Names {
				if !strings.Contains(g.Type+n, "mascot") {
					dir := "out"
					if len(out) == 0 {
						dir = "in"
					}
					return llmtest.JSON(map[string]any{"reason": "plausible", "relations": []map[string]string{{"id": g.Type + "." + n, "dir": dir}}})
				}
			}
		}
		t.Fatal("only mascot relations offered")
		return llmtest.Reply{}
	}))
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, answerIDs(q), entityIDs(ans.Entities))
	s1 := record(t, ans, "s1")
	require.Len(t, s1.Rounds, 2)
	assert.Equal(t, retryUntried, s1.Rounds[1].Retry)
	assert.NotEqual(t, s1.Rounds[0].Chosen, s1.Rounds[1].Chosen)
	assert.Equal(t, 1, m.Calls("relations"), "the retry's choice, after the wrong one")
	assert.Equal(t, 2, m.Calls("refine"), "the misaligned verdict and the retry's")
}

func answerIDs(q dataset.DemoRecord) []string {
	out := []string{}
	for _, a := range q.Answers {
		out = append(out, a.ID)
	}
	return out
}

// "Which country borders both Germany and Spain?" planned as the
// countries bordering Germany alone: Spain, a topic entity the question
// names, is in no subgoal, so the plan goes back to the planner once
// with that reason, and the conjunction it returns runs.
func TestPlanDroppingATopicEntityIsSentBack(t *testing.T) {
	q := demoQuestion(t, "demo-03")
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	dropped := kgqa.Plan{Version: kgqa.PlanVersion, Subgoals: []kgqa.Subgoal{{ID: "s1", Text: "Find the countries that border Germany.", Op: kgqa.OpFind}}}
	h.server.SetHandler(once(m, "plan", "", func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.JSON(dropped) }))
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	require.NotNil(t, ans.Plan)
	assert.Len(t, ans.Plan.Subgoals, 3, "the conjunction's plan")
	assert.Contains(t, ans.PlanInfo.Note, "the topic check sent the plan back")
	assert.Equal(t, 1, m.Calls("plan"), "the repair turn (the dropped plan came first)")
	assert.ElementsMatch(t, answerIDs(q), entityIDs(ans.Entities))
	last := h.server.Requests()
	require.NotEmpty(t, last)
	var repair *llmtest.Request
	for i := range last {
		if strings.HasPrefix(last[i].Stage, "plan") && len(last[i].Chat.Messages) > 2 {
			repair = &last[i]
		}
	}
	require.NotNil(t, repair, "the plan went back with the reason")
	assert.Contains(t, llmtest.LastUser(repair.Chat), "Spain")
}

// "What is the capital of the country that contains Weeze Airport?": a
// refine of s1 that also judges the question answered, with s1's own
// answer (the country), would stop the run one hop short. The engine
// does not stop on it: s2 runs and finds the capital.
func TestEarlyAnswerThatIsTheNextHopsInputDoesNotStop(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	h.server.SetHandler(once(m, "refine", "Weeze Airport", func(req openai.ChatCompletionRequest) llmtest.Reply {
		var rep map[string]any
		require.NoError(t, json.Unmarshal([]byte(m.Handle(req).Content), &rep))
		require.Equal(t, true, rep["aligned"], "the scripted model answers s1")
		rep["sufficient"], rep["final_answer"], rep["final_entities"] = true, rep["answer"], rep["entities"]
		return llmtest.JSON(rep)
	}))
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	s1 := record(t, ans, "s1")
	require.NotNil(t, s1.Sufficiency)
	assert.True(t, s1.Sufficiency.Sufficient)
	assert.Contains(t, s1.Sufficiency.Overruled, "s2 still takes as input")
	assert.Equal(t, statusDone, record(t, ans, "s2").Status)
	assert.Equal(t, answerIDs(q), entityIDs(ans.Entities))
}

// gen-conjunction-29 on the dense world: "the children of Jack
// Giarraputo" chose people.person.children the wrong way round (in), and
// the hop beyond chose it the right way (out) from the children found. The
// retry from Jack Giarraputo must still offer children (out): only the
// relations chosen from the retry's own anchors count as tried there.
func TestRetryCountsRelationsTriedFromItsAnchors(t *testing.T) {
	jack := kgqa.Term{ID: "m.02r251z", Name: "Jack Giarraputo"}
	child := kgqa.Term{ID: "m.dzp7u_1", Name: "Trixgryndbry Loujygrios"}
	in := kgqa.Relation{ID: "people.person.children", Dir: kgqa.In}
	out := kgqa.Relation{ID: "people.person.children", Dir: kgqa.Out}
	sg := &subgoalRun{rec: &kgqa.SubgoalRecord{Rounds: []*kgqa.Round{
		{Depth: 0, Anchors: []kgqa.Term{jack}, Chosen: []kgqa.Relation{in}},
		{Depth: 1, Anchors: []kgqa.Term{child}, Chosen: []kgqa.Relation{out}},
	}}}
	assert.Equal(t, map[kgqa.Relation]bool{in: true}, triedFrom(sg, []kgqa.Term{jack}))
	assert.Equal(t, map[kgqa.Relation]bool{out: true}, triedFrom(sg, []kgqa.Term{child}))
	assert.Empty(t, triedFrom(sg, []kgqa.Term{{ID: "m.0other", Name: "Someone"}}))
}

// gen-comparative-2 on the dense world: the retry from the United States
// refines the facts found from it, not those found one hop beyond from
// the temperature units a wrong relation reached (they answer another
// subgoal).
func TestRetryRefinesTheFactsOfItsAnchors(t *testing.T) {
	us := kgqa.Term{ID: "m.09c7w0", Name: "United States of America"}
	unit := kgqa.Term{ID: "m.dzp7ky_5", Name: "Cuprin Hywack"}
	rel := []string{"measurement_unit.measurement_system.temperature_units"}
	wrongWay := kgqa.Fact{Head: us, Path: rel, Dir: kgqa.In, Tail: unit}
	beyond := kgqa.Fact{Head: unit, Path: rel, Dir: kgqa.Out, Tail: kgqa.Term{ID: "m.0dvd", Name: "DVD"}}
	right := kgqa.Fact{Head: us, Path: rel, Dir: kgqa.Out, Tail: kgqa.Term{ID: "m.dzp7ky_h", Name: "Dreaprox"}}
	assert.Equal(t, []kgqa.Fact{wrongWay, right}, fromAnchors([]kgqa.Fact{wrongWay, beyond, right}, []kgqa.Term{us}))
}
