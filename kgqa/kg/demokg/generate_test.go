package demokg

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeneratedFilesAreCurrent regenerates the shipped files into a temp
// directory and requires them to be byte-identical: the tables of kgqa/kgdata/demogen are
// the source of truth, and the output is reproducible.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds and runs kgqa/kgdata/demogen with the go tool")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: the go tool is not on PATH, cannot run kgqa/kgdata/demogen")
	}
	dir := t.TempDir()
	cmd := exec.Command(goTool, "run", "../../kgdata/demogen", "-out", dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"freebase.nt", "wikidata.nt", "questions.json", "wikidata_questions.json"} {
		want, err := os.ReadFile(name)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.True(t, string(want) == string(got), "%s is stale: run go generate in kgqa/kg/demokg", name)
	}
}
