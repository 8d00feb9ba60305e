package llm_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// TestShippedEndpointConfigsNeedOnlyKeyAndURL loads every configs/llm-*.yaml
// with nothing set but the base URL (pointed at the scripted server) and
// the key its api_key_env names, and makes one JSON call with it.
func TestShippedEndpointConfigsNeedOnlyKeyAndURL(t *testing.T) {
	files, err := filepath.Glob("../../configs/llm-*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 5)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text(`{"answer": "Paris"}`)))
			env := map[string]string{"PAROG_LLM_REASONER_BASE_URL": srv.URL()}
			cfg, err := config.Load(f, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil)
			require.NoError(t, err)
			keyEnv := cfg.LLM.Reasoner.APIKeyEnv
			getenv := func(k string) (string, bool) {
				if k == keyEnv {
					return "sk-test", true
				}
				return "", false
			}
			c, err := llm.New(cfg.LLM, llm.WithGetenv(getenv))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			var out struct {
				Answer string `json:"answer"`
			}
			_, err = c.JSON(context.Background(), kgqa.ChatRequest{
				Role: kgqa.Reasoner, Stage: "final", Messages: []kgqa.Message{{Role: "user", Content: "Capital of France?"}},
				Schema: []byte(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`),
			}, &out, nil)
			require.NoError(t, err)
			assert.Equal(t, "Paris", out.Answer)
			r := srv.Requests()[0]
			assert.Equal(t, cfg.LLM.Reasoner.Model, r.Chat.Model)
			if keyEnv != "" {
				assert.Equal(t, "Bearer sk-test", r.Header.Get("Authorization"))
			}
			assert.Positive(t, cfg.LLM.Reasoner.SeedTemperature, "eval --seeds samples")
		})
	}
}
