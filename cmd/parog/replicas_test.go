package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/parog/parog-go/kgqa/sharedcache/redistest"
)

// TestReplicasShareRedis runs two `parog serve` processes of the real
// binary with one redis-server between them, as replicas behind a load
// balancer. A question answered by the first replica is answered by the
// second with every KG primitive from the shared cache: no SPARQL query
// of its own.
func TestReplicasShareRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the parog binary and runs two servers; skipped with -short")
	}
	bin := buildParog(t)
	rds := redistest.New(t)
	model := llmtest.New(t, llmtest.WithHandler(evalModel()))
	environ := os.Environ()
	for k, v := range evalEnv(model.URL()) {
		environ = append(environ, k+"="+v)
	}
	environ = append(environ, "PAROG_CACHE_BACKEND=redis", "PAROG_CACHE_REDIS_URL="+rds.URL)
	start := func() string {
		logs := &syncBuffer{}
		cmd := exec.Command(bin, "serve", "--config", demoConfig, "--addr", "127.0.0.1:0")
		cmd.Env = environ
		cmd.Stderr, cmd.Stdout = logs, io.Discard
		require.NoError(t, cmd.Start())
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
		return "http://" + waitListening(t, logs)
	}
	ask := func(base string) map[string]float64 {
		body := `{"question":"What country bordering France contains an airport that serves Nijmegen?"}`
		resp, err := http.Post(base+"/v1/ask", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		var out struct {
			Answer string `json:"answer"`
			Usage  struct {
				SPARQL    float64 `json:"sparql_queries"`
				CacheHits float64 `json:"cache_hits"`
				Misses    float64 `json:"cache_misses"`
			} `json:"usage"`
		}
		require.NoError(t, json.NewDecoder(bytes.NewReader(data)).Decode(&out))
		assert.Contains(t, out.Answer, "Germany")
		return map[string]float64{"sparql": out.Usage.SPARQL, "hits": out.Usage.CacheHits, "misses": out.Usage.Misses}
	}
	first, second := start(), start()
	a := ask(first)
	require.Positive(t, a["sparql"], "the first replica queried its KG")
	b := ask(second)
	t.Logf("first replica: %v; second replica: %v", a, b)
	assert.Zero(t, b["sparql"], "the second replica sent no SPARQL query")
	assert.Zero(t, b["misses"])
	assert.Equal(t, a["misses"], b["hits"], "every primitive the first computed was a cache hit for the second")
}
