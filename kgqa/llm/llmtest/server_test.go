package llmtest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func sdk(t *testing.T, srv *llmtest.Server) *openai.Client {
	t.Helper()
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = srv.URL()
	hc := &http.Client{}
	t.Cleanup(hc.CloseIdleConnections)
	cfg.HTTPClient = hc
	return openai.NewClientWithConfig(cfg)
}

func userMsg(s string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: s}}
}

func TestNonStreamingWithWordUsage(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Text("two words")))
	resp, err := sdk(t, srv).CreateChatCompletion(context.Background(),
		openai.ChatCompletionRequest{Model: "m", Messages: userMsg("one two three")})
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	assert.Equal(t, "two words", resp.Choices[0].Message.Content)
	assert.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
	assert.Equal(t, openai.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}, resp.Usage)
	assert.Equal(t, "m", resp.Model)
}

func TestStreaming(t *testing.T) {
	content := "Germany borders France — and Nijmegen's airport is in Germany."
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Reply{Content: content, Usage: &openai.Usage{PromptTokens: 9, CompletionTokens: 4}}))
	stream, err := sdk(t, srv).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: userMsg("q"), Stream: true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	require.NoError(t, err)
	defer stream.Close()
	var got strings.Builder
	var usage *openai.Usage
	chunks := 0
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		chunks++
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, ch := range chunk.Choices {
			got.WriteString(ch.Delta.Content)
		}
	}
	assert.Equal(t, content, got.String())
	assert.Greater(t, chunks, 4, "the content arrives in several chunks")
	require.NotNil(t, usage)
	assert.Equal(t, 9, usage.PromptTokens)
}

func TestModels(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithModels("planner-8b", "reasoner"))
	list, err := sdk(t, srv).ListModels(context.Background())
	require.NoError(t, err)
	require.Len(t, list.Models, 2)
	assert.Equal(t, "planner-8b", list.Models[0].ID)
}

func TestQueueThenHandler(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.WithReplies(llmtest.Text("first"), llmtest.Text("second")),
		llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
			return llmtest.Text("echo: " + llmtest.LastUser(req))
		}))
	c := sdk(t, srv)
	var got []string
	for _, q := range []string{"a", "b", "c"} {
		resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg(q)})
		require.NoError(t, err)
		got = append(got, resp.Choices[0].Message.Content)
	}
	assert.Equal(t, []string{"first", "second", "echo: c"}, got)
	assert.Equal(t, 3, srv.Count())
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name   string
		reply  llmtest.Reply
		status int
		header string
	}{
		{"429", llmtest.RetryAfterSeconds(3), 429, "3"},
		{"500", llmtest.ServerError(), 500, ""},
		{"400", llmtest.Error(400, "bad"), 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithReplies(tt.reply))
			resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, tt.header, resp.Header.Get("Retry-After"))
			body, _ := io.ReadAll(resp.Body)
			assert.Contains(t, string(body), `"error":{`)
		})
	}
}

func TestMalformedBodyBreaksTheSDK(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Malformed()))
	_, err := sdk(t, srv).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg("q")})
	require.Error(t, err)
}

func TestHangEndsOnClientCancelAndOnClose(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Hang() }))
	c := sdk(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: userMsg("q")})
	require.ErrorIs(t, err, context.DeadlineExceeded)

	done := make(chan error, 1)
	go func() {
		_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg("q")})
		done <- err
	}()
	require.Eventually(t, func() bool { return srv.Count() == 2 }, 5*time.Second, 5*time.Millisecond)
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked on a hanging request")
	}
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the hanging request did not end on Close")
	}
}

func TestDelay(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithDelay(50*time.Millisecond), llmtest.WithReplies(llmtest.Text("a").After(50*time.Millisecond)))
	start := time.Now()
	_, err := sdk(t, srv).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg("q")})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond)
}

// TestStageFromClient checks that the stage the PARoG client names reaches
// handlers and the request log.
func TestStageFromClient(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(llmtest.ByStage(map[string]llmtest.Handler{
		"plan":   func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Text("a plan") },
		"refine": func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Text("a verdict") },
	}, nil)))
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model = srv.URL(), "m"
	c, err := llm.New(config.LLM{Reasoner: ep})
	require.NoError(t, err)
	defer c.Close()
	for stage, want := range map[kgqa.Stage]string{"plan": "a plan", "refine": "a verdict"} {
		resp, err := c.Chat(context.Background(), kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: stage,
			Messages: []kgqa.Message{{Role: "user", Content: "q"}}})
		require.NoError(t, err)
		assert.Equal(t, want, resp.Content)
	}
	for _, r := range srv.Requests() {
		assert.Contains(t, []string{"plan", "refine"}, r.Stage)
		assert.Empty(t, r.Chat.Metadata, "the client itself sends no metadata")
	}
}

func TestLogOrCountOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []llmtest.Option
		wantLog int
	}{
		{"log", nil, 2},
		{"without log", []llmtest.Option{llmtest.WithoutLog()}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, append(tc.opts, llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
				return llmtest.Text("echo: " + llmtest.LastUser(req))
			}))...)
			c := sdk(t, srv)
			for _, q := range []string{"a", "b"} {
				resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg(q)})
				require.NoError(t, err)
				assert.Equal(t, "echo: "+q, resp.Choices[0].Message.Content)
			}
			assert.Equal(t, 2, srv.Count())
			assert.Len(t, srv.Requests(), tc.wantLog)
		})
	}
}
