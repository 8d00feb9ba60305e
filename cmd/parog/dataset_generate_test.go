package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGenerateThenAnswerable builds a small dense world from densify's
// excerpt of the real slice and schema, generates questions on it, and
// reads them back with parog dataset answerable: every gold query returns
// exactly its answers.
func TestGenerateThenAnswerable(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
		code := Main(context.Background(), args, env)
		return code, out.String(), errOut.String()
	}
	const data = "../../kgqa/kgdata/densify/testdata"
	world := filepath.Join(dir, "world")
	code, _, stderr := run("kg", "densify", "--slice", data+"/slice.nt", "--schema", data+"/schema", "--out", world,
		"--target-triples", "30000", "--seed", "2", "--quiet")
	require.Equal(t, 0, code, stderr)
	cfg := filepath.Join(dir, "kg.yaml")
	shards, err := filepath.Glob(filepath.Join(world, "part-*.nt.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, shards)
	require.NoError(t, os.WriteFile(cfg, []byte("kg:\n  backend: embedded\n  dialect: freebase\n  files: ["+strings.Join(shards, ", ")+"]\n"), 0o644))

	for _, format := range []string{"cwq", "grailqa"} {
		out := filepath.Join(dir, format+".json")
		code, stdout, stderr := run("dataset", "generate", "--config", cfg, "--format", format, "--out", out,
			"--shapes", "conjunction,count,superlative", "--per-shape", "3", "--seed", "5", "--schema", data+"/schema")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "9 questions written to "+out+": conjunction 3 (")
		code, stdout, stderr = run("dataset", "answerable", "--config", cfg, "--format", format, "--keep", "exact",
			"--input", out, "--out", filepath.Join(dir, format+"-exact.json"))
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, fmt.Sprintf("9 questions: exact 9, superset 0, partial 0, none 0, failed 0; 9 written to %s", filepath.Join(dir, format+"-exact.json")))
	}

	code, _, stderr = run("dataset", "generate", "--config", cfg, "--format", "webqsp", "--out", filepath.Join(dir, "x.json"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--format: want cwq or grailqa, not "webqsp"`)
	code, _, stderr = run("dataset", "generate", "--config", cfg, "--format", "cwq", "--out", filepath.Join(dir, "x.json"), "--shapes", "linear")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown shape "linear"`)
}

// TestGeneratedTimeAndTextCertificatesVerify builds the small dense world,
// generates time and text questions on it, and benchmarks the engine with
// the perfect oracle: every answer's certificate verifies on the world and
// returns what the gold query returns, as the report's certificate table
// by type says.
func TestGeneratedTimeAndTextCertificatesVerify(t *testing.T) {
	dir := t.TempDir()
	const data = "../../kgqa/kgdata/densify/testdata"
	world := filepath.Join(dir, "world")
	code, _, stderr := runParog(t, nil, "kg", "densify", "--slice", data+"/slice.nt", "--schema", data+"/schema", "--out", world,
		"--target-triples", "40000", "--seed", "3", "--quiet")
	require.Equal(t, 0, code, stderr)
	shards, err := filepath.Glob(filepath.Join(world, "part-*.nt.gz"))
	require.NoError(t, err)
	cfg := filepath.Join(dir, "kg.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("kg:\n  backend: embedded\n  dialect: freebase\n  files: ["+strings.Join(shards, ", ")+"]\n"), 0o644))
	qs := filepath.Join(dir, "gen.json")
	code, _, stderr = runParog(t, nil, "dataset", "generate", "--config", cfg, "--format", "cwq", "--out", qs,
		"--shapes", "time,text", "--per-shape", "4", "--seed", "1", "--schema", data+"/schema")
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := runParog(t, nil, "bench", "oracle", "--config", cfg, "--format", "cwq", "--input", qs,
		"--noise", "0", "--seeds", "1", "--demo=false", "--out", filepath.Join(dir, "bench"))
	require.Equal(t, 0, code, stderr)
	_, table, ok := strings.Cut(stdout, "## Certificates by type (perfect oracle)")
	require.True(t, ok)
	table, _, _ = strings.Cut(table, "\n## ")
	rows := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, " | "); len(cells) == 8 && (cells[0] == "| time" || cells[0] == "| text") {
			rows[strings.TrimPrefix(cells[0], "| ")] = cells[1:]
		}
	}
	for _, shape := range []string{"time", "text"} {
		c := rows[shape]
		require.Len(t, c, 7, "the certificate row of %s", shape)
		n := c[0]
		assert.NotEqual(t, "0", n, shape)
		// answers, with a certificate, from the KG, verified, compared
		// with gold, equivalent, no disagreement.
		assert.Equal(t, []string{n, n, n, n + " (100.0%)", n, n + " (100.0%)", " |"}, c, shape)
	}
}
