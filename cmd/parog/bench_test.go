package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchOracleCLI(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runParog(t, nil, "bench", "oracle", "--config", demoConfig, "--format", "demo", "--demo=false",
		"--noise", "0,0.2", "--seeds", "1", "--noise-kinds", "semantic", "--sufficiency", "never", "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "## Ceiling from evidence alone")
	assert.Contains(t, stdout, "| 0.2 | 1 |", "the robustness row of noise 0.2")
	for _, f := range []string{"report.md", "report.json", "robustness.svg", "ceiling.jsonl", "evidence.jsonl", "noise-0.2-seed-1.jsonl", "tentative-wrong.jsonl"} {
		assert.FileExists(t, filepath.Join(dir, f), "--out is where the reports go, as docs/oracle.md says")
	}
	assert.NoDirExists(t, filepath.Join(dir, "demo"), "--demo=false")
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var rep struct {
		Ceiling     struct{ Total int } `json:"ceiling"`
		Sufficiency string              `json:"sufficiency"`
		Wording     string              `json:"wording"`
		NoiseKinds  []string            `json:"noise_kinds"`
		Robustness  []struct {
			Injected map[string]int `json:"injected"`
		} `json:"robustness"`
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, 22, rep.Ceiling.Total)
	assert.Equal(t, "never", rep.Sufficiency)
	assert.Equal(t, "gold", rep.Wording, "the gold plan's wording by default")
	assert.Contains(t, rep.NoiseKinds, "wrong_relation")
	require.Len(t, rep.Robustness, 2)
	assert.NotEmpty(t, rep.Robustness[1].Injected, "semantic errors injected at 0.2")
	for k := range rep.Robustness[1].Injected {
		assert.NotContains(t, []string{"fence", "prose", "trailing_comma", "cut_off", "empty", "refusal"}, k, "only the semantic family")
	}

	for name, args := range map[string][]string{
		"no subcommand":   {"bench"},
		"bad noise":       {"bench", "oracle", "--config", demoConfig, "--format", "demo", "--noise", "0,2"},
		"bad format":      {"bench", "oracle", "--config", demoConfig, "--format", "qald"},
		"bad kinds":       {"bench", "oracle", "--config", demoConfig, "--format", "demo", "--noise-kinds", "semantics"},
		"bad sufficiency": {"bench", "oracle", "--config", demoConfig, "--format", "demo", "--sufficiency", "lax"},
		"bad wording":     {"bench", "oracle", "--config", demoConfig, "--format", "demo", "--wording", "schema"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runParog(t, nil, args...)
			assert.Equal(t, 2, code, stderr)
		})
	}
}
