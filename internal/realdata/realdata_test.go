package realdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathFindsAFileUnderTheVariable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "pog"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pog", "x.json"), []byte("{}"), 0o644))
	t.Setenv(Env, dir)
	assert.Equal(t, filepath.Join(dir, "pog", "x.json"), Path(t, "pog/x.json"))
}

func TestPathSkipsAndLogsAMissingFile(t *testing.T) {
	t.Setenv(Env, t.TempDir())
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SkipLogEnv, log)
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Path(t, "pog/absent.json")
		t.Error("Path returned for a missing file")
	})
	assert.True(t, skipped, "a missing file skips the test")
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(b), "\n"))
	assert.Contains(t, string(b), "pog/absent.json")
	assert.Contains(t, string(b), Env)
}

func TestDirRefusesAVariableThatIsNoDirectory(t *testing.T) {
	t.Setenv(Env, filepath.Join(t.TempDir(), "none"))
	_, err := Dir()
	require.Error(t, err)
	assert.Contains(t, err.Error(), Env)
}

// Excerpt finds the repository's testdata from any package directory.
func TestExcerptFindsTestdata(t *testing.T) {
	p := Excerpt(t, "pog/cwq_gold.json")
	assert.Equal(t, "testdata", filepath.Base(filepath.Dir(filepath.Dir(p))))
	_, err := os.Stat(p)
	assert.NoError(t, err)
}

// Without the variable, a file is looked for in data/ of the repository
// (where parog data get writes) and then in ../shared/data, file by file.
func TestPathLooksInDataThenShared(t *testing.T) {
	t.Setenv(Env, "")
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	for _, d := range []string{filepath.Join(repo, DefaultDir, "pog"), filepath.Join(root, "shared", "data", "pog")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte(module), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, DefaultDir, "pog", "a.json"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "shared", "data", "pog", "a.json"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "shared", "data", "pog", "b.json"), nil, 0o644))
	t.Chdir(repo)
	d, err := Dir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(repo, DefaultDir), d)
	assert.Equal(t, filepath.Join(repo, DefaultDir, "pog", "a.json"), Path(t, "pog/a.json"))
	assert.Equal(t, filepath.Join(root, "shared", "data", "pog", "b.json"), Path(t, "pog/b.json"), "a file data/ lacks comes from ../shared/data")

	require.NoError(t, os.RemoveAll(filepath.Join(root, "shared")))
	require.NoError(t, os.RemoveAll(filepath.Join(repo, DefaultDir)))
	_, err = Dir()
	require.Error(t, err)
	assert.Contains(t, err.Error(), DefaultDir)
}
