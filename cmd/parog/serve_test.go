package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/demokg"
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

// serveDemo boots `make run`'s configuration (configs/demo.yaml, no model)
// on a free port until the test ends, and returns its base URL and log.
func serveDemo(t *testing.T) (string, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	env := &Env{Stdout: io.Discard, Stderr: logs, Getenv: func(string) (string, bool) { return "", false }}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--config", "../../configs/demo.yaml", "--addr", "127.0.0.1:0"}, env)
	}()
	t.Cleanup(func() {
		stop()
		<-done
	})
	return "http://" + waitListening(t, logs), logs
}

// TestServeEndToEnd boots the real program (Main) on 127.0.0.1:0 with no
// model on a KG other than the Freebase demo graph (the Wikidata-style one,
// which the scripted demo model does not stand in for), talks to it over
// HTTP and with `parog ask --server`, then stops it as SIGTERM would.
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
		done <- Main(ctx, []string{"serve", "--config", "../../configs/demo.yaml", "--addr", "127.0.0.1:0",
			"--set", "kg.files=builtin:demo-wikidata", "--set", "kg.dialect=wikidata", "--set", "llm.reasoner.api_key=sk-secret-value"}, env)
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
	status, body := get("/v1/entities/Q142")
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

	assert.Contains(t, logs.String(), `msg="knowledge graph" backend=embedded dialect=wikidata files=builtin:demo-wikidata`)
	assert.NotContains(t, logs.String(), "config.kg.backend", "the full configuration is at debug level")
	startup, _, _ := strings.Cut(logs.String(), "msg=listening")
	for _, line := range strings.Split(startup, "\n") {
		assert.Less(t, len(line), 300, "a short startup log line: %s", line)
	}
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

// TestServeDemoModel boots `make run`'s configuration (configs/demo.yaml,
// no model): the scripted demo model answers the demo questions, and the
// log, /readyz and /ui/auth say so; a model config replaces it.
func TestServeDemoModel(t *testing.T) {
	base, logs := serveDemo(t)
	assert.Contains(t, logs.String(), demoModelLabel)

	get := func(path string) string {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
		return string(b)
	}
	assert.Contains(t, get("/readyz"), `"model":"scripted demo model: answers the demo questions"`)
	var auth struct {
		Ask       bool   `json:"ask"`
		Model     string `json:"model"`
		Questions []struct {
			ID, Question string
		} `json:"questions"`
	}
	require.NoError(t, json.Unmarshal([]byte(get("/ui/auth")), &auth))
	assert.True(t, auth.Ask)
	assert.Equal(t, demoModelLabel, auth.Model)
	require.Len(t, auth.Questions, len(demokg.FreebaseQuestions()))
	q := demokg.FreebaseQuestions()[0]
	assert.Equal(t, q.Question, auth.Questions[0].Question)

	body, _ := json.Marshal(map[string]string{"question": q.Question})
	resp, err := http.Post(base+"/v1/ask", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	for _, a := range q.Answers {
		assert.Contains(t, string(b), a.Name)
	}
}

func TestServeModelReplacesDemoModel(t *testing.T) {
	cfg, err := (&configFlags{paths: multiFlag{"../../configs/demo.yaml", "../../configs/llm-ollama.yaml"}}).load(&Env{Getenv: func(string) (string, bool) { return "", false }})
	require.NoError(t, err)
	assert.False(t, wantsDemoModel(cfg), "a configured model")
	cfg, err = (&configFlags{paths: multiFlag{"../../configs/demo.yaml"}}).load(&Env{Getenv: func(string) (string, bool) { return "", false }})
	require.NoError(t, err)
	assert.True(t, wantsDemoModel(cfg), "make run's configuration")
}
