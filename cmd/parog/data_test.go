package main

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/fetch"
)

// dataFixture serves two small datasets over HTTP, one pinned and one
// trusted on first use, and makes them data get's catalogue.
func dataFixture(t *testing.T) (files map[string][]byte, url string) {
	t.Helper()
	files = map[string][]byte{
		"/kg/slice.tar.gz":  []byte(strings.Repeat("slice line\n", 100)),
		"/q/questions.json": []byte(`[{"ID":"q1"}]`),
		"/big/dump.gz":      []byte("dump"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, r.URL.Path, time.Time{}, strings.NewReader(string(b)))
	}))
	t.Cleanup(srv.Close)
	pin := sha256.Sum256(files["/kg/slice.tar.gz"])
	catalog := []fetch.Dataset{
		{Name: "kg", Title: "a slice", Licence: "CC BY (test)", Size: "1 KB", Files: []fetch.File{{URL: srv.URL + "/kg/slice.tar.gz", Path: "kg/slice.tar.gz", SHA256: hex.EncodeToString(pin[:])}}},
		{Name: "q", Title: "questions", Licence: "CC BY-SA 4.0 (test)", Size: "13 bytes", Use: "evaluation only", Files: []fetch.File{{URL: srv.URL + "/q/questions.json", Path: "q.json"}}},
		{Name: "freebase", Title: "the dump", Licence: "CC BY 2.5", Size: "about 30 GB gzipped", Files: []fetch.File{{URL: srv.URL + "/big/dump.gz", Path: "freebase/dump.gz"}}},
	}
	old := dataCatalog
	dataCatalog = func() []fetch.Dataset { return catalog }
	t.Cleanup(func() { dataCatalog = old })
	return files, srv.URL
}

func TestDataGetCLI(t *testing.T) {
	files, _ := dataFixture(t)
	t.Chdir(t.TempDir())

	code, out, errOut := runParog(t, nil, "data", "get", "kg", "q")
	require.Equal(t, 0, code, errOut)
	// The licence and size come before the download's first line.
	assert.Less(t, strings.Index(out, "licence: CC BY (test)"), strings.Index(out, "fetched data/kg/slice.tar.gz"))
	assert.Contains(t, out, "size: 1 KB")
	assert.Contains(t, out, "use: evaluation only")
	assert.Contains(t, out, "(pinned)")
	assert.Contains(t, out, "fetched data/q.json sha256 ")
	assert.Contains(t, out, "(recorded in checksums.lock)")
	// stderr is no terminal here: plain lines, each ending in a newline.
	assert.Contains(t, errOut, "data/kg/slice.tar.gz: 1.1 KiB of 1.1 KiB (100%)\n")
	lock, err := os.ReadFile(filepath.Join("data", "checksums.lock"))
	require.NoError(t, err)
	assert.Contains(t, string(lock), "  q.json\n")

	// Again: nothing fetched, everything checked.
	code, out, errOut = runParog(t, nil, "data", "get", "kg", "q")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "present data/q.json")

	// The source changes: the recorded hash refuses it.
	require.NoError(t, os.Remove(filepath.Join("data", "q.json")))
	files["/q/questions.json"] = []byte(`[{"ID":"changed"}]`)
	code, _, errOut = runParog(t, nil, "data", "get", "q")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "checksum mismatch")
	assert.NoFileExists(t, filepath.Join("data", "q.json"))
}

func TestDataGetStatesTheDumpSizeFirst(t *testing.T) {
	dataFixture(t)
	t.Chdir(t.TempDir())
	code, out, errOut := runParog(t, nil, "data", "get", "freebase")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "freebase: the dump\n  size: about 30 GB gzipped\n"), out)
}

func TestDataGetDirAndMirror(t *testing.T) {
	dataFixture(t)
	mirror := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mirror, "q.json"), []byte(`[{"ID":"m"}]`), 0o644))
	dest := filepath.Join(t.TempDir(), "elsewhere")
	t.Chdir(t.TempDir())

	code, _, errOut := runParog(t, map[string]string{"PAROG_DATA": dest}, "data", "get", "--from", mirror, "q")
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(filepath.Join(dest, "q.json"))
	require.NoError(t, err)
	assert.Equal(t, `[{"ID":"m"}]`, string(b), "PAROG_DATA names the data directory; --from the source")
	assert.NoDirExists(t, "data")

	code, _, errOut = runParog(t, nil, "data", "get", "--dir", "d2", "--from", mirror, "q")
	require.Equal(t, 0, code, errOut)
	assert.FileExists(t, filepath.Join("d2", "q.json"))
}

func TestDataUsage(t *testing.T) {
	dataFixture(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"data"}, "missing command get or list"},
		{[]string{"data", "get"}, "name at least one dataset"},
		{[]string{"data", "get", "webqs"}, `unknown dataset "webqs"`},
	} {
		code, _, errOut := runParog(t, nil, tc.args...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, errOut, tc.msg)
	}
	code, out, _ := runParog(t, nil, "data", "list")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "licence: CC BY-SA 4.0 (test)")
	assert.Contains(t, out, "q.json <- http://")
}

// Away from a terminal a large download prints a line per tenth, each on
// its own line, and a resumed one says where it resumes.
func TestDataProgressLines(t *testing.T) {
	var b strings.Builder
	p := newByteProgress(&b, false)
	p.Start("data/freebase/dump.gz.part", 10<<20, 100<<20)
	for range 90 {
		p.Add(1 << 20)
	}
	p.Finish()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 10, b.String())
	assert.Equal(t, "data/freebase/dump.gz: resuming at 10.0 MiB of 100.0 MiB (10%)", lines[0])
	assert.Equal(t, "data/freebase/dump.gz: 20.0 MiB of 100.0 MiB (20%)", lines[1])
	assert.Equal(t, "data/freebase/dump.gz: 100.0 MiB of 100.0 MiB (100%)", lines[9])
}
