package llm

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// sent makes one call with the endpoint edited and returns the raw JSON
// body the server received.
func sent(t *testing.T, edit func(*config.Endpoint), req kgqa.ChatRequest) map[string]json.RawMessage {
	t.Helper()
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text("ok")))
	c := newClient(t, srv, edit)
	_, err := c.Chat(context.Background(), req)
	require.NoError(t, err)
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(srv.Requests()[0].Body, &raw))
	return raw
}

func TestSamplingParameters(t *testing.T) {
	seed := 42
	t.Run("seed sent when set", func(t *testing.T) {
		raw := sent(t, func(e *config.Endpoint) { e.Seed = &seed }, ask("plan", "q"))
		assert.JSONEq(t, `42`, string(raw["seed"]))
	})
	t.Run("seed zero is still sent", func(t *testing.T) {
		zero := 0
		raw := sent(t, func(e *config.Endpoint) { e.Seed = &zero }, ask("plan", "q"))
		assert.JSONEq(t, `0`, string(raw["seed"]))
	})
	t.Run("no seed when unset", func(t *testing.T) {
		raw := sent(t, nil, ask("plan", "q"))
		assert.NotContains(t, raw, "seed")
	})
	t.Run("temperature zero is sent as greedy", func(t *testing.T) {
		raw := sent(t, func(e *config.Endpoint) { e.Temperature = 0 }, ask("plan", "q"))
		require.Contains(t, raw, "temperature")
		var temp float64
		require.NoError(t, json.Unmarshal(raw["temperature"], &temp))
		assert.Greater(t, temp, 0.0)
		assert.Less(t, temp, 1e-30)
	})
	t.Run("temperature and model", func(t *testing.T) {
		raw := sent(t, func(e *config.Endpoint) { e.Temperature = 0.7; e.Model = "llama-planner" }, ask("plan", "q"))
		assert.JSONEq(t, `"llama-planner"`, string(raw["model"]))
		var temp float64
		require.NoError(t, json.Unmarshal(raw["temperature"], &temp))
		assert.InDelta(t, 0.7, temp, 1e-6)
	})
	t.Run("max tokens from role and request", func(t *testing.T) {
		raw := sent(t, func(e *config.Endpoint) { e.MaxTokens = 300 }, ask("plan", "q"))
		assert.JSONEq(t, `300`, string(raw["max_tokens"]))
		req := ask("plan", "q")
		req.MaxTokens = 50
		raw = sent(t, func(e *config.Endpoint) { e.MaxTokens = 300 }, req)
		assert.JSONEq(t, `50`, string(raw["max_tokens"]))
	})
	t.Run("reasoning models get max_completion_tokens and no temperature", func(t *testing.T) {
		raw := sent(t, func(e *config.Endpoint) { e.Model = "o3-mini"; e.MaxTokens = 300 }, ask("plan", "q"))
		assert.JSONEq(t, `300`, string(raw["max_completion_tokens"]))
		assert.NotContains(t, raw, "max_tokens")
		assert.NotContains(t, raw, "temperature")
	})
}

func TestAPIKey(t *testing.T) {
	env := map[string]string{"PAROG_TEST_LLM_KEY": "from-env"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name string
		edit func(*config.Endpoint)
		want string
	}{
		{"from env", func(e *config.Endpoint) { e.APIKeyEnv = "PAROG_TEST_LLM_KEY" }, "Bearer from-env"},
		{"config key wins", func(e *config.Endpoint) { e.APIKey = "inline"; e.APIKeyEnv = "PAROG_TEST_LLM_KEY" }, "Bearer inline"},
		{"none", nil, ""},
		{"unset key variable sends none", func(e *config.Endpoint) { e.APIKeyEnv = "PAROG_TEST_UNSET" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text("ok")))
			c := newClient(t, srv, tt.edit, WithGetenv(getenv))
			_, err := c.Chat(context.Background(), ask("plan", "q"))
			require.NoError(t, err)
			auth := srv.Requests()[0].Header.Get("Authorization")
			assert.Equal(t, tt.want, auth)
		})
	}
}

func TestNewRejectsBadSettings(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*config.Endpoint)
		setting string
	}{
		{"relative url", func(e *config.Endpoint) { e.BaseURL = "localhost:8000/v1" }, "llm.reasoner.base_url"},
		{"ftp url", func(e *config.Endpoint) { e.BaseURL = "ftp://x/v1" }, "llm.reasoner.base_url"},
		{"no model", func(e *config.Endpoint) { e.Model = "" }, "llm.reasoner.model"},
		{"negative concurrency", func(e *config.Endpoint) { e.Concurrency = -1 }, "llm.reasoner.concurrency"},
		{"negative retries", func(e *config.Endpoint) { e.Retries = -1 }, "llm.reasoner.retries"},
		{"negative timeout", func(e *config.Endpoint) { e.Timeout = -time.Second }, "llm.reasoner.timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := config.Default().LLM.Reasoner
			ep.BaseURL, ep.Model = "http://127.0.0.1:1/v1", "m"
			tt.edit(&ep)
			_, err := New(config.LLM{Reasoner: ep}, WithGetenv(func(string) (string, bool) { return "", false }))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.setting)
		})
	}
	t.Run("all roles empty is fine", func(t *testing.T) {
		c, err := New(config.Default().LLM)
		require.NoError(t, err)
		assert.False(t, c.Has(kgqa.Planner) || c.Has(kgqa.Reasoner) || c.Has(kgqa.Teacher))
	})
}

func TestLedger(t *testing.T) {
	var nilLedger *kgqa.Ledger
	nilLedger.Add(kgqa.Call{Role: kgqa.Planner})
	assert.Nil(t, nilLedger.Calls())
	assert.Zero(t, nilLedger.Summary().Calls)
	assert.Nil(t, kgqa.LedgerFrom(context.Background()))

	l := kgqa.NewLedger()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			c := kgqa.Call{Role: kgqa.Reasoner, Stage: "refine", PromptTokens: 10, CompletionTokens: 2, Latency: time.Millisecond}
			if i%5 == 0 {
				c = kgqa.Call{Role: kgqa.Planner, Stage: "plan", PromptTokens: 100, CompletionTokens: 20, Retries: 1, Err: "boom"}
			}
			l.Add(c)
		})
	}
	wg.Wait()
	u := l.Summary()
	assert.Equal(t, 50, u.Calls)
	assert.Equal(t, 40*10+10*100, u.PromptTokens)
	assert.Equal(t, 40*2+10*20, u.CompletionTokens)
	assert.Equal(t, 10, u.Failed)
	assert.Equal(t, 10, u.Retries)
	assert.Equal(t, kgqa.Tally{Calls: 10, Failed: 10, PromptTokens: 1000, CompletionTokens: 200, TotalTokens: 1200, Retries: 10}, u.ByStage["plan"])
	assert.Equal(t, 40, u.ByRole[kgqa.Reasoner].Calls)
	assert.Equal(t, 40*time.Millisecond, u.ByRole[kgqa.Reasoner].Latency)

	b, err := json.Marshal(u)
	require.NoError(t, err)
	var back kgqa.LLMUsage
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, u, back)
	assert.Contains(t, string(b), `"total_tokens":1680`)
}

func TestSeedFromContextOverridesConfig(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Text("ok") }))
	seven := 7
	c, err := New(config.LLM{Reasoner: config.Endpoint{BaseURL: srv.URL(), Model: "m", Seed: &seven, MaxTokens: 10, Concurrency: 1}})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Chat(WithSeed(context.Background(), 3), kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "s", Messages: []kgqa.Message{{Role: "user", Content: "q"}}})
	require.NoError(t, err)
	_, err = c.Chat(context.Background(), kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "s", Messages: []kgqa.Message{{Role: "user", Content: "q"}}})
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.NotNil(t, reqs[0].Chat.Seed)
	assert.Equal(t, 3, *reqs[0].Chat.Seed, "the context's seed wins")
	require.NotNil(t, reqs[1].Chat.Seed)
	assert.Equal(t, 7, *reqs[1].Chat.Seed, "without one, the role's seed is sent")
}
