package oracle

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/prompts"
)

func TestLatencyDelay(t *testing.T) {
	l := Latency{Prefill: 1000, Decode: 50, Overhead: 300 * time.Millisecond}
	for name, c := range map[string]struct {
		usage openai.Usage
		want  time.Duration
	}{
		"overhead alone":                   {openai.Usage{}, 300 * time.Millisecond},
		"prompt read at prefill":           {openai.Usage{PromptTokens: 2000}, 300*time.Millisecond + 2*time.Second},
		"reply written at decode":          {openai.Usage{CompletionTokens: 25}, 300*time.Millisecond + 500*time.Millisecond},
		"overhead + prefill + decode":      {openai.Usage{PromptTokens: 1500, CompletionTokens: 100}, 300*time.Millisecond + 1500*time.Millisecond + 2*time.Second},
		"total tokens are not counted too": {openai.Usage{PromptTokens: 1000, CompletionTokens: 50, TotalTokens: 1050}, 2300 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, c.want, l.Delay(c.usage))
		})
	}
	assert.Equal(t, 300*time.Millisecond+2*time.Second, l.FirstToken(2000), "the first token waits for the prompt, not the reply")
	assert.Zero(t, Latency{}.Delay(openai.Usage{PromptTokens: 1e6, CompletionTokens: 1e6}), "no latency, no delay")
}

func TestParseLatency(t *testing.T) {
	for spec, want := range map[string]Latency{
		"":                                     {},
		"none":                                 {},
		"prefill=8000,decode=40,overhead=250":  {Prefill: 8000, Decode: 40, Overhead: 250 * time.Millisecond},
		" decode=40 , prefill=1e4 ":            {Prefill: 10000, Decode: 40},
		"prefill=100,decode=2.5,overhead=0.5":  {Prefill: 100, Decode: 2.5, Overhead: 500 * time.Microsecond},
		"vllm-llama3.1-8b":                     LatencyPresets[0],
		"gpt-4o-mini":                          LatencyPresets[1],
		"overhead=1000,decode=10,prefill=1000": {Prefill: 1000, Decode: 10, Overhead: time.Second},
	} {
		t.Run(spec, func(t *testing.T) {
			got, err := ParseLatency(spec)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
	t.Run("the presets are named and complete", func(t *testing.T) {
		for _, p := range LatencyPresets {
			assert.NotEmpty(t, p.Name)
			assert.Positive(t, p.Prefill, p.Name)
			assert.Positive(t, p.Decode, p.Name)
			assert.Positive(t, p.Overhead, p.Name)
			assert.Contains(t, p.String(), p.Name+" (prefill=")
		}
	})
}

func TestParseLatencyErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"gpt-5":                              "not a preset (vllm-llama3.1-8b, gpt-4o-mini)",
		"prefill=1000":                       "prefill and decode are both required",
		"decode=20,overhead=5":               "prefill and decode are both required",
		"prefill=1000,decode=0":              "decode must be above 0",
		"prefill=-5,decode=20":               "prefill must be above 0",
		"prefill=1000,decode=20,overhead=-1": "overhead must be between 0",
		"prefill=fast,decode=20":             `prefill="fast" is not a number`,
		"prefill=NaN,decode=20":              "is not a number",
		"prefill=1000,decode=20,ttft=300":    `unknown key "ttft"`,
		"prefill=1000,decode=20,decode=30":   "decode given twice",
		"prefill=1000,decode":                `"decode" is not KEY=VALUE`,
		"prefill=1000,decode=20,overhead=1s": `overhead="1s" is not a number`,
	} {
		t.Run(spec, func(t *testing.T) {
			_, err := ParseLatency(spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
}

// slowServer serves m and tells entered when a request reaches the
// handler and left when the handler returns.
func slowServer(t *testing.T, m *Model) (url string, entered, left chan struct{}) {
	t.Helper()
	entered, left = make(chan struct{}, 8), make(chan struct{}, 8)
	h := m.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		defer func() { left <- struct{}{} }()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", entered, left
}

// TestLatencyHonoursCancellation: a reply due in an hour is not sent
// while the client waits, and the handler returns as soon as the client
// gives up, streaming or not.
func TestLatencyHonoursCancellation(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := map[bool]string{false: "one reply", true: "streaming"}[streaming]
		t.Run(name, func(t *testing.T) {
			m := demoModel(t, WithLatency(Latency{Prefill: 1000, Decode: 50, Overhead: time.Hour}))
			url, entered, left := slowServer(t, m)
			cfg := openai.DefaultConfig("")
			cfg.BaseURL = url
			c := openai.NewClientWithConfig(cfg)
			req := chatRequest(t, prompts.Tentative, sampleData()[prompts.Tentative], true)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				if !streaming {
					_, err := c.CreateChatCompletion(ctx, req)
					errc <- err
					return
				}
				req.Stream = true
				s, err := c.CreateChatCompletionStream(ctx, req)
				if err == nil {
					_, err = s.Recv()
					s.Close()
				}
				errc <- err
			}()
			select {
			case <-entered:
			case <-time.After(30 * time.Second):
				t.Fatal("the request never reached the oracle")
			}
			select {
			case err := <-errc:
				t.Fatalf("the reply came before its time: %v", err)
			default:
			}
			cancel()
			select {
			case err := <-errc:
				require.Error(t, err)
				assert.True(t, errors.Is(err, context.Canceled), "%v", err)
			case <-time.After(30 * time.Second):
				t.Fatal("the client did not return after cancelling")
			}
			select {
			case <-left:
			case <-time.After(30 * time.Second):
				t.Fatal("the oracle kept waiting after the client gave up")
			}
		})
	}
}

// TestLatencyDelaysNotRefusals: a request the oracle refuses is refused
// at once, whatever the latency (a server rejects a bad request before
// running the model).
func TestLatencyDelaysNotRefusals(t *testing.T) {
	m := demoModel(t, WithLatency(Latency{Prefill: 1000, Decode: 50, Overhead: time.Hour}))
	url, _, _ := slowServer(t, m)
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	c := openai.NewClientWithConfig(cfg)
	done := make(chan error, 1)
	go func() {
		_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: ModelID,
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Tell me a joke."}}})
		done <- err
	}()
	select {
	case err := <-done:
		var apiErr *openai.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusBadRequest, apiErr.HTTPStatusCode)
	case <-time.After(30 * time.Second):
		t.Fatal("a refusal waited for the latency")
	}
}

// TestRepliesWaitTheirDelay records what the handler waits: a reply its
// whole Delay, a stream its first token's time and then its decode time
// chunk by chunk, the same total.
func TestRepliesWaitTheirDelay(t *testing.T) {
	lat := Latency{Prefill: 100, Decode: 10, Overhead: 250 * time.Millisecond}
	m := demoModel(t, WithLatency(lat))
	var mu sync.Mutex
	var waited []time.Duration
	m.pause = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waited = append(waited, d)
		return ctx.Err()
	}
	url, _, _ := slowServer(t, m)
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	c := openai.NewClientWithConfig(cfg)
	req := chatRequest(t, prompts.Tentative, sampleData()[prompts.Tentative], true)
	resp, err := c.CreateChatCompletion(context.Background(), req)
	require.NoError(t, err)
	require.Positive(t, resp.Usage.CompletionTokens)
	want := lat.Delay(resp.Usage)
	assert.Equal(t, []time.Duration{want}, waited, "one wait of overhead + prompt/prefill + completion/decode")

	waited = nil
	req.Stream, req.StreamOptions = true, &openai.StreamOptions{IncludeUsage: true}
	s, err := c.CreateChatCompletionStream(context.Background(), req)
	require.NoError(t, err)
	defer s.Close()
	for {
		_, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
	}
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, waited)
	assert.Equal(t, lat.FirstToken(resp.Usage.PromptTokens), waited[0], "the first chunk waits for the prompt")
	var total time.Duration
	for _, d := range waited {
		total += d
	}
	assert.InDelta(t, float64(want), float64(total), float64(len(waited)), "the chunks' waits add up to the reply's delay (to the nanosecond per chunk)")
}
