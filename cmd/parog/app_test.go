package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A config in a subdirectory names its KG file relative to itself; the
// config loader resolves that path once, so every command opens the same
// file. serve, ask and eval joined the config's directory to the
// resolved path a second time ("sub/g.nt" for "../g.nt" in sub/c.yaml)
// and failed where kg and bench, which passed no directory, worked.
func TestEveryCommandOpensTheConfiguredKG(t *testing.T) {
	fixture, err := os.ReadFile("../../kgqa/kg/testdata/fixture.nt")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g.nt"), fixture, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "c.yaml"),
		[]byte("kg:\n  backend: embedded\n  dialect: freebase\n  files: [../g.nt]\nllm:\n  reasoner:\n    base_url: http://127.0.0.1:9/v1\n    model: m\n"), 0o644))
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}

	code := Main(context.Background(), []string{"kg", "name", "--config", "sub/c.yaml", "m.0f8l9c"}, env)
	require.Equal(t, 0, code, errOut.String())
	assert.Equal(t, "France\n", out.String())

	cfg, err := (&configFlags{paths: multiFlag{"sub/c.yaml"}}).load(env)
	require.NoError(t, err)
	for _, tc := range []struct {
		name          string
		opts          []appOption
		graph, models bool
	}{
		{"serve, ask, eval", nil, true, true},
		{"kg, dataset answerable, bench", []appOption{graphOnly()}, true, false},
		{"sparql2plan --teacher, finetune eval-planner", []appOption{modelsOnly()}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := openApp(context.Background(), cfg, env, tc.opts...)
			require.NoError(t, err)
			defer func() { assert.NoError(t, a.Close()) }()
			assert.Equal(t, tc.graph, a.Graph != nil)
			assert.Equal(t, tc.models, a.LLM != nil)
			assert.Equal(t, tc.graph && tc.models, a.Engine != nil)
			assert.NotNil(t, a.Metrics)
			if a.Graph != nil {
				name, err := a.Graph.Name(context.Background(), "m.0f8l9c")
				require.NoError(t, err)
				assert.Equal(t, "France", name)
			}
		})
	}
}
