package fetch

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// server serves files by path with Range support (http.ServeContent),
// records each request's Range header, and cuts the body of a path in
// cut after that many bytes once.
type server struct {
	mu     sync.Mutex
	files  map[string][]byte
	ranges []string
	cut    map[string]int
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	b, ok := s.files[r.URL.Path]
	s.ranges = append(s.ranges, r.URL.Path+" "+r.Header.Get("Range"))
	cut, cutting := s.cut[r.URL.Path]
	delete(s.cut, r.URL.Path)
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if cutting {
		// Promise the whole file, send part of it, and hang up.
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:cut])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	http.ServeContent(w, r, r.URL.Path, time.Time{}, bytes.NewReader(b))
}

func newServer(t *testing.T, files map[string][]byte) (*server, *httptest.Server) {
	t.Helper()
	s := &server{files: files, cut: map[string]int{}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

type countProgress struct {
	starts []int64
	added  int64
}

func (p *countProgress) Start(_ string, done, _ int64) { p.starts = append(p.starts, done) }
func (p *countProgress) Add(n int64)                   { p.added += n }
func (p *countProgress) Finish()                       {}

func TestGetPinnedFile(t *testing.T) {
	body := []byte(strings.Repeat("FB15k-237 line\n", 1000))
	_, ts := newServer(t, map[string][]byte{"/kg.tar.gz": body})
	dir := t.TempDir()
	p := &countProgress{}
	f := &Fetcher{Dir: dir, Progress: p}
	d := Dataset{Name: "kg", Files: []File{{URL: ts.URL + "/kg.tar.gz", Path: "kg/kg.tar.gz", SHA256: sum(body)}}}

	rs, err := f.Get(context.Background(), d)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.True(t, rs[0].Fetched)
	assert.False(t, rs[0].Recorded, "a pinned file is not recorded in the lock")
	got, err := os.ReadFile(filepath.Join(dir, "kg", "kg.tar.gz"))
	require.NoError(t, err)
	assert.Equal(t, body, got)
	assert.Equal(t, int64(len(body)), p.added)
	assert.NoFileExists(t, filepath.Join(dir, LockFile))

	// Again: present and matching, nothing fetched.
	rs, err = f.Get(context.Background(), d)
	require.NoError(t, err)
	assert.False(t, rs[0].Fetched)
}

func TestGetRefusesWrongBytes(t *testing.T) {
	_, ts := newServer(t, map[string][]byte{"/q.json": []byte("tampered")})
	dir := t.TempDir()
	f := &Fetcher{Dir: dir}
	d := Dataset{Name: "q", Files: []File{{URL: ts.URL + "/q.json", Path: "q.json", SHA256: sum([]byte("original"))}}}
	_, err := f.Get(context.Background(), d)
	require.ErrorIs(t, err, ErrChecksum)
	assert.NoFileExists(t, filepath.Join(dir, "q.json"))
	assert.NoFileExists(t, filepath.Join(dir, "q.json"+partSuffix), "a wrong download is not kept to resume")
}

func TestGetResumesWithRange(t *testing.T) {
	body := []byte(strings.Repeat("0123456789", 10_000))
	s, ts := newServer(t, map[string][]byte{"/big.gz": body})
	s.cut["/big.gz"] = 30_000
	dir := t.TempDir()
	p := &countProgress{}
	f := &Fetcher{Dir: dir, Progress: p}
	d := Dataset{Name: "big", Files: []File{{URL: ts.URL + "/big.gz", Path: "big.gz", SHA256: sum(body)}}}

	_, err := f.Get(context.Background(), d)
	require.Error(t, err, "the connection was cut")
	assert.Contains(t, err.Error(), "run the same command again to resume")
	part, err := os.ReadFile(filepath.Join(dir, "big.gz"+partSuffix))
	require.NoError(t, err)
	require.Equal(t, body[:30_000], part, "what arrived is kept")

	_, err = f.Get(context.Background(), d)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "big.gz"))
	require.NoError(t, err)
	assert.Equal(t, body, got)
	assert.Equal(t, []string{"/big.gz ", "/big.gz bytes=30000-"}, s.ranges, "the second request asks only for the rest")
	assert.Equal(t, []int64{0, 30_000}, p.starts)
	assert.Equal(t, int64(len(body)), p.added, "no byte is downloaded twice")
}

func TestGetRestartsWhenRangeIgnored(t *testing.T) {
	body := []byte(strings.Repeat("abc", 1000))
	mux := http.NewServeMux()
	mux.HandleFunc("/f", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }) // no Range support
	ts := httptest.NewServer(mux)
	defer ts.Close()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"+partSuffix), body[:100], 0o644))
	f := &Fetcher{Dir: dir}
	_, err := f.Get(context.Background(), Dataset{Name: "f", Files: []File{{URL: ts.URL + "/f", Path: "f", SHA256: sum(body)}}})
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "f"))
	require.NoError(t, err)
	assert.Equal(t, body, got, "the whole file replaces the partial one, not appended to it")
}

func TestGetTrustOnFirstUse(t *testing.T) {
	s, ts := newServer(t, map[string][]byte{"/cwq.json": []byte(`[{"ID":"1"}]`)})
	dir := t.TempDir()
	f := &Fetcher{Dir: dir}
	d := Dataset{Name: "cwq", Files: []File{{URL: ts.URL + "/cwq.json", Path: "cwq.json"}}}

	rs, err := f.Get(context.Background(), d)
	require.NoError(t, err)
	assert.True(t, rs[0].Recorded)
	lock, err := ReadLock(dir)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cwq.json": sum([]byte(`[{"ID":"1"}]`))}, lock)
	text, err := os.ReadFile(filepath.Join(dir, LockFile))
	require.NoError(t, err)
	assert.Contains(t, string(text), sum([]byte(`[{"ID":"1"}]`))+"  cwq.json\n", "sha256sum -c reads it")

	// Upstream changes: a later download must match the first.
	require.NoError(t, os.Remove(filepath.Join(dir, "cwq.json")))
	s.files["/cwq.json"] = []byte(`[{"ID":"2"}]`)
	_, err = f.Get(context.Background(), d)
	require.ErrorIs(t, err, ErrChecksum)
	assert.Contains(t, err.Error(), "recorded in "+LockFile)

	// A present file that was edited is refused too.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cwq.json"), []byte("edited"), 0o644))
	_, err = f.Get(context.Background(), d)
	require.ErrorIs(t, err, ErrChecksum)
}

func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range files {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestGetExtractsArchiveMembers(t *testing.T) {
	train, test := []byte(`{"Questions":["train"]}`), []byte(`{"Questions":["test"]}`)
	archive := zipOf(t, map[string][]byte{"W/data/train.json": train, "W/data/test.json": test, "W/doc.txt": []byte("x")})
	_, ts := newServer(t, map[string][]byte{"/W.zip": archive})
	dir := t.TempDir()
	f := &Fetcher{Dir: dir}
	d := Dataset{Name: "w", Files: []File{{URL: ts.URL + "/W.zip", Path: "w/W.zip", Extract: []Member{
		{Name: "W/data/train.json", Path: "w/train.json", SHA256: sum(train)},
		{Name: "W/data/test.json", Path: "w/test.json"},
	}}}}
	assert.Equal(t, []string{"w/train.json", "w/test.json"}, d.Paths())
	_, err := f.Get(context.Background(), d)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "w", "train.json"))
	require.NoError(t, err)
	assert.Equal(t, train, got)
	lock, err := ReadLock(dir)
	require.NoError(t, err)
	assert.Equal(t, sum(test), lock["w/test.json"])
	assert.Equal(t, sum(archive), lock["w/W.zip"])
	assert.NotContains(t, lock, "w/train.json", "pinned members are not recorded")
}

func TestGetFromMirror(t *testing.T) {
	train := []byte(`{"Questions":[]}`)
	d := Dataset{Name: "w", Files: []File{
		{URL: "http://upstream.invalid/W.zip", Path: "w/W.zip", Extract: []Member{{Name: "W/train.json", Path: "w/train.json", SHA256: sum(train)}}},
		{URL: "http://upstream.invalid/names.txt", Path: "w/names.txt"},
	}}
	t.Run("url", func(t *testing.T) {
		s, ts := newServer(t, map[string][]byte{"/m/w/train.json": train, "/m/w/names.txt": []byte("n")})
		dir := t.TempDir()
		_, err := (&Fetcher{Dir: dir, From: ts.URL + "/m"}).Get(context.Background(), d)
		require.NoError(t, err)
		assert.FileExists(t, filepath.Join(dir, "w", "train.json"))
		assert.FileExists(t, filepath.Join(dir, "w", "names.txt"))
		assert.NoFileExists(t, filepath.Join(dir, "w", "W.zip"), "a mirror serves the members as files")
		assert.Len(t, s.ranges, 2)
	})
	t.Run("dir", func(t *testing.T) {
		mirror := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(mirror, "w"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(mirror, "w", "train.json"), train, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(mirror, "w", "names.txt"), []byte("n"), 0o644))
		dir := t.TempDir()
		// A partial copy resumes from a directory too.
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "w"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "w", "train.json"+partSuffix), train[:5], 0o644))
		_, err := (&Fetcher{Dir: dir, From: mirror}).Get(context.Background(), d)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, "w", "train.json"))
		require.NoError(t, err)
		assert.Equal(t, train, got)
	})
	t.Run("missing", func(t *testing.T) {
		_, ts := newServer(t, map[string][]byte{})
		_, err := (&Fetcher{Dir: t.TempDir(), From: ts.URL}).Get(context.Background(), d)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "404")
	})
}

func TestLookup(t *testing.T) {
	cat := Catalog()
	ds, err := Lookup(cat, []string{"fb15k237", "webqsp"})
	require.NoError(t, err)
	require.Len(t, ds, 2)
	assert.Equal(t, "fb15k237", ds[0].Name)
	all, err := Lookup(cat, []string{"all"})
	require.NoError(t, err)
	for _, d := range all {
		assert.NotEqual(t, "freebase", d.Name, "all leaves out the 30 GB dump")
	}
	_, err = Lookup(cat, []string{"webqs"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "known: webqsp")
}

// TestCatalog checks what every entry must say: the names the issue asks
// for, a licence, a size, https sources, and distinct paths.
func TestCatalog(t *testing.T) {
	var names []string
	paths := map[string]bool{}
	for _, d := range Catalog() {
		names = append(names, d.Name)
		assert.NotEmpty(t, d.Licence, d.Name)
		assert.NotEmpty(t, d.Size, d.Name)
		assert.NotEmpty(t, d.Title, d.Name)
		for _, f := range d.Files {
			assert.True(t, strings.HasPrefix(f.URL, "https://"), f.URL)
			assert.False(t, paths[f.Path], "two files write %s", f.Path)
			paths[f.Path] = true
			if f.SHA256 != "" {
				assert.Len(t, f.SHA256, 64, f.Path)
			}
		}
	}
	assert.Equal(t, []string{"webqsp", "cwq", "grailqa", "simplequestions", "webquestions", "qald10", "fb15k237", "freebase-schema", "pog", "freebase"}, names)
}
