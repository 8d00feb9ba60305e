package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKGDensify(t *testing.T) {
	dir := t.TempDir()
	td := filepath.Join("..", "..", "kgqa", "kgdata", "densify", "testdata")
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) (string, bool) { return "", false }}
		code := Main(context.Background(), append([]string{"kg", "densify"}, args...), env)
		return code, stdout.String(), stderr.String()
	}
	out := filepath.Join(dir, "world")
	code, stdout, stderr := run("--slice", filepath.Join(td, "slice.nt"), "--schema", filepath.Join(td, "schema"),
		"--out", out, "--target-triples", "30000", "--seed", "5", "--report", filepath.Join(dir, "r.json"))
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^\S+/world: \d+ triples in \d+ shards: 1258 real \(copied from slice.nt\), \d+ typing real entities, \d+ synthetic; `, stdout)
	assert.Regexp(t, `\n  hub m\.\S+: \d+ relations, \d+ facts\n`, stdout)
	assert.FileExists(t, filepath.Join(out, "part-00000.nt.gz"))
	assert.FileExists(t, filepath.Join(dir, "r.json"))

	code, _, stderr = run("--slice", filepath.Join(td, "slice.nt"), "--out", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--slice, --schema and --out are required")
	code, _, stderr = run("--slice", filepath.Join(dir, "none.nt"), "--schema", filepath.Join(td, "schema"), "--out", out, "--quiet")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "none.nt")
}
