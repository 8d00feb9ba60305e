package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAskRefusesAHostedAPIWithoutItsKey runs the binary on
// configs/llm-openai.yaml without OPENAI_API_KEY, every HTTP(S) request
// routed to a local proxy that counts connections: ask exits non-zero,
// names the variable, and sends nothing.
func TestAskRefusesAHostedAPIWithoutItsKey(t *testing.T) {
	bin := buildParog(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			_ = c.Close()
		}
	}()
	proxy := "http://" + ln.Addr().String()
	cmd := exec.Command(bin, "ask", "--config", "../../configs/llm-openai.yaml", "What is the capital of France?")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "OPENAI_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY":
			continue
		}
		if strings.HasPrefix(k, "PAROG_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HTTPS_PROXY="+proxy, "HTTP_PROXY="+proxy)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	assert.NotZero(t, exit.ExitCode())
	assert.Contains(t, stderr.String(), "OPENAI_API_KEY is not set")
	assert.Zero(t, conns.Load(), "nothing was sent")
}
