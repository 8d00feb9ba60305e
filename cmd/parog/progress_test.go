package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kgdata/fbimport"
)

// TestProgressToAFileIsLines runs kg import with its progress bar written
// to a buffer, as to a log file: each state is a line of its own, with no
// carriage return running them together.
func TestProgressToAFileIsLines(t *testing.T) {
	dir := t.TempDir()
	var raw bytes.Buffer
	require.NoError(t, fbimport.GenerateDump(&raw, 140, 1))
	in := writeGzip(t, filepath.Join(dir, "freebase-rdf-latest.gz"), raw.Bytes())

	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) (string, bool) { return "", false }}
	code := Main(context.Background(), []string{"kg", "import", "freebase", "--in", in, "--out", filepath.Join(dir, "nt")}, env)
	require.Equal(t, 0, code, stderr.String())
	out := stderr.String()
	assert.NotContains(t, out, "\r", "no carriage returns in a file")
	assert.NotContains(t, out, "\x1b[", "no terminal codes in a file")
	assert.Contains(t, out, "importing freebase-rdf-latest.gz")
	assert.True(t, strings.HasSuffix(out, "\n"), "newline-terminated: %q", out)
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		assert.Equal(t, 1, strings.Count(line, "importing"), "one state a line: %q", line)
	}
}

func TestLineWriter(t *testing.T) {
	var b bytes.Buffer
	w := lineWriter{&b}
	for _, s := range []string{"\r 10% |##   | ", "\r" + strings.Repeat(" ", 20) + "\r", "\r 50% |#####| \x1b[0K", "\n"} {
		n, err := w.Write([]byte(s))
		require.NoError(t, err)
		assert.Equal(t, len(s), n)
	}
	assert.Equal(t, " 10% |##   |\n 50% |#####|\n", b.String())
}
