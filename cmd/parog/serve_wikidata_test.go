package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// TestServeWikidataDemo boots `parog serve` with configs/demo-wikidata.yaml
// and the scripted model as its reasoner, and asks a Wikidata demo
// question through /v1/ask with no topic entity: the server links "Weeze
// Airport" by its rdfs:label and follows wdt: edges to Berlin.
func TestServeWikidataDemo(t *testing.T) {
	var q dataset.DemoRecord
	for _, w := range demokg.WikidataQuestions() {
		if w.ID == "wd-05" {
			q = w
		}
	}
	require.NotEmpty(t, q.Question)
	model := llmtest.New(t, llmtest.WithHandler(kgqatest.NewWikidataDemoModel().Handle))
	logs := &syncBuffer{}
	env := &Env{Stdout: io.Discard, Stderr: logs, Getenv: func(string) (string, bool) { return "", false }}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--config", "../../configs/demo-wikidata.yaml", "--addr", "127.0.0.1:0",
			"--set", "llm.reasoner.base_url=" + model.URL(), "--set", "llm.reasoner.model=scripted"}, env)
	}()
	defer func() {
		stop()
		select {
		case code := <-done:
			assert.Equal(t, 0, code, "logs: %s", logs.String())
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	}()
	addr := waitListening(t, logs)
	assert.Contains(t, logs.String(), "dialect=wikidata")

	body, err := json.Marshal(api.AskRequest{Question: q.Question})
	require.NoError(t, err)
	resp, err := http.Post("http://"+addr+"/v1/ask", "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(raw))
	var ans api.AskResponse
	require.NoError(t, json.Unmarshal(raw, &ans), string(raw))
	require.Len(t, ans.Entities, 1, string(raw))
	assert.Equal(t, q.Answers[0].ID, ans.Entities[0].ID)
	assert.Equal(t, "Berlin", ans.Entities[0].Name)
	require.Len(t, ans.Trace.Topics, 1, "linked from the question")
	assert.Equal(t, q.TopicEntities[0].ID, ans.Trace.Topics[0].ID)
	assert.Equal(t, "linked", ans.Trace.Topics[0].Source)
}
