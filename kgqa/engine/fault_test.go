package engine

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/nt"
	"github.com/tggo/goRDFlib/store/sparqlstore"
	"go.uber.org/goleak"
)

// A relation the KG did not offer is dropped and recorded; when the reply
// names nothing else, it goes back to the model once for repair.
func TestHallucinatedRelationRejected(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	m := kgqatest.NewDemoModel()
	var first atomic.Bool
	// Of the model's relation choice: clear_top_facts off, or both finds'
	// clear tops would be fetched without one.
	h := newHarness(t, m, clearTopBudgets(false))
	h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if llmtest.StageOf(req) == "relations" && first.CompareAndSwap(false, true) {
			return llmtest.JSON(map[string]any{"relations": []map[string]string{{"id": "location.location.country_of_airport", "dir": "out"}}})
		}
		return m.Handle(req)
	})
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"Berlin"}, termNames(ans.Entities))
	var rejected []kgqa.RejectedRelation
	for _, s := range ans.Subgoals {
		for _, r := range s.Rounds {
			rejected = append(rejected, r.Rejected...)
		}
	}
	require.Len(t, rejected, 1)
	assert.Equal(t, kgqa.RejectedRelation{ID: "location.location.country_of_airport", Dir: "out", Reason: "not_offered"}, rejected[0])
	repaired := 0
	for _, r := range h.server.Requests() {
		if r.Stage == "relations" && len(r.Chat.Messages) > 2 {
			repaired++
			assert.Contains(t, r.Chat.Messages[len(r.Chat.Messages)-1].Content, "offered")
		}
	}
	assert.Equal(t, 1, repaired, "one repair turn")
}

func TestRateLimitedCallIsRetried(t *testing.T) {
	q := demoQuestion(t, "demo-17")
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine, llmtest.WithReplies(llmtest.RetryAfterSeconds(1)))
	start := time.Now()
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"10"}, termNames(ans.Entities))
	assert.GreaterOrEqual(t, ans.Usage.LLM.Retries, 1)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "Retry-After was honoured")
}

func TestLLMOutageIsATypedError(t *testing.T) {
	h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
	h.server.SetHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.ServerError() })
	q := demoQuestion(t, "demo-01")
	ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
	require.Error(t, err)
	assert.ErrorIs(t, err, kgqa.ErrModelUnavailable)
	var se *StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "plan", se.Stage)
	require.NotNil(t, ans, "a partial answer comes with the error")
	assert.Equal(t, kgqa.StopError, ans.Stop)
	assert.NotEmpty(t, ans.Error)
	assert.Empty(t, ans.Entities)
}

func TestSchemaBreakingReply(t *testing.T) {
	q := demoQuestion(t, "demo-17")
	bad := llmtest.Text(`{"subgoals": [{"id": "s1", "text": "x", "op": "teleport"}]}`)
	t.Run("repaired once", func(t *testing.T) {
		h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine, llmtest.WithReplies(bad))
		ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
		assert.Equal(t, []string{"10"}, termNames(ans.Entities))
		assert.Equal(t, 2, planRequests(h), "plan asked twice: the reply and its repair")
	})
	t.Run("then fails cleanly", func(t *testing.T) {
		h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine, llmtest.WithReplies(bad, bad))
		ans, err := h.engine.Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
		var schema *kgqa.SchemaError
		require.ErrorAs(t, err, &schema)
		assert.Contains(t, schema.Reason, "teleport")
		assert.Equal(t, kgqa.StopError, ans.Stop)
		assert.Nil(t, ans.Plan)
	})
}

// sparqlEndpoint serves the demo KG over the SPARQL protocol from a real
// goRDFlib store and its protocol server, and fails with 503 once failAfter queries were answered.
func sparqlEndpoint(t *testing.T, failAfter int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	g := rdflibgo.NewGraph()
	require.NoError(t, nt.Parse(g, strings.NewReader(string(demokg.Freebase()))))
	var n atomic.Int64
	protocol := sparqlstore.NewServerWithGraph(g).QueryHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > failAfter {
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
			return
		}
		protocol.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// The KG endpoint answers the first queries of a question and then goes
// down: the question fails with a clear error naming the step, wrapping
// kg.ErrUnavailable, with the trace so far.
func TestKGOutageMidQuestion(t *testing.T) {
	srv, n := sparqlEndpoint(t, 3)
	cfg := config.Default().KG
	cfg.Backend, cfg.Endpoint, cfg.CacheSize, cfg.Retries, cfg.Timeout = "sparql", srv.URL, 0, 1, 2*time.Second
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	m := kgqatest.NewDemoModel()
	s := llmtest.New(t, llmtest.WithHandler(m.Handle))
	c, err := llmNew(llmConfig(s.URL(), true))
	require.NoError(t, err)
	q := demoQuestion(t, "demo-01")
	ans, err := mustNew(t, g, c, config.Default().Engine).Ask(context.Background(), Request{Question: q.Question, TopicEntities: topicIDs(q)})
	require.Error(t, err)
	assert.ErrorIs(t, err, kg.ErrUnavailable)
	var se *StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "explore", se.Stage)
	assert.Greater(t, n.Load(), int64(3), "the endpoint answered some queries first")
	assert.Equal(t, kgqa.StopError, ans.Stop)
	assert.NotNil(t, ans.Plan)
	failed := 0
	for _, s := range ans.Subgoals {
		if s.Status == statusFailed {
			failed++
		}
	}
	assert.GreaterOrEqual(t, failed, 1)
}

// Canceling a question mid-flight (the model hangs) returns promptly and
// leaves no goroutine of the engine behind.
func TestCancellationStopsAllGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// Plan ordering: s1 and s2 are refined at once, so two calls hang
	// when the question is canceled (cost ordering would run s1 as a
	// check after s3, behind s2's hung refinement).
	cfg := config.Default().Engine
	cfg.Ordering = OrderingPlan
	h := newHarness(t, kgqatest.NewDemoModel(), cfg)
	var hung atomic.Int32
	h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if llmtest.StageOf(req) == "refine" {
			hung.Add(1)
			return llmtest.Hang()
		}
		return h.model.Handle(req)
	})
	q := demoQuestion(t, "demo-01")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for hung.Load() < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	done := make(chan struct{})
	var ans *kgqa.Answer
	var err error
	go func() {
		ans, err = h.engine.Ask(ctx, Request{Question: q.Question, TopicEntities: topicIDs(q)})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Ask did not return after cancellation")
	}
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	assert.Equal(t, kgqa.StopCanceled, ans.Stop)
	h.server.Close()
	h.client.Close()
}

func planRequests(h *harness) int {
	n := 0
	for _, r := range h.server.Requests() {
		if r.Stage == "plan" {
			n++
		}
	}
	return n
}

// A tentative answer the model cannot put in shape, even after the repair
// turn, is no answer: the subgoal goes on from the evidence instead of
// failing the question (the oracle's noise found this on FB15k-237: a
// refusal or a cut-off reply to the tentative prompt lost the question).
func TestUnparseableTentativeAnswerDoesNotFailTheQuestion(t *testing.T) {
	q := demoQuestion(t, "demo-06")
	m := kgqatest.NewDemoModel()
	h := newHarness(t, m, config.Default().Engine)
	h.server.SetHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if llmtest.StageOf(req) == "tentative" {
			return llmtest.Text("I'm sorry, but I can't help with that request.")
		}
		return m.Handle(req)
	})
	ans := ask(t, h, Request{Question: q.Question, TopicEntities: topicIDs(q)})
	assert.Equal(t, []string{"Berlin"}, termNames(ans.Entities), "answered from the evidence")
	for _, s := range ans.Subgoals {
		if s.Tentative != nil {
			assert.Empty(t, s.Tentative.Answer, "no tentative answer is made up for %s", s.ID)
		}
	}
}
