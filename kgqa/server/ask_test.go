package server_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
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
