package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kgdata/fbimport"
)

func TestKGImportFreebase(t *testing.T) {
	dir := t.TempDir()
	var raw bytes.Buffer
	require.NoError(t, fbimport.GenerateDump(&raw, 140, 1))
	raw.WriteString("<http://rdf.freebase.com/ns/m.0 1>\t<http://rdf.freebase.com/ns/a.b.c>\t\"x\"\t.\n")
	in := writeGzip(t, filepath.Join(dir, "freebase-rdf-latest.gz"), raw.Bytes())
	out := filepath.Join(dir, "nt")

	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) (string, bool) { return "", false }}
	code := Main(context.Background(), []string{"kg", "import", "freebase", "--in", in, "--out", out, "--quiet",
		"--report", filepath.Join(dir, "report.json")}, env)
	require.Equal(t, 0, code, stderr.String())
	assert.Equal(t, "bad line freebase-rdf-latest.gz:141: subject IRI contains a space\n", stderr.String())
	assert.Regexp(t, `^\S+/nt: 1 shards \(0 from an earlier run\); 141 lines read, 60 kept, 80 dropped, 1 bad; \d+ lines/s\n`+
		`domain +kept +dropped *\nfilm +40 +0 *\ntype +10 +30 *\n`, stdout.String())
	assert.FileExists(t, filepath.Join(out, "part-00000.nt.gz"))
	assert.FileExists(t, filepath.Join(dir, "report.json"))

	stdout.Reset()
	stderr.Reset()
	code = Main(context.Background(), []string{"kg", "import", "freebase", "--in", filepath.Join(dir, "missing.gz"), "--out", out}, env)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "missing.gz: no such file or directory")

	stderr.Reset()
	code = Main(context.Background(), []string{"kg", "import", "freebase", "--in", in}, env)
	assert.Equal(t, 2, code)
	assert.Equal(t, "parog kg: --in and --out are required, and nothing else\n", stderr.String())
}

// writeGzip writes data gzipped to path and returns path.
func writeGzip(t *testing.T, path string, data []byte) string {
	t.Helper()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(path, gz.Bytes(), 0o644))
	return path
}
