package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// A negative --limit is a usage error on every command that takes one,
// before anything is read.
func TestLimitRejectsNegatives(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"eval", "--config", demoConfig, "--dataset", "demo", "--out", filepath.Join(dir, "o.jsonl"), "--limit", "-4"},
		{"bench", "oracle", "--config", demoConfig, "--limit", "-4"},
		{"eval", "merge", "--limit", "-4", "--out", filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "a.jsonl")},
		{"kg", "search", "--config", demoConfig, "--limit", "-4", "France"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			code, _, stderr := runParog(t, nil, args...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, `invalid value "-4" for flag -limit`)
			assert.Contains(t, stderr, "0 or more")
		})
	}
}

// eval --out on a full device says the device is full; it read the
// device's endless zeros as one results line longer than the cap.
func TestEvalOutOnAFullDevice(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full on this system: %v", err)
	}
	srv := llmtest.New(t, llmtest.WithHandler(evalModel()))
	code, _, stderr := runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig, "--dataset", "demo",
		"--out", "/dev/full", "--force", "--limit", "1", "--no-progress")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "no space left on device")
	assert.NotContains(t, stderr, "line longer than")
}

// serve --files checks its directory at start.
func TestServeFilesMustBeADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for path, why := range map[string]string{
		filepath.Join(t.TempDir(), "none"): "no such file or directory",
		file:                               "not a directory",
	} {
		code, _, stderr := runParog(t, nil, "serve", "--config", demoConfig, "--addr", "127.0.0.1:0", "--files", path)
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, "--files "+path)
		assert.Contains(t, stderr, why)
	}
}
