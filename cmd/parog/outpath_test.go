package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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

// Outputs other than --out went around its check: kg import --report
// through a symbolic link overwrote the link's target, and at a named pipe
// it hung after writing --out, deaf to SIGTERM; prompts dump and eval
// report --md wrote through links too. Every output path now goes through
// the one checked writer.
func TestEveryOutputIsChecked(t *testing.T) {
	dir := t.TempDir()
	archive, names := fb15kArchive(t, dir)
	target := filepath.Join(dir, "target.json")
	require.NoError(t, os.WriteFile(target, []byte("keep\n"), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(target, link))
	pipe := filepath.Join(dir, "pipe.json")
	require.NoError(t, syscall.Mkfifo(pipe, 0o600))
	dumpDir := filepath.Join(dir, "prompts")
	require.NoError(t, os.Mkdir(dumpDir, 0o755))
	require.NoError(t, os.Symlink(target, filepath.Join(dumpDir, "plan.tmpl")))
	results := filepath.Join(dir, "results.jsonl")
	require.NoError(t, os.WriteFile(results, []byte(`{"id":"q1","question":"q","answers":["a"],"hit":true}`+"\n"), 0o644))
	importTo := func(report string) []string {
		return []string{"kg", "import", "fb15k237", "--in", archive, "--names", names, "--out", filepath.Join(t.TempDir(), "slice.nt.gz"), "--report", report}
	}
	tests := []struct {
		name string
		args []string
		why  string
	}{
		{"import --report through a symlink", importTo(link), "is a symbolic link"},
		{"import --report at a named pipe", importTo(pipe), "is a named pipe"},
		{"prompts dump over a symlink", []string{"prompts", "dump", dumpDir}, "is a symbolic link"},
		{"eval report --md through a symlink", []string{"eval", "report", "--md", link, results}, "is a symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := runParog(t, nil, tt.args...)
				done <- result{code, stdout, stderr}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				// Let a blocked open go, so that the test fails rather than hangs.
				if f, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
					defer f.Close()
				}
				t.Fatal("the command hangs")
			}
			assert.NotEqual(t, 0, r.code, r.stdout)
			assert.Contains(t, r.stderr, tt.why)
			b, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Equal(t, "keep\n", string(b), "the link's target is intact")
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the symlink is still a symlink")
		})
	}
}
