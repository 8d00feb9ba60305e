package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/server"
)

func TestGoClient(t *testing.T) {
	h := newHarness(t, setup{opts: []server.Option{server.WithReadinessTTL(0)}})
	ctx := context.Background()
	hz, err := h.client.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, "ok", hz.Status)
	rz, err := h.client.Ready(ctx)
	require.NoError(t, err)
	assert.Len(t, rz.Checks, 4)
	s, err := h.client.Search(ctx, "France", 5)
	require.NoError(t, err)
	require.NotEmpty(t, s.Entities)
	assert.Equal(t, france, s.Entities[0].ID)
	p, err := h.client.Plan(ctx, capitalQ)
	require.NoError(t, err)
	assert.NotEmpty(t, p.Plan.Subgoals)
	_, err = h.client.Entity(ctx, "not an id")
	var ae *api.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusBadRequest, ae.Status)
	assert.NotEmpty(t, ae.RequestID)
	h.llm.Close()
	rz, err = h.client.Ready(ctx)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusServiceUnavailable, ae.Status)
	assert.Equal(t, "unavailable", rz.Checks[2].Status)
	_, err = api.NewClient("ftp://x")
	assert.Error(t, err)
}
