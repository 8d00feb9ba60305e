package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/prompts"
)

// streamLines posts a streamed ask and returns the raw lines, checking the
// NDJSON framing: every line one JSON object, newline-terminated.
func streamLines(t *testing.T, h *harness, req api.AskRequest) (int, http.Header, []api.Event) {
	t.Helper()
	req.Stream = true
	resp, err := http.Post(h.http.URL+"/v1/ask", "application/json", bytes.NewReader(mustJSON(t, req)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var evs []api.Event
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			break
		}
		if resp.StatusCode != http.StatusOK {
			continue
		}
		require.True(t, bytes.HasSuffix(line, []byte("\n")), "line not terminated: %q", line)
		var ev api.Event
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&ev), "line: %s", line)
		evs = append(evs, ev)
	}
	return resp.StatusCode, resp.Header, evs
}

func TestAskStreamOrder(t *testing.T) {
	h := newHarness(t, setup{})
	status, hdr, evs := streamLines(t, h, api.AskRequest{Question: capitalQ, TopicEntities: []string{france}})
	require.Equal(t, 200, status)
	assert.Equal(t, api.NDJSONContentType, hdr.Get("Content-Type"))
	require.GreaterOrEqual(t, len(evs), 3)
	var types []kgqa.EventType
	for i, ev := range evs {
		assert.Equal(t, i+1, ev.Seq, "events numbered in order")
		types = append(types, ev.Type)
	}
	assert.Equal(t, kgqa.EventPlan, types[0], "types %v", types)
	assert.Equal(t, kgqa.EventFinal, types[len(types)-1], "types %v", types)
	pos := func(want kgqa.EventType) int {
		for i, ty := range types {
			if ty == want {
				return i
			}
		}
		return -1
	}
	for _, pair := range [][2]kgqa.EventType{
		{kgqa.EventPlan, kgqa.EventSubgoalStarted}, {kgqa.EventSubgoalStarted, kgqa.EventTentative},
		{kgqa.EventTentative, kgqa.EventExploration}, {kgqa.EventExploration, kgqa.EventRefinement},
		{kgqa.EventRefinement, kgqa.EventSubgoalDone}, {kgqa.EventSubgoalDone, kgqa.EventFinal},
	} {
		require.NotEqual(t, -1, pos(pair[1]), "no %s event in %v", pair[1], types)
		assert.Less(t, pos(pair[0]), pos(pair[1]), "%s before %s in %v", pair[0], pair[1], types)
	}
	final := evs[len(evs)-1].Answer
	require.NotNil(t, final)
	assert.Contains(t, final.Answer, "Paris")
	assert.Equal(t, hdr.Get(api.RequestIDHeader), final.RequestID)

	// The Go client reads the same stream.
	var seen []kgqa.EventType
	ans, err := h.client.AskStream(context.Background(), api.AskRequest{Question: capitalQ, TopicEntities: []string{france}},
		func(ev api.Event) error { seen = append(seen, ev.Type); return nil })
	require.NoError(t, err)
	assert.Equal(t, types, seen)
	assert.Contains(t, ans.Answer, "Paris")
}

// TestDeadline gives the question a deadline that the plan call meets
// (the scripted model answers it at once) and the calls after it cannot
// (each waits 700 ms, two of them run one after the other), so the
// question ends with 504 and a partial trace that holds the plan however
// loaded the machine is.
func TestDeadline(t *testing.T) {
	demo := kgqatest.DemoModel()
	slowAfterPlan := func(req openaiRequest) llmtest.Reply {
		if st := llmtest.StageOf(req); st != "plan" && st != "plan_fewshot" {
			time.Sleep(700 * time.Millisecond)
		}
		return demo(req)
	}
	h := newHarness(t, setup{handler: slowAfterPlan})
	deadline := int64(1000)
	req := api.AskRequest{Question: capitalQ, TopicEntities: []string{france}, Options: &api.Options{DeadlineMS: &deadline}}

	t.Run("json: 504 with the partial trace", func(t *testing.T) {
		r := h.call(t, "POST", "/v1/ask", "application/json", mustJSON(t, req))
		require.Equal(t, http.StatusGatewayTimeout, r.status, "%s", r.body)
		e := r.errorBody(t)
		require.NotNil(t, e.Partial)
		require.NotNil(t, e.Partial.Plan, "the plan was made before the deadline")
		assert.Equal(t, kgqa.StopDeadline, e.Partial.Trace.Stop)
	})
	t.Run("stream: error line after the first", func(t *testing.T) {
		status, _, evs := streamLines(t, h, req)
		require.Equal(t, 200, status)
		require.GreaterOrEqual(t, len(evs), 2)
		assert.Equal(t, kgqa.EventPlan, evs[0].Type)
		last := evs[len(evs)-1]
		require.Equal(t, api.EventError, last.Type)
		require.NotNil(t, last.Error)
		assert.Equal(t, http.StatusGatewayTimeout, last.Error.Status)
		require.NotNil(t, last.Error.Partial)
		assert.Equal(t, len(evs), last.Seq)
	})
	t.Run("client sees the partial answer", func(t *testing.T) {
		_, err := h.client.Ask(context.Background(), req)
		var ae *api.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusGatewayTimeout, ae.Status)
		require.NotNil(t, ae.Partial)
	})
}

func TestLLMDown(t *testing.T) {
	h := newHarness(t, setup{handler: func(req openaiRequest) llmtest.Reply { return llmtest.ServerError() }})
	t.Run("json", func(t *testing.T) {
		r := h.call(t, "POST", "/v1/ask", "application/json", mustJSON(t, api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}))
		require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
		assert.Contains(t, r.errorBody(t).Error, "language model unavailable")
		assert.NotContains(t, string(r.body), h.llm.URL(), "upstream URLs are not leaked")
	})
	t.Run("stream fails before the first byte with the real status", func(t *testing.T) {
		status, _, evs := streamLines(t, h, api.AskRequest{Question: capitalQ})
		assert.Equal(t, http.StatusServiceUnavailable, status)
		assert.Empty(t, evs)
	})
	t.Run("readyz says which component is down", func(t *testing.T) {
		h.llm.Close()
		r := h.call(t, "GET", "/readyz", "", nil)
		require.Equal(t, http.StatusServiceUnavailable, r.status)
		var b api.HealthResponse
		r.json(t, &b)
		assert.Equal(t, "ok", b.Checks[0].Status, "kg")
		assert.Equal(t, "llm.reasoner", b.Checks[2].Name)
		assert.Equal(t, "unavailable", b.Checks[2].Status)
		assert.Empty(t, b.Checks[2].Detail, "details are for a caller with a key")
	})
}

func TestKGDown(t *testing.T) {
	cfg := config.Default().KG
	cfg.Backend, cfg.Endpoint, cfg.Retries, cfg.Timeout = "sparql", "http://127.0.0.1:1/sparql", 0, time.Second
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	h := newHarness(t, setup{graph: g})
	for _, tc := range []struct{ name, method, path, body, want string }{
		{"entity", "GET", "/v1/entities/" + france, "", "knowledge graph unavailable"},
		{"search", "GET", "/v1/entities?name=France", "", "knowledge graph unavailable"},
		{"sparql", "GET", "/sparql?query=" + url.QueryEscape("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"), "", "knowledge graph unavailable"},
		{"ask", "POST", "/v1/ask", `{"question": "What is the capital of France?", "topic_entities": ["m.0f8l9c"]}`, "knowledge graph unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			r := h.call(t, tc.method, tc.path, ct, []byte(tc.body))
			require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
			assert.Contains(t, r.errorBody(t).Error, tc.want)
			assert.NotContains(t, string(r.body), "127.0.0.1:1")
		})
	}
	r := h.call(t, "GET", "/readyz", "", nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status)
	var b api.HealthResponse
	r.json(t, &b)
	assert.Equal(t, "kg", b.Checks[0].Name)
	assert.Equal(t, "unavailable", b.Checks[0].Status)
	assert.Equal(t, "ok", b.Checks[2].Status)
}

// A KG that rejects a query the engine or a lookup built (a 4xx of the
// endpoint) is the server's upstream failing, not the client's bad input:
// 502, without the endpoint's error text. Only a client's own /sparql
// query is a 400 with the endpoint's reason.
func TestKGRejectsQuery(t *testing.T) {
	const secret = "Virtuoso 37000 Error SP030: SPARQL compiler, line 7: internal detail"
	kgSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, secret, http.StatusBadRequest)
	}))
	t.Cleanup(kgSrv.Close)
	cfg := config.Default().KG
	cfg.Backend, cfg.Endpoint, cfg.Retries, cfg.Timeout = "sparql", kgSrv.URL+"/sparql", 0, time.Second
	g, err := kg.Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	h := newHarness(t, setup{graph: g})
	for _, tc := range []struct{ name, method, path, body string }{
		{"entity", "GET", "/v1/entities/" + france, ""},
		{"search", "GET", "/v1/entities?name=France", ""},
		{"ask", "POST", "/v1/ask", `{"question": "What is the capital of France?", "topic_entities": ["m.0f8l9c"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			r := h.call(t, tc.method, tc.path, ct, []byte(tc.body))
			require.Equal(t, http.StatusBadGateway, r.status, "%s", r.body)
			assert.Contains(t, r.errorBody(t).Error, "knowledge graph rejected a query")
			assert.NotContains(t, string(r.body), "Virtuoso")
		})
	}
	t.Run("sparql", func(t *testing.T) {
		r := h.call(t, "GET", "/sparql?query="+url.QueryEscape("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"), "", nil)
		require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Contains(t, r.errorBody(t).Error, "SP030", "a client's own query gets the endpoint's reason")
	})
}

// A client that disconnects mid-stream cancels the engine: the model stops
// being called and no goroutine is left behind.
func TestCanceledClientLeavesNoGoroutine(t *testing.T) {
	h := newHarness(t, setup{handler: holdAfterPlan()})
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr}
	opts := []goleak.Option{goleak.IgnoreCurrent()}
	ctx, cancel := context.WithCancel(context.Background())
	body := mustJSON(t, api.AskRequest{Question: capitalQ, TopicEntities: []string{france}, Stream: true})
	req, err := http.NewRequestWithContext(ctx, "POST", h.http.URL+"/v1/ask", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.Contains(line, `"type":"plan"`), line)
	cancel()
	resp.Body.Close()
	tr.CloseIdleConnections()

	assertEngineStopped(t, h, opts)
}

// holdAfterPlan is the demo model, except that every call after the
// plan (tentative answer, relation choice, and so on) is held until its
// caller gives up: the engine can get past them, to a refinement, only by
// going on without its client. The calls that come before the plan (a
// chat's screening, planning, linking) are answered.
func holdAfterPlan() llmtest.Handler {
	demo := kgqatest.DemoModel()
	return func(req openaiRequest) llmtest.Reply {
		switch llmtest.StageOf(req) {
		case prompts.FollowUp, prompts.Plan, prompts.PlanFewShot, prompts.Mentions:
			return demo(req)
		}
		return llmtest.Reply{Hang: true}
	}
}

// assertEngineStopped checks, after a streaming client went away, that the
// handler returned, that no model call follows, that the engine did not go
// on to refinement, and that no goroutine is left behind. It waits for
// each of these to happen, bounded only to catch a hang: on a loaded
// machine the goroutines of closed connections take longer to exit than
// goleak's own retries (about 0.4 s).
func assertEngineStopped(t *testing.T, h *harness, opts []goleak.Option) {
	t.Helper()
	const hang = 30 * time.Second
	for start := time.Now(); inFlight(t, h) > 0; time.Sleep(20 * time.Millisecond) {
		require.Less(t, time.Since(start), hang, "the handler never returned")
	}
	calls := h.llm.Count()
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, calls, h.llm.Count(), "no model call after the client left")
	// The calls after the plan are held until the engine drops them, so a
	// refinement only starts if the engine went on without the client.
	for _, r := range h.llm.Requests() {
		assert.NotEqual(t, "refine", r.Stage, "the engine went on after the client left")
	}
	_ = h.model.Close()
	var err error
	for start := time.Now(); time.Since(start) < hang; time.Sleep(50 * time.Millisecond) {
		if err = goleak.Find(opts...); err == nil {
			return
		}
	}
	t.Errorf("goroutines left behind: %v", err)
}
