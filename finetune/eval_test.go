package finetune

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/sft"
)

func readFixture(t *testing.T) []*sft.Record {
	t.Helper()
	f, err := os.Open(fixture)
	require.NoError(t, err)
	defer f.Close()
	res, err := ReadRecords(f)
	require.NoError(t, err)
	require.Empty(t, res.Invalid)
	require.Len(t, res.Records, 7)
	return res.Records
}

func plannerClient(t *testing.T, url string, concurrency int) *llm.Client {
	t.Helper()
	c, err := llm.New(config.LLM{Planner: config.Endpoint{
		BaseURL: url, Model: "planner-under-test", JSONSchema: true,
		Timeout: 5 * time.Second, Concurrency: concurrency, Retries: 1, MaxTokens: 512,
	}}, llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// question returns the user message of a request and whether the request
// is the client's repair turn (it appends the bad reply and a user turn).
func question(req openai.ChatCompletionRequest) (string, bool) {
	return req.Messages[1].Content, len(req.Messages) > 2
}

// scriptedPlanner answers each fixture question in a way whose score the
// test computes by hand.
func scriptedPlanner(req openai.ChatCompletionRequest) llmtest.Reply {
	q, repair := question(req)
	switch {
	case strings.HasPrefix(q, "What country bordering France"):
		// cwq-0001: the gold conjunction with other ids in another order.
		return llmtest.Text(`{"version":1,"subgoals":[{"id":"a","text":"airport serving Nijmegen","op":"find"},` +
			`{"id":"b","text":"country containing #a","needs":["a"],"op":"find"},{"id":"c","text":"countries bordering France","op":"find"},` +
			`{"id":"d","text":"#b and #c","needs":["c","b"],"op":"intersect"}]}`)
	case strings.HasPrefix(q, "Lou Seal"):
		// cwq-0002: skips the championships hop (2 subgoals, gold has 3).
		return llmtest.Text(`{"subgoals":[{"id":"s1","text":"team with mascot Lou Seal","op":"find"},` +
			`{"id":"s2","text":"last World Series of #1","needs":["s1"],"op":"superlative","args":{"order":"max"}}]}`)
	case strings.HasPrefix(q, "Who directed"):
		// webqsp-0003: right plan inside a code fence with prose around it.
		return llmtest.Text("Here is the plan:\n```json\n{\"subgoals\":[{\"id\":\"s1\",\"text\":\"director of Titanic\",\"op\":\"find\"}]}\n```")
	case strings.HasPrefix(q, "How many children"):
		// grailqa-0004: an unknown op, twice.
		return llmtest.Text(`{"subgoals":[{"id":"s1","text":"children","op":"teleport"}]}`)
	case strings.HasPrefix(q, "Which countries bordering Germany"):
		// cwq-0005: prose first, a valid plan after the repair turn.
		if !repair {
			return llmtest.Text("I think the countries are Poland and France.")
		}
		return llmtest.Text(`{"subgoals":[{"id":"s1","text":"countries bordering Germany","op":"find"},` +
			`{"id":"s2","text":"#1 with population > 50000000","needs":["s1"],"op":"compare","args":{"cmp":">","value":"50000000"}}]}`)
	case strings.HasPrefix(q, "What is the capital"):
		// cwq-0006: the endpoint keeps failing.
		return llmtest.ServerError()
	case strings.HasPrefix(q, "Which film directed"):
		// cwq-0007: an extra filter after the intersection (4 vs 3).
		return llmtest.Text(`{"subgoals":[{"id":"s1","text":"films by Cameron","op":"find"},{"id":"s2","text":"films with DiCaprio","op":"find"},` +
			`{"id":"s3","text":"#1 and #2","needs":["s1","s2"],"op":"intersect"},{"id":"s4","text":"#3 that are films","needs":["s3"],"op":"filter"}]}`)
	}
	return llmtest.Error(400, "unexpected question "+q)
}

func TestEvaluatePlannerAgainstScriptedServer(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(scriptedPlanner))
	recs := readFixture(t)
	rep, err := EvaluatePlanner(context.Background(), plannerClient(t, srv.URL(), 4), recs,
		EvalOptions{Model: "planner-under-test", PlannerURL: srv.URL(), Data: fixture, Concurrency: 3})
	require.NoError(t, err)

	byID := map[string]Item{}
	for _, it := range rep.Items {
		byID[it.ID] = it
	}
	require.Len(t, rep.Items, 7, "every question is reported, failures included")
	want := map[string]struct {
		outcome    Outcome
		miss       string
		f1         float64
		graphMatch bool
	}{
		"cwq-0001":     {OutcomeValid, "0", 1, true},
		"cwq-0002":     {OutcomeValid, "-1", 0.8, false}, // {find, superlative} vs {find×2, superlative}: P 1, R 2/3
		"webqsp-0003":  {OutcomeValid, "0", 1, true},
		"grailqa-0004": {OutcomeInvalid, MissInvalid, 0, false},
		"cwq-0005":     {OutcomeRepaired, "0", 1, true},
		"cwq-0006":     {OutcomeError, MissInvalid, 0, false},
		"cwq-0007":     {OutcomeValid, "+1", 6.0 / 7.0, false}, // P 3/4, R 1
	}
	for id, w := range want {
		it := byID[id]
		assert.Equal(t, w.outcome, it.Outcome, id)
		miss, ok := it.Miss()
		got := MissInvalid
		if ok {
			got = missKey(miss)
		}
		assert.Equal(t, w.miss, got, id)
		assert.InDelta(t, w.f1, it.OpF1, 1e-9, id)
		assert.Equal(t, w.graphMatch, it.GraphMatch, id)
	}
	assert.Contains(t, byID["grailqa-0004"].Error, `unknown op "teleport"`)
	assert.Contains(t, byID["grailqa-0004"].Reply, "teleport")
	assert.ErrorIs(t, errorsOf(byID["cwq-0006"]), kgqa.ErrModelUnavailable)

	o := rep.Overall
	assert.Equal(t, 7, o.N)
	assert.Equal(t, [4]int{5, 4, 1, 1}, [4]int{o.Valid, o.ValidFirst, o.Invalid, o.Errors})
	assert.Equal(t, 3, o.CountExact)
	assert.Equal(t, map[string]int{"0": 3, "-1": 1, "+1": 1, MissInvalid: 2}, o.MissHistogram)
	assert.Equal(t, 3, o.GraphMatch)
	// Mean F1: (1 + 0.8 + 1 + 0 + 1 + 0 + 6/7) / 7.
	assert.InDelta(t, (3.8+6.0/7.0)/7, o.OpF1, 1e-9)
	// Pooled: overlap 4+2+1+0+2+0+3 = 12, predicted 13, gold 17:
	// F1 = 2·12 / (13 + 17) = 0.8.
	assert.InDelta(t, 0.8, o.OpF1Micro, 1e-9)

	// composition: cwq-0001 (match), cwq-0002, cwq-0006.
	assert.Equal(t, 3, rep.ByKind["composition"].N)
	assert.Equal(t, 1, rep.ByKind["composition"].GraphMatch)
	assert.Equal(t, 0, rep.ByKind["count"].Valid)
	assert.Equal(t, 2, rep.ByLabel["conjunction"].N)

	// The planner was asked as the engine asks it: system + user only,
	// with the Plan schema as response_format.
	for _, r := range srv.Requests() {
		require.NotNil(t, r.Chat.ResponseFormat)
		assert.Equal(t, openai.ChatCompletionResponseFormatTypeJSONSchema, r.Chat.ResponseFormat.Type)
		assert.Contains(t, string(r.Body), `"subgoals"`)
		assert.Equal(t, "system", r.Chat.Messages[0].Role)
		assert.Equal(t, string(StagePlan), r.Stage)
	}
}

func errorsOf(it Item) error {
	if it.Error == "" {
		return nil
	}
	if strings.Contains(it.Error, kgqa.ErrModelUnavailable.Error()) {
		return kgqa.ErrModelUnavailable
	}
	return assert.AnError
}

func TestEvaluatePlannerBoundsConcurrency(t *testing.T) {
	var inFlight, peak atomic.Int64
	srv := llmtest.New(t, llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		return llmtest.Text(`{"subgoals":[{"id":"s1","text":"x","op":"find"}]}`)
	}))
	recs := readFixture(t)
	var progress []string
	rep, err := EvaluatePlanner(context.Background(), plannerClient(t, srv.URL(), 16), recs,
		EvalOptions{Concurrency: 2, Progress: func(done, total int) { progress = append(progress, fmt.Sprintf("%d/%d", done, total)) }})
	require.NoError(t, err)
	assert.Equal(t, 7, rep.Overall.Valid)
	assert.LessOrEqual(t, peak.Load(), int64(2))
	assert.Equal(t, int64(2), peak.Load(), "two at a time were allowed and used")
	assert.Equal(t, []string{"1/7", "2/7", "3/7", "4/7", "5/7", "6/7", "7/7"}, progress, "told once per question, in order")
}

func TestEvaluatePlannerCancelled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Hang() }))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c := plannerClient(t, srv.URL(), 4)
	_, err := EvaluatePlanner(ctx, c, readFixture(t), EvalOptions{Concurrency: 4})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	srv.Close()
	_ = c.Close()
}

func TestEvaluatePlannerNeedsPlannerRole(t *testing.T) {
	c, err := llm.New(config.LLM{})
	require.NoError(t, err)
	_, err = EvaluatePlanner(context.Background(), c, readFixture(t), EvalOptions{})
	require.ErrorIs(t, err, kgqa.ErrModelNotConfigured)
}

func TestReportFilesAndCompare(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(scriptedPlanner))
	recs := readFixture(t)
	a, err := EvaluatePlanner(context.Background(), plannerClient(t, srv.URL(), 4), recs, EvalOptions{Model: "base", Data: fixture, DataSHA256: "x"})
	require.NoError(t, err)
	// A second planner that gets every question right: it echoes gold.
	gold := map[string]string{}
	for _, r := range recs {
		gold[r.UserText()] = r.Messages[2].Content
	}
	srv2 := llmtest.New(t, llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		q, _ := question(req)
		return llmtest.Text(gold[q])
	}))
	b, err := EvaluatePlanner(context.Background(), plannerClient(t, srv2.URL(), 4), recs, EvalOptions{Model: "tuned", Data: fixture, DataSHA256: "x"})
	require.NoError(t, err)
	assert.Equal(t, 1.0, b.Overall.GraphMatchRate)
	assert.Equal(t, 1.0, b.Overall.OpF1)

	dir := t.TempDir()
	jp, mp, err := a.WriteFiles(filepath.Join(dir, "base.json"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "base.md"), mp)
	back, err := LoadReport(jp)
	require.NoError(t, err)
	assert.Equal(t, a.Overall, back.Overall)
	var raw map[string]any
	bs, err := os.ReadFile(jp)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(bs, &raw))
	assert.Len(t, raw["items"], 7)

	md, err := os.ReadFile(mp)
	require.NoError(t, err)
	assert.Contains(t, string(md), "| valid plan | 71.4% (5/7) |")
	assert.Contains(t, string(md), "| -1 | 1 |")
	assert.Contains(t, string(md), "| no plan | 2 |")
	assert.Contains(t, string(md), "| grailqa-0004 | invalid |")

	var cmp strings.Builder
	CompareMarkdown(&cmp, back, b)
	assert.Contains(t, cmp.String(), "| dependency graph match | 42.9% | 100.0% | +57.1 pt |")
	assert.Contains(t, cmp.String(), "| composition | 3 / 3 | 33.3% | 100.0% | +66.7 pt |")
	assert.NotContains(t, cmp.String(), "Warning")
}
