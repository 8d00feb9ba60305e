package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/server"
)

// TestServerObeysTheEngineBudgets builds a server the way a library user
// would, from an engine configured with its own budgets and no other
// budget option, and checks that a request without options runs under the
// engine's budgets, not the package defaults: a deadline far shorter than
// the scripted model's delay ends the question with 504, and a request's
// own options still override the rest.
func TestServerObeysTheEngineBudgets(t *testing.T) {
	cfg := config.Default()
	cfg.KG.Files = []string{"builtin:demo-freebase"}
	cfg.Server.Addr = "127.0.0.1:0"
	cfg.Server.RateLimit = 0
	cfg.Engine.Deadline = 150 * time.Millisecond
	srv := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel()), llmtest.WithDelay(400*time.Millisecond))
	cfg.LLM.Reasoner.BaseURL, cfg.LLM.Reasoner.Model, cfg.LLM.Reasoner.Retries = srv.URL(), "scripted", 0
	g, err := kg.Open(context.Background(), cfg.KG, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	client, err := llm.New(cfg.LLM)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	eng, err := engine.New(g, client, cfg.Engine)
	require.NoError(t, err)
	s, err := server.New(cfg.Server, g, server.WithEngine(eng), server.WithLLMConfig(cfg.LLM), server.WithLogger(discardLogger()))
	require.NoError(t, err)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	c, err := api.NewClient(hs.URL)
	require.NoError(t, err)

	_, err = c.Ask(context.Background(), api.AskRequest{Question: capitalQ, TopicEntities: []string{france}})
	var ae *api.Error
	require.True(t, errors.As(err, &ae), "want an API error, got %v", err)
	assert.Equal(t, http.StatusGatewayTimeout, ae.Status, "the engine's 150 ms deadline applies: %v", err)

	bad := 0
	_, err = c.Ask(context.Background(), api.AskRequest{Question: capitalQ, Options: &api.Options{Width: &bad}})
	require.True(t, errors.As(err, &ae), "want an API error, got %v", err)
	assert.Equal(t, http.StatusBadRequest, ae.Status)
	assert.Contains(t, ae.Message, "options.width")
}
