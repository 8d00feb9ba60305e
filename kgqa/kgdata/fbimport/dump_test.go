package fbimport

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testNoise = []string{"type.object.", "common.", "freebase."}

// writeGzip writes data gzip-compressed to dir/name.
func writeGzip(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

func generated(t testing.TB, lines int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, GenerateDump(&buf, lines, 1))
	return buf.Bytes()
}

// shardLines reads every shard of dir in order.
func shardLines(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "part-*.nt.gz"))
	require.NoError(t, err)
	var all []string
	for _, f := range files {
		all = append(all, readNT(t, f)...)
	}
	return all
}

func TestImportDumpGenerated(t *testing.T) {
	dir := t.TempDir()
	data := generated(t, 2000)
	in := writeGzip(t, dir, "dump.gz", data)
	out := filepath.Join(dir, "out")
	rep, err := ImportDump(context.Background(), in, out, DumpOptions{Noise: testNoise, ShardLines: 500, Workers: 3})
	require.NoError(t, err)
	lines := int64(bytes.Count(data, []byte{'\n'}))
	tl := rep.Tally
	assert.Equal(t, lines, tl.Lines)
	assert.Zero(t, tl.Bad.Count)
	assert.Len(t, rep.Shards, int((lines+499)/500))
	kept := shardLines(t, out)
	assert.Len(t, kept, int(tl.Kept))
	// Per topic of 14 lines: the English name, the release year and the
	// mediator with its two edges, the height; not the foreign name,
	// rdf:type, type.object.type, keys, sameAs, the description, freebase.*.
	topics := lines / 14
	assert.Equal(t, 6*topics, tl.Kept)
	assert.Equal(t, map[string]int64{DropLanguage: topics * 1, DropOutside: 3 * topics, DropNoise: 4 * topics}, tl.Dropped)
	assert.Equal(t, Count{Kept: topics, Dropped: 3 * topics}, *tl.Domains["type"])
	var tr triple
	for _, l := range kept {
		require.Empty(t, parseTriple([]byte(l), &tr), l)
		assert.NotContains(t, l, "owl#sameAs")
		assert.NotContains(t, l, "common.topic")
	}
	assert.Contains(t, strings.Join(kept[:14], "\n"), "\"Topic m.0lfls\"@en")

	// A second run finds every shard done and writes nothing.
	again, err := ImportDump(context.Background(), in, out, DumpOptions{Noise: testNoise, ShardLines: 500, Workers: 3})
	require.NoError(t, err)
	assert.Equal(t, len(rep.Shards), again.Resumed)
	assert.Equal(t, rep.Tally, again.Tally)

	// After a kill in the middle of shard 2, the run redoes shard 2 on.
	require.NoError(t, os.Remove(filepath.Join(out, "part-00002.json")))
	require.NoError(t, os.WriteFile(filepath.Join(out, "part-00002.nt.gz.tmp"), []byte("half"), 0o644))
	resumed, err := ImportDump(context.Background(), in, out, DumpOptions{Noise: testNoise, ShardLines: 500, Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, resumed.Resumed)
	assert.Equal(t, rep.Tally, resumed.Tally)
	assert.Equal(t, kept, shardLines(t, out))
	_, err = os.Stat(filepath.Join(out, "part-00002.nt.gz.tmp"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// Other options cannot resume these shards.
	_, err = ImportDump(context.Background(), in, out, DumpOptions{Noise: testNoise, ShardLines: 1000})
	require.ErrorContains(t, err, "holds shards cut with other options")
}

func TestImportDumpBadLines(t *testing.T) {
	dir := t.TempDir()
	good := "<" + NS + "m.01>\t<" + NS + "people.person.height_meters>\t\"1.8\"^^<http://www.w3.org/2001/XMLSchema#float>\t.\n"
	input := good +
		"this is not N-Triples\n" +
		"<" + NS + "m.0 1>\t<" + NS + "a.b.c>\t<" + NS + "m.02>\t.\n" +
		"<" + NS + "m.01>\t<" + NS + "type.object.name>\t\"bad \\q escape\"@en\t.\n" +
		"\n# a comment\n" +
		"<" + NS + "m.01>\t<" + NS + "a.b.c>\t<" + NS + "m.02>\n" +
		"<" + NS + "m.01>\t<" + NS + "type.object.name>\t\"open\n" +
		good
	in := writeGzip(t, dir, "dump.gz", []byte(input))
	rep, err := ImportDump(context.Background(), in, filepath.Join(dir, "out"), DumpOptions{Noise: testNoise})
	require.NoError(t, err)
	var got []string
	for _, b := range rep.Tally.Bad.Examples {
		got = append(got, b.String())
	}
	assert.Equal(t, []string{
		"dump.gz:2: subject is not an IRI",
		"dump.gz:3: subject IRI contains a space",
		"dump.gz:4: literal has a bad escape \\q",
		"dump.gz:7: missing final '.'",
		"dump.gz:8: literal is not closed with '\"'",
	}, got)
	assert.Equal(t, int64(5), rep.Tally.Bad.Count)
	assert.Equal(t, int64(2), rep.Tally.Blank)
	assert.Equal(t, int64(9), rep.Tally.Lines)
	assert.Equal(t, int64(2), rep.Tally.Kept)
	assert.Equal(t, []string{strings.TrimSuffix(good, "\n"), strings.TrimSuffix(good, "\n")}, shardLines(t, filepath.Join(dir, "out")))
}

func TestImportDumpTruncated(t *testing.T) {
	dir := t.TempDir()
	data := generated(t, 60_000)
	in := writeGzip(t, dir, "dump.gz", data)
	b, err := os.ReadFile(in)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, b[:len(b)*3/4], 0o644))
	out := filepath.Join(dir, "out")
	rep, err := ImportDump(context.Background(), in, out, DumpOptions{Noise: testNoise, ShardLines: 15_000})
	require.Error(t, err)
	m := regexp.MustCompile(`dump.gz is truncated or corrupt after line (\d+) \(unexpected EOF\); the (\d) complete shard\(s\) are kept`).
		FindStringSubmatch(err.Error())
	require.NotNil(t, m, err.Error())
	// Every shard whose lines were all read before the damage is kept.
	last, _ := strconv.Atoi(m[1])
	require.GreaterOrEqual(t, last, 15_000, "the damage must come after the first shard for this test to mean anything")
	assert.Equal(t, strconv.Itoa(last/15_000), m[2])
	assert.Len(t, rep.Shards, last/15_000)
	files, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
		assert.False(t, strings.HasSuffix(f.Name(), ".tmp"), "left a half-written file %s", f.Name())
	}
	assert.Contains(t, names, "part-00000.nt.gz")
	assert.Len(t, rep.Shards, len(names)/2-0) // a report beside each shard, and the settings
}

func TestImportDumpDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("SKIPPING: no /dev/full to stand for a full disk: %v", err)
	}
	dir := t.TempDir()
	in := writeGzip(t, dir, "dump.gz", generated(t, 100_000))
	out := filepath.Join(dir, "out")
	o := DumpOptions{Noise: testNoise, create: func(name string) (*os.File, error) {
		if strings.Contains(name, "part-") {
			return os.OpenFile("/dev/full", os.O_WRONLY, 0)
		}
		return os.Create(name)
	}}
	_, err := ImportDump(context.Background(), in, out, o)
	require.ErrorIs(t, err, ErrDiskFull)
	assert.Contains(t, err.Error(), "free space on the output disk or choose another --out, then run the same command again")
	assertNoFile(t, out, "part-", "a shard was left behind")
}

// assertNoFile checks that no file of dir has part in its name.
func assertNoFile(t *testing.T, dir, part, msg string) {
	t.Helper()
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, f := range files {
		assert.NotContains(t, f.Name(), part, msg)
	}
}

func TestImportDumpReportJSON(t *testing.T) {
	dir := t.TempDir()
	in := writeGzip(t, dir, "dump.gz", generated(t, 100))
	out := filepath.Join(dir, "out")
	_, err := ImportDump(context.Background(), in, out, DumpOptions{Noise: testNoise})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(out, "part-00000.json"))
	require.NoError(t, err)
	var s ShardReport
	require.NoError(t, json.Unmarshal(b, &s))
	assert.Equal(t, "part-00000.nt.gz", s.File)
	assert.Equal(t, int64(1), s.FirstLine)
	assert.Positive(t, s.Tally.Domains["film"].Kept)
}

func TestLangKept(t *testing.T) {
	f := newFilter([]string{"en", "ZH-hant"}, nil)
	for tag, want := range map[string]bool{"": true, "en": true, "EN": true, "en-GB": true, "eng": false, "fr": false, "zh-Hant": true, "zh-Hant-TW": true, "zh": false} {
		assert.Equal(t, want, f.langKept([]byte(tag)), tag)
	}
}
