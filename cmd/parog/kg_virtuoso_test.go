package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kgdata/virtuoso"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

func TestKGVirtuosoSetupStatusStop(t *testing.T) {
	virtuosotest.Require(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	require.NoError(t, os.MkdirAll(data, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "a.nt"), []byte(
		"<http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/type.object.name> \"France\"@en .\n"+
			"<http://rdf.freebase.com/ns/m.0f8l9c> <http://rdf.freebase.com/ns/location.country.capital> <http://rdf.freebase.com/ns/m.05qtj> .\n"), 0o644))
	ports, err := virtuoso.FreePorts(2)
	require.NoError(t, err)
	dir := filepath.Join(tmp, "db")
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
		code := Main(context.Background(), append([]string{"kg", "virtuoso"}, args...), env)
		return code, out.String(), errOut.String()
	}
	t.Cleanup(func() { run("stop", "--dir", dir) })

	code, stdout, stderr := run("setup", "--dir", dir, "--data", data, "--memory", "512MiB",
		"--sql-port", strconv.Itoa(ports[0]), "--http-port", strconv.Itoa(ports[1]), "--relation-index")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^virtuoso started \(pid \d+\), SPARQL at http://127.0.0.1:`+strconv.Itoa(ports[1])+`/sparql\n`+
		`loaded 1/1 files, \d+ triples in the store, in \S+ \(\d+ triples/s\)\n`+
		`relation index: written for 2 triples: 2 outgoing and 1 incoming \(entity, relation\) pairs, 2 predicates \(0 of them written by an earlier, stopped run\), in \S+\n`+
		`verified: 1 names; /sparql read-only: true; stop with: parog kg virtuoso stop --dir `, stdout)
	assert.FileExists(t, filepath.Join(dir, "virtuoso.ini"))

	code, stdout, stderr = run("status", "--dir", dir)
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^running \(pid \d+\), SPARQL at http://127.0.0.1:\d+/sparql\nfiles 1/1 loaded \(0 failed\), \d+ triples\n$`, stdout)

	code, stdout, _ = run("setup", "--dir", dir, "--data", data, "--relation-index")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "virtuoso already running")
	assert.Contains(t, stdout, "relation index: already complete for 2 triples (4 index triples)")
	code, stdout, _ = run("setup", "--dir", dir, "--data", data)
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "relation index", "without --relation-index")

	code, stdout, _ = run("stop", "--dir", dir)
	require.Equal(t, 0, code)
	assert.Regexp(t, `^stopped \(pid \d+\)\n$`, stdout)
	code, stdout, _ = run("status", "--dir", dir)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "not running")

	code, _, stderr = run("setup", "--dir", dir)
	assert.Equal(t, 2, code)
	assert.Equal(t, "parog kg: --dir and --data are required, and nothing else\n", stderr)
	code, _, stderr = run("setup", "--dir", dir, "--data", data, "--memory", "lots")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--memory: want a size such as 16GiB or 512MiB")
}
