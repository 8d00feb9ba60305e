package fbimport

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
)

// readNT returns the lines of an N-Triples file, gunzipped when .gz.
func readNT(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var r = bufio.NewReader(f)
	var lines []string
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		require.NoError(t, err)
		r = bufio.NewReader(zr)
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

// writeArchive builds a .tar.gz of members name -> content.
func writeArchive(t *testing.T, dir string, members map[string]string, order ...string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range order {
		body := members[name]
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o644, Size: int64(len(body))}))
		_, err := tw.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	p := filepath.Join(dir, "fb.tar.gz")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

func TestImportFB15k237RealFiles(t *testing.T) {
	archive := realdata.Path(t, "fb15k237/FB15k-237.tar.gz")
	names := realdata.Path(t, "fb15k237/FB15k_mid2name.txt")
	out := filepath.Join(t.TempDir(), "fb15k237.nt.gz")
	rep, err := ImportFB15k237(context.Background(), archive, names, out)
	require.NoError(t, err)
	total := rep.Lines["train.txt"] + rep.Lines["valid.txt"] + rep.Lines["test.txt"]
	assert.Equal(t, int64(310116), total)
	assert.Equal(t, int64(272115), rep.Lines["train.txt"])
	assert.Equal(t, int64(207567), rep.Paths)
	assert.Equal(t, total-rep.Paths, rep.Facts)
	assert.Equal(t, 14541, rep.Entities)
	assert.Zero(t, rep.Bad.Count)
	assert.Equal(t, rep.Facts+2*rep.Paths+rep.Names, rep.Triples)

	checkFirstLines(t, readNT(t, out), int(rep.Triples))
}

// The excerpt of FB15k-237 in testdata (its first 2,000 train lines and
// 500 each of valid and test, with their names) imports on a fresh clone.
// The counts were taken from the excerpt's text with awk, not from the
// importer: 1,943 lines have a dotted relation path, 1,057 do not; they
// name 3,788 distinct MIDs, and the names file has a line for each.
func TestImportFB15k237Excerpt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fb15k237.nt.gz")
	rep, err := ImportFB15k237(t.Context(), realdata.Excerpt(t, "fb15k237/FB15k-237.tar.gz"),
		realdata.Excerpt(t, "fb15k237/FB15k_mid2name.txt"), out)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"train.txt": 2000, "valid.txt": 500, "test.txt": 500}, rep.Lines)
	assert.Equal(t, int64(1943), rep.Paths)
	assert.Equal(t, int64(1057), rep.Facts)
	assert.Equal(t, 3788, rep.Entities)
	assert.Equal(t, int64(3788), rep.Names)
	assert.Zero(t, rep.Unnamed)
	assert.Zero(t, rep.Bad.Count)
	// One triple per fact, two per path (to and from its mediator), one per name.
	assert.Equal(t, int64(1057+2*1943+3788), rep.Triples)
	checkFirstLines(t, readNT(t, out), 1057+2*1943+3788)
}

// checkFirstLines checks the import of the first lines of train.txt, which
// the excerpt and the whole file share.
func checkFirstLines(t *testing.T, lines []string, triples int) {
	t.Helper()
	require.Len(t, lines, triples)
	var tr triple
	have := map[string]bool{}
	firstPath := -1
	for i, l := range lines {
		require.Empty(t, parseTriple([]byte(l), &tr), "line %d: %s", i+1, l)
		if firstPath < 0 && strings.HasPrefix(l, "<"+NS+"m.017dcd> <"+NS+"tv.tv_program.regular_cast> ") {
			firstPath = i
		}
		if strings.Contains(l, "m.027rn> ") || strings.Contains(l, "m.0c94fn> ") {
			have[l] = true
		}
	}
	assert.True(t, have[`<`+NS+`m.027rn> <`+NS+`location.country.form_of_government> <`+NS+`m.06cx9> .`])
	assert.True(t, have[`<`+NS+`m.0c94fn> <`+NS+`type.object.name> "Gary Rydstrom"@en .`])
	// The first collapsed path of train.txt, through a rebuilt mediator.
	require.GreaterOrEqual(t, firstPath, 0)
	assert.Regexp(t, `^<`+NS+`m.017dcd> <`+NS+`tv.tv_program.regular_cast> <`+NS+`(m.fb15k_cvt_\d+)> .$`, lines[firstPath])
	assert.Regexp(t, `^<`+NS+`m.fb15k_cvt_\d+> <`+NS+`tv.regular_tv_appearance.actor> <`+NS+`m.06v8s0> .$`, lines[firstPath+1])
}

func TestImportFB15k237BadInput(t *testing.T) {
	dir := t.TempDir()
	train := "/m/01\t/a/b/c\t/m/02\n" +
		"/m/01\t/a/b/c./d/e/f\t/m/03\n" +
		"/m/01 /a/b/c /m/02\n" + // spaces, not tabs
		"/m/01\t/a/b/c\n" +
		"m/01\t/a/b/c\t/m/02\n" +
		"/m/01\t/a/B c/d\t/m/02\n" +
		"/m/01\t/a/b/c./\t/m/02\n"
	archive := writeArchive(t, dir, map[string]string{"train.txt": train, "valid.txt": "/m/02\t/a/b/c\t/m/03\n", "README": "x"},
		"README", "train.txt", "valid.txt")
	names := filepath.Join(dir, "names.txt")
	require.NoError(t, os.WriteFile(names, []byte("/m/01\tAda_Lovelace\n/m/02 no tab here\n/m/03\t\nbad\tName\n/m/02\tSays_\"hi\"\\\n"), 0o644))
	out := filepath.Join(dir, "out.nt")
	rep, err := ImportFB15k237(context.Background(), archive, names, out)
	require.NoError(t, err)

	var got []string
	for _, b := range rep.Bad.Examples {
		got = append(got, b.String())
	}
	assert.Equal(t, []string{
		"names.txt:2: no tab between MID and name",
		"names.txt:3: empty name",
		`names.txt:4: bad MID "bad" (want /m/...)`,
		"train.txt:3: want 3 tab-separated fields, found 1",
		"train.txt:4: want 3 tab-separated fields, found 2",
		`train.txt:5: head: bad MID "m/01" (want /m/...)`,
		`train.txt:6: bad relation "/a/B c/d"`,
		`train.txt:7: bad relation path "/a/b/c./"`,
	}, got)
	assert.Equal(t, int64(8), rep.Bad.Count)
	assert.Equal(t, map[string]int64{"train.txt": 7, "valid.txt": 1}, rep.Lines)
	assert.Equal(t, FB15kReport{
		Lines: rep.Lines, Facts: 2, Paths: 1, Names: 2, Triples: 6, Entities: 3, Unnamed: 1, Bad: rep.Bad,
	}, *rep)
	assert.Equal(t, []string{
		`<` + NS + `m.01> <` + NS + `a.b.c> <` + NS + `m.02> .`,
		`<` + NS + `m.01> <` + NS + `a.b.c> <` + NS + `m.fb15k_cvt_1> .`,
		`<` + NS + `m.fb15k_cvt_1> <` + NS + `d.e.f> <` + NS + `m.03> .`,
		`<` + NS + `m.02> <` + NS + `a.b.c> <` + NS + `m.03> .`,
		`<` + NS + `m.01> <` + NS + `type.object.name> "Ada Lovelace"@en .`,
		`<` + NS + `m.02> <` + NS + `type.object.name> "Says \"hi\"\\"@en .`,
	}, readNT(t, out))
}

func TestImportFB15k237TruncatedArchive(t *testing.T) {
	dir := t.TempDir()
	var train strings.Builder
	for i := range 20000 {
		train.WriteString("/m/0" + strings.Repeat("b", i%7+1) + "\t/a/b/c\t/m/02\n")
	}
	archive := writeArchive(t, dir, map[string]string{"train.txt": train.String()}, "train.txt")
	b, err := os.ReadFile(archive)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(archive, b[:len(b)/2], 0o644))
	names := filepath.Join(dir, "names.txt")
	require.NoError(t, os.WriteFile(names, []byte("/m/02\tX\n"), 0o644))
	out := filepath.Join(dir, "out.nt.gz")

	_, err = ImportFB15k237(context.Background(), archive, names, out)
	require.Error(t, err)
	assert.Regexp(t, `train.txt truncated or unreadable after line \d+: unexpected EOF`, err.Error())
	assertNoFile(t, dir, "out.nt", "no output, complete or partial, after a failure")
}

func TestImportFB15k237NotGzip(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "a.tar.gz")
	require.NoError(t, os.WriteFile(archive, []byte("plain text"), 0o644))
	names := filepath.Join(dir, "n.txt")
	require.NoError(t, os.WriteFile(names, nil, 0o644))
	_, err := ImportFB15k237(context.Background(), archive, names, filepath.Join(dir, "o.nt"))
	require.ErrorContains(t, err, "is not a gzip file")
}
