package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/compile"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestAskAnswersFromTheKG(t *testing.T) {
	h := newHarness(t, setup{})
	for name, req := range map[string]api.AskRequest{
		"given topic":  {Question: capitalQ, TopicEntities: []string{france}},
		"linked topic": {Question: capitalQ},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := h.client.Ask(context.Background(), req)
			require.NoError(t, err)
			ids := []string{}
			for _, e := range resp.Entities {
				ids = append(ids, e.ID)
			}
			assert.Equal(t, []string{paris}, ids, "answer %q trace %+v", resp.Answer, resp.Trace)
			assert.Contains(t, resp.Answer, "Paris")
			require.NotNil(t, resp.Plan)
			assert.NotEmpty(t, resp.RequestID)
			assert.Positive(t, resp.Usage.LLM.Calls)
			assert.Positive(t, resp.Usage.SPARQLQueries+resp.Usage.CacheHits)
		})
	}
}

// The answer's certificate is verified by the engine, and the same query
// sent to /sparql returns the answer: what the viewer's run button does.
func TestAskCertificateRunsThroughSPARQL(t *testing.T) {
	h := newHarness(t, setup{})
	var final *api.AskResponse
	resp, err := h.client.AskStream(context.Background(), api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}, func(ev api.Event) error {
		if ev.Answer != nil {
			final = ev.Answer
		}
		return nil
	})
	require.NoError(t, err)
	require.NotNil(t, final, "the stream's final event carries the answer")
	for _, c := range []*kgqa.Certificate{resp.Certificate, final.Certificate} {
		require.NotNil(t, c)
		assert.True(t, c.Verified, "%s: %s", c.Error, c.SPARQL)
		assert.Equal(t, kgqa.CoversAll, c.Covers)
		assert.Equal(t, 1, c.Rows)
	}
	req, err := http.NewRequest(http.MethodPost, h.http.URL+"/sparql", strings.NewReader(resp.Certificate.SPARQL))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/sparql-query")
	r, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode, string(body))
	var res struct {
		Results struct {
			Bindings []map[string]struct {
				Value string `json:"value"`
			} `json:"bindings"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(body, &res))
	require.Len(t, res.Results.Bindings, 1)
	assert.Equal(t, "http://rdf.freebase.com/ns/"+paris, res.Results.Bindings[0][compile.AnswerVar].Value)
}
