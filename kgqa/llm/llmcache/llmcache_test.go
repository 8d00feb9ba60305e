package llmcache_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmcache"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

func TestKey(t *testing.T) {
	base := `{"model":"m","messages":[{"role":"user","content":"hi"}],"seed":1,"temperature":0}`
	k, _, err := llmcache.Key("/v1/chat/completions", []byte(base))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, path, body string
		same             bool
	}{
		{"key order and spaces", "/v1/chat/completions", `{ "seed":1, "temperature":0, "messages":[{"content":"hi","role":"user"}], "model":"m" }`, true},
		{"another base path", "/openai/v1/chat/completions", base, true},
		{"model", "/v1/chat/completions", strings.Replace(base, `"m"`, `"m2"`, 1), false},
		{"message", "/v1/chat/completions", strings.Replace(base, `"hi"`, `"hi!"`, 1), false},
		{"seed", "/v1/chat/completions", strings.Replace(base, `"seed":1`, `"seed":2`, 1), false},
		{"temperature", "/v1/chat/completions", strings.Replace(base, `"temperature":0`, `"temperature":0.5`, 1), false},
		{"response format", "/v1/chat/completions", strings.TrimSuffix(base, "}") + `,"response_format":{"type":"json_object"}}`, false},
		{"endpoint", "/v1/completions", base, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := llmcache.Key(tc.path, []byte(tc.body))
			require.NoError(t, err)
			assert.Equal(t, tc.same, got == k)
		})
	}
	_, _, err = llmcache.Key("/v1/chat/completions", []byte("not json"))
	assert.Error(t, err)
}

// client is an llm.Client whose HTTP goes through cache c to srv.
func client(t *testing.T, c *llmcache.Cache, url string) *llm.Client {
	t.Helper()
	ep := config.Endpoint{BaseURL: url, Model: "scripted", Retries: 2}
	cl, err := llm.New(config.LLM{Reasoner: ep}, llm.WithHTTPClient(&http.Client{Transport: c.Transport(nil)}),
		llm.WithBackoff(1, 1))
	require.NoError(t, err)
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

func ask(t *testing.T, cl *llm.Client, q string) (string, error) {
	t.Helper()
	resp, err := cl.Chat(t.Context(), kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "answer", Messages: []kgqa.Message{{Role: "user", Content: q}}})
	return resp.Content, err
}

func TestRecordThenReplay(t *testing.T) {
	var n atomic.Int64
	srv := llmtest.New(t, llmtest.WithHandler(func(req openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.Text(fmt.Sprintf("reply %d to %s", n.Add(1), req.Messages[0].Content))
	}))
	dir := t.TempDir()

	rec, err := llmcache.Open(dir, llmcache.ModeRecord)
	require.NoError(t, err)
	cl := client(t, rec, srv.URL())
	a, err := ask(t, cl, "one")
	require.NoError(t, err)
	assert.Equal(t, "reply 1 to one", a)
	b, err := ask(t, cl, "two")
	require.NoError(t, err)
	again, err := ask(t, cl, "one")
	require.NoError(t, err)
	assert.Equal(t, a, again, "a recorded request is answered from the cache")
	assert.Equal(t, 2, srv.Count())
	assert.Equal(t, llmcache.Stats{Hits: 1, Stored: 2}, rec.Stats())
	entries, err := rec.Len()
	require.NoError(t, err)
	assert.Equal(t, 2, entries)
	require.NoError(t, rec.Close())

	// Replay: no request reaches the server, the replies are the same,
	// and an unrecorded request fails at once naming its key.
	srv.Close()
	rep, err := llmcache.Open(dir, llmcache.ModeReplay)
	require.NoError(t, err)
	defer rep.Close()
	cl = client(t, rep, srv.URL())
	require.NoError(t, cl.Ping(t.Context(), kgqa.Reasoner), "the recording answers the readiness check")
	got, err := ask(t, cl, "two")
	require.NoError(t, err)
	assert.Equal(t, b, got)
	got, err = ask(t, cl, "one")
	require.NoError(t, err)
	assert.Equal(t, a, got)
	_, err = ask(t, cl, "three")
	require.Error(t, err)
	assert.True(t, errors.Is(err, llmcache.ErrMiss), err)
	var miss *llmcache.MissError
	require.True(t, errors.As(err, &miss))
	assert.Len(t, miss.Key, 64)
	assert.Contains(t, err.Error(), miss.Key)
	assert.Equal(t, llmcache.Stats{Hits: 2, Misses: 1}, rep.Stats(), "a miss is not retried")
}

func TestFailuresAreNotRecorded(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithReplies(llmtest.Error(http.StatusBadRequest, "bad"), llmtest.Text("fine")))
	c, err := llmcache.Open(t.TempDir(), llmcache.ModeRecord)
	require.NoError(t, err)
	defer c.Close()
	cl := client(t, c, srv.URL())
	_, err = ask(t, cl, "q")
	require.Error(t, err)
	got, err := ask(t, cl, "q")
	require.NoError(t, err)
	assert.Equal(t, "fine", got, "the 400 was not stored")
	assert.Equal(t, llmcache.Stats{Stored: 1}, c.Stats())
}
