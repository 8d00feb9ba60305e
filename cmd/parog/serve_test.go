package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the server's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningRE = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)

// waitListening waits for the server's "listening" log line and returns
// the address it names.
func waitListening(t *testing.T, logs *syncBuffer) string {
	t.Helper()
	var addr string
	require.Eventually(t, func() bool {
		m := listeningRE.FindStringSubmatch(logs.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	}, 30*time.Second, 20*time.Millisecond, "server did not start: %s", logs.String())
	return addr
}

// TestServeEndToEnd boots the real program (Main) on 127.0.0.1:0 with the
// demo config and no model, talks to it over HTTP and with `parog ask
// --server`, then stops it as SIGTERM would.
func TestServeEndToEnd(t *testing.T) {
	logs := &syncBuffer{}
	env := &Env{Stdout: io.Discard, Stderr: logs, Getenv: func(k string) (string, bool) {
		if k == "OPENAI_API_KEY" {
			return "sk-not-logged", true
		}
		return "", false
	}}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--config", "../../configs/demo.yaml", "--addr", "127.0.0.1:0", "--set", "llm.reasoner.api_key=sk-secret-value"}, env)
	}()
	addr := waitListening(t, logs)
	base := "http://" + addr

	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, _ := get("/healthz")
	assert.Equal(t, 200, status)
	status, body := get("/v1/entities/m.0f8l9c")
	assert.Equal(t, 200, status)
	assert.Contains(t, body, `"name":"France"`)
	resp, err := http.Post(base+"/v1/ask", "application/json", strings.NewReader(`{"question":"What is the capital of France?"}`))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, string(b), "PAROG_LLM_REASONER_BASE_URL")

	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"ask", "--server", base, "What is the capital of France?"},
		&Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }})
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), "503")
	assert.Contains(t, errOut.String(), "llm.reasoner.base_url")

	assert.Contains(t, logs.String(), "config.kg.backend=embedded", "effective config logged")
	assert.NotContains(t, logs.String(), "sk-secret-value", "secrets masked")

	stop()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, "logs: %s", logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	assert.Contains(t, logs.String(), "msg=stopped")
}

func TestServeRefusesPublicAddressWithoutKeys(t *testing.T) {
	var errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--config", "../../configs/demo.yaml", "--addr", "0.0.0.0:0"},
		&Env{Stdout: io.Discard, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }})
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), "not a loopback address")
}
