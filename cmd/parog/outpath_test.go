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

// An --out that exists and is not a regular file (a device, a symbolic
// link) is refused with what it is, before any input is read; the probe
// turned /dev/null-like nodes into 78 MB files and replaced symlinks.
func TestOutMustBeAFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.jsonl")
	require.NoError(t, os.WriteFile(target, []byte("keep\n"), 0o644))
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.Symlink(target, link))
	tests := []struct {
		name string
		args []string
		why  string
	}{
		{"fb15k237 to a device", []string{"kg", "import", "fb15k237", "--in", "x.tar.gz", "--names", "n.txt", "--out", os.DevNull}, "is a character device"},
		{"fb15k237 through a symlink", []string{"kg", "import", "fb15k237", "--in", "x.tar.gz", "--names", "n.txt", "--out", link}, "is a symbolic link"},
		{"freebase to a device", []string{"kg", "import", "freebase", "--in", "x.gz", "--out", os.DevNull}, "is a character device"},
		{"freebase to a file", []string{"kg", "import", "freebase", "--in", "x.gz", "--out", target}, "is a regular file, not a directory"},
		{"eval to a device", []string{"eval", "--dataset", "demo", "--out", os.DevNull}, "is a character device"},
		{"eval through a symlink", []string{"eval", "--dataset", "demo", "--out", link}, "is a symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) (string, bool) { return "", false }}
			code := Main(context.Background(), tt.args, env)
			assert.NotEqual(t, 0, code)
			assert.Contains(t, stderr.String(), tt.why)
			assert.Contains(t, stderr.String(), "--force")
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the symlink is still a symlink")
			b, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Equal(t, "keep\n", string(b))
		})
	}
}
