package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/relprior"
)

// The prior is built from the SFT records sparql2plan writes of the
// WebQSP train excerpt, loads as engine.relation_prior, and refuses the
// records of a test split.
func TestRelpriorBuildCLI(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.jsonl")
	code, _, stderr := runParog(t, nil, "sparql2plan", "--format", "webqsp", "--input", "../../dataset/testdata/webqsp_small.json", "--split", "train", "--out", train)
	require.Equal(t, 0, code, stderr)

	out := filepath.Join(dir, "prior.json")
	code, stdout, stderr := runParog(t, nil, "relprior", "build", "--sft", train, "--out", out, "--min-count", "1")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "learned from ")
	p, err := relprior.Load(out)
	require.NoError(t, err)
	assert.Positive(t, p.Subgoals)

	cfg := filepath.Join(dir, "parog.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("kg:\n  files: [builtin:demo-freebase]\nengine:\n  relation_prior: prior.json\n"), 0o644))
	code, stdout, stderr = runParog(t, nil, "config", "--config", cfg)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, out, "the prior's path is relative to the config file")

	test := filepath.Join(dir, "test.jsonl")
	code, _, stderr = runParog(t, nil, "sparql2plan", "--format", "webqsp", "--input", "../../dataset/testdata/webqsp_small.json", "--split", "test", "--out", test)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runParog(t, nil, "relprior", "build", "--sft", test, "--out", filepath.Join(dir, "leak.json"))
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "not from a benchmark train split")
	assert.NoFileExists(t, filepath.Join(dir, "leak.json"))

	code, _, stderr = runParog(t, nil, "relprior", "build", "--out", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--sft FILE and --out FILE are required")
}
