package llm

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// A key variable that is not set sends no key and says so once, however
// many roles name it: Ollama, vLLM and llama.cpp want none.
func TestUnsetKeyVariableIsNotedOnce(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text("ok")))
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model, ep.APIKeyEnv = srv.URL(), "m", "PAROG_TEST_UNSET"
	var logs bytes.Buffer
	c, err := New(config.LLM{Planner: ep, Reasoner: ep},
		WithGetenv(func(string) (string, bool) { return "", false }),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	assert.Equal(t, 1, strings.Count(logs.String(), "PAROG_TEST_UNSET"), logs.String())
	assert.Contains(t, logs.String(), "sending no API key")
	_, err = c.Chat(context.Background(), ask("plan", "q"))
	require.NoError(t, err)
	assert.Empty(t, srv.Requests()[0].Header.Get("Authorization"))
}

func TestPing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refused := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())
	var auth string
	keyed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		if auth != "Bearer sekrit" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"object": "list", "data": []}`))
	}))
	t.Cleanup(keyed.Close)
	up := llmtest.New(t)
	tests := []struct {
		name, url, key string
		want           string // "" is success
	}{
		{"answers", up.URL(), "", ""},
		{"sends the calls' key", keyed.URL + "/v1", "sekrit", ""},
		{"error status", keyed.URL + "/v1", "", "answered GET /models with 401"},
		{"connection refused", refused, "", "did not answer GET /models"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := config.Endpoint{BaseURL: tt.url, Model: "m", APIKey: tt.key}
			c, err := New(config.LLM{Reasoner: ep})
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			err = c.Ping(context.Background(), kgqa.Reasoner)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, kgqa.ErrModelUnavailable)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "llm: reasoner:")
		})
	}
	t.Run("unconfigured role", func(t *testing.T) {
		c, err := New(config.LLM{})
		require.NoError(t, err)
		require.ErrorIs(t, c.Ping(context.Background(), kgqa.Planner), kgqa.ErrModelNotConfigured)
	})
}
