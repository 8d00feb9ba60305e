package realdata_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
)

var update = flag.Bool("update", false, "rewrite the excerpts in testdata/ from the real data")

// excerpt is one file of testdata/: its path (the same inside the data
// directory and inside testdata/) and how it is cut from the real file.
type excerpt struct {
	rel string
	cut func(t *testing.T, data string) []byte
}

// The excerpts. The question files keep the questions the golden plan
// tests of sparql2plan name (by id), then the first ones of the file up to
// 30; FB15k-237 keeps the first 2,000 lines of train.txt and the first 500
// of valid.txt and test.txt, with the names of every MID they mention; the
// PoG files keep their first 30 rows and the gold of those rows; the
// schema files keep their first 300 lines. Records are copied, not edited
// (JSON records are compacted, one per line).
var excerpts = []excerpt{
	{"cwq_sample.json", questions("ID", 30, "WebQTrn-2904_6ad73a7c91945531b211cddb3c6e7376",
		"WebQTest-712_d32363ebe2efd4cc816af57934dae747", "WebQTest-191_1ca9a284fcd2c17f453b0fb590e8223f",
		"WebQTest-743_2b39afadc21f0a2a4602121616db1f8c", "WebQTest-1348_995227fc5dda25d790a913ba7ce06ae5",
		"WebQTrn-14_2c7762d283ed24be7f442f301fb3a5c4")},
	{"grailqa_sample.json", questions("qid", 30, "4301766002000", "4301069003000", "4302314005000",
		"2101694021000", "2100995013000", "2105011017000")},
	{"webqsp/WebQSP.train.json", webqsp(30, "WebQTrn-1869", "WebQTrn-2570", "WebQTrn-273", "WebQTrn-2707",
		"WebQTrn-299", "WebQTrn-1639", "WebQTrn-409", "WebQTrn-843")},
	{"fb15k237/FB15k-237.tar.gz", fb15kArchive},
	{"fb15k237/FB15k_mid2name.txt", fb15kNames},
	{"pog/PoG_cwq_gpt-3.5-turbo-0125.jsonl", firstLines("pog/PoG_cwq_gpt-3.5-turbo-0125.jsonl", 30)},
	{"pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl", firstLines("pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl", 30)},
	{"pog/PoG_webqsp_gpt-3.5-turbo-0125.jsonl", firstLines("pog/PoG_webqsp_gpt-3.5-turbo-0125.jsonl", 30)},
	{"pog/cwq_gold.json", pogGold("pog/PoG_cwq_gpt-3.5-turbo-0125.jsonl", "question")},
	{"pog/grailqa_gold.json", pogGold("pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl", "question")},
	{"pog/webqsp_test_gold.json", pogGold("pog/PoG_webqsp_gpt-3.5-turbo-0125.jsonl", "RawQuestion")},
	{"freebase-schema/fb_roles", firstLines("freebase-schema/fb_roles", 300)},
	{"freebase-schema/fb_types", firstLines("freebase-schema/fb_types", 300)},
	{"freebase-schema/reverse_properties", firstLines("freebase-schema/reverse_properties", 300)},
	{"freebase-schema/properties-typeinfo.nt", firstLines("freebase-schema/properties-typeinfo.nt", 300)},
	{"freebase-schema/type-instance-counts.tsv", firstLines("freebase-schema/type-instance-counts.tsv", 300)},
	{"freebase-schema/LICENSE.GrailQA-Apache-2.0", firstLines("freebase-schema/LICENSE.GrailQA-Apache-2.0", 1<<20)},
	{"freebase-schema/LICENSE.freebase-triples-BSD-2", firstLines("freebase-schema/LICENSE.freebase-triples-BSD-2", 1<<20)},
	{"slice/webqsp/WebQSP.train.json", webqsp(len(sliceQuestions), sliceQuestions...)},
	{"slice/fb15k237/FB15k-237.tar.gz", sliceArchive},
	{"slice/fb15k237/FB15k_mid2name.txt", sliceNames},
}

// sliceQuestions are the WebQSP train questions of the slice excerpt
// (testdata/slice/, laid out like the data directory): 60 of the 289 that
// `parog dataset answerable` finds exact on the whole imported FB15k-237
// slice, those whose gold queries name the MIDs with the fewest FB15k-237
// lines. The excerpt keeps every FB15k-237 line that mentions one of those
// MIDs, so the questions stay exact on it and the whole pipeline (import,
// answerable, bench oracle, eval, report) runs on a fresh clone.
var sliceQuestions = []string{
	"WebQTrn-37", "WebQTrn-112", "WebQTrn-125", "WebQTrn-150", "WebQTrn-179", "WebQTrn-205",
	"WebQTrn-452", "WebQTrn-487", "WebQTrn-587", "WebQTrn-594", "WebQTrn-690", "WebQTrn-691",
	"WebQTrn-885", "WebQTrn-1012", "WebQTrn-1081", "WebQTrn-1084", "WebQTrn-1085", "WebQTrn-1100",
	"WebQTrn-1172", "WebQTrn-1232", "WebQTrn-1235", "WebQTrn-1333", "WebQTrn-1365", "WebQTrn-1433",
	"WebQTrn-1470", "WebQTrn-1534", "WebQTrn-1655", "WebQTrn-1658", "WebQTrn-1718", "WebQTrn-1837",
	"WebQTrn-1921", "WebQTrn-1958", "WebQTrn-2014", "WebQTrn-2084", "WebQTrn-2109", "WebQTrn-2191",
	"WebQTrn-2280", "WebQTrn-2389", "WebQTrn-2473", "WebQTrn-2568", "WebQTrn-2627", "WebQTrn-2675",
	"WebQTrn-2752", "WebQTrn-2884", "WebQTrn-2966", "WebQTrn-2968", "WebQTrn-2986", "WebQTrn-3060",
	"WebQTrn-3089", "WebQTrn-3127", "WebQTrn-3149", "WebQTrn-3164", "WebQTrn-3218", "WebQTrn-3344",
	"WebQTrn-3431", "WebQTrn-3488", "WebQTrn-3532", "WebQTrn-3588", "WebQTrn-3710", "WebQTrn-3718",
}

// TestExcerptsAreCutFromTheRealData cuts every excerpt from the real data
// again and compares it with testdata/, so an excerpt is known to be
// real data, cut as described; with -update it rewrites them.
func TestExcerptsAreCutFromTheRealData(t *testing.T) {
	// The data directory whose README describes the files the excerpts
	// are cut from (parog data get's data/ holds other names for some).
	data := filepath.Dir(realdata.Path(t, "README.md"))
	dir, err := realdata.ExcerptDir()
	require.NoError(t, err)
	for _, e := range excerpts {
		t.Run(e.rel, func(t *testing.T) {
			want := e.cut(t, data)
			path := filepath.Join(dir, e.rel)
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, want, 0o644))
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, got), "%s differs from its cut of the real data (go test -run Excerpts -update ./internal/realdata)", e.rel)
		})
	}
}

// TestExcerptsAreListed checks that testdata/ holds exactly the excerpts
// and that NOTICE names the source of each directory of them.
func TestExcerptsAreListed(t *testing.T) {
	dir, err := realdata.ExcerptDir()
	require.NoError(t, err)
	var want, got []string
	for _, e := range excerpts {
		want = append(want, e.rel)
	}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "README.md" {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		got = append(got, rel)
		return err
	}))
	assert.ElementsMatch(t, want, got)
	notice, err := os.ReadFile(filepath.Join(dir, "..", "NOTICE"))
	require.NoError(t, err)
	for _, e := range excerpts {
		assert.Contains(t, string(notice), "testdata/"+strings.SplitAfter(e.rel, "/")[0], "NOTICE names %s", e.rel)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// firstLines keeps the first n lines of rel.
func firstLines(rel string, n int) func(*testing.T, string) []byte {
	return func(t *testing.T, data string) []byte {
		var out bytes.Buffer
		for i, line := range bytes.SplitAfter(readFile(t, filepath.Join(data, rel)), []byte("\n")) {
			if i == n {
				break
			}
			out.Write(line)
		}
		return out.Bytes()
	}
}

// pick keeps the records whose idField is in ids, then the first others
// up to n, in the file's order.
func pick(t *testing.T, records []json.RawMessage, idField string, n int, ids []string) []json.RawMessage {
	t.Helper()
	id := func(r json.RawMessage) string {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(r, &m))
		return strings.Trim(string(m[idField]), `"`)
	}
	var named []json.RawMessage
	for _, r := range records {
		if slices.Contains(ids, id(r)) {
			named = append(named, r)
		}
	}
	require.Len(t, named, len(ids), "every named question is in the file")
	fill := n - len(named)
	var out []json.RawMessage
	for _, r := range records {
		switch {
		case slices.Contains(ids, id(r)):
			out = append(out, r)
		case fill > 0:
			out = append(out, r)
			fill--
		}
	}
	return out
}

// jsonLines writes records compacted, one per line, between [ and ].
func jsonLines(t *testing.T, records []json.RawMessage) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("[\n")
	for i, r := range records {
		require.NoError(t, json.Compact(&out, r))
		if i < len(records)-1 {
			out.WriteString(",")
		}
		out.WriteString("\n")
	}
	out.WriteString("]\n")
	return out.Bytes()
}

// questions cuts a JSON array of questions (CWQ, GrailQA).
func questions(idField string, n int, ids ...string) func(*testing.T, string) []byte {
	return func(t *testing.T, data string) []byte {
		rel := map[string]string{"ID": "cwq_sample.json", "qid": "grailqa_sample.json"}[idField]
		var all []json.RawMessage
		require.NoError(t, json.Unmarshal(readFile(t, filepath.Join(data, rel)), &all))
		return jsonLines(t, pick(t, all, idField, n, ids))
	}
}

// webqsp cuts WebQSP's envelope, keeping its version fields.
func webqsp(n int, ids ...string) func(*testing.T, string) []byte {
	return func(t *testing.T, data string) []byte {
		var env struct {
			Version         string
			FreebaseVersion string
			Questions       []json.RawMessage
		}
		require.NoError(t, json.Unmarshal(readFile(t, filepath.Join(data, "webqsp/WebQSP.train.json")), &env))
		qs := jsonLines(t, pick(t, env.Questions, "QuestionId", n, ids))
		return fmt.Appendf(nil, "{\"Version\": %q, \"FreebaseVersion\": %q, \"Questions\": %s}\n",
			env.Version, env.FreebaseVersion, bytes.TrimSuffix(qs, []byte("\n")))
	}
}

// pogGold keeps the gold records of the questions of the excerpt's
// results file, in the gold file's order.
func pogGold(results, field string) func(*testing.T, string) []byte {
	return func(t *testing.T, data string) []byte {
		asked := map[string]bool{}
		for _, line := range bytes.Split(bytes.TrimSpace(firstLines(results, 30)(t, data)), []byte("\n")) {
			var row map[string]any
			require.NoError(t, json.Unmarshal(line, &row))
			asked[row[field].(string)] = true
		}
		file := map[string]string{
			"pog/PoG_cwq_gpt-3.5-turbo-0125.jsonl":     "pog/cwq_gold.json",
			"pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl": "pog/grailqa_gold.json",
			"pog/PoG_webqsp_gpt-3.5-turbo-0125.jsonl":  "pog/webqsp_test_gold.json",
		}[results]
		var all []json.RawMessage
		require.NoError(t, json.Unmarshal(readFile(t, filepath.Join(data, file)), &all))
		var kept []json.RawMessage
		for _, r := range all {
			var m map[string]any
			require.NoError(t, json.Unmarshal(r, &m))
			if q, _ := m[field].(string); asked[q] {
				kept = append(kept, r)
			}
		}
		require.Len(t, kept, len(asked), "every row of %s has its gold", results)
		return jsonLines(t, kept)
	}
}

// FB15k-237's excerpt: how many lines of each member it keeps, in the
// archive's member order.
var fb15kMembers = []struct {
	name  string
	lines int
}{{"valid.txt", 500}, {"train.txt", 2000}, {"test.txt", 500}}

// fb15kLines returns the kept lines of each member of the real archive:
// the first ones, as fb15kMembers counts them.
func fb15kLines(t *testing.T, data string) map[string][]byte {
	t.Helper()
	seen := map[string]int{}
	return fb15kFilter(t, data, func(member, _ string) bool {
		i := slices.IndexFunc(fb15kMembers, func(m struct {
			name  string
			lines int
		}) bool {
			return m.name == member
		})
		seen[member]++
		return seen[member] <= fb15kMembers[i].lines
	})
}

// fb15kFilter returns the lines of each member of the real archive that
// keep accepts, in order.
func fb15kFilter(t *testing.T, data string, keep func(member, line string) bool) map[string][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join(data, "fb15k237/FB15k-237.tar.gz"))
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	kept := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		for _, m := range fb15kMembers {
			if filepath.Base(h.Name) != m.name {
				continue
			}
			var b bytes.Buffer
			sc := bufio.NewScanner(tr)
			for sc.Scan() {
				if keep(m.name, sc.Text()) {
					b.Write(sc.Bytes())
					b.WriteByte('\n')
				}
			}
			require.NoError(t, sc.Err())
			kept[m.name] = b.Bytes()
		}
	}
	require.Len(t, kept, len(fb15kMembers))
	return kept
}

// fb15kArchive writes the kept lines as a .tar.gz of the same layout,
// with fixed times so that the bytes do not depend on the day.
func fb15kArchive(t *testing.T, data string) []byte {
	return archiveOf(t, fb15kLines(t, data))
}

// archiveOf writes FB15k-237's members with the given lines.
func archiveOf(t *testing.T, kept map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, m := range fb15kMembers {
		body := kept[m.name]
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(body)),
			ModTime: time.Date(2015, 5, 4, 0, 0, 0, 0, time.UTC), Format: tar.FormatUSTAR}))
		_, err := tw.Write(body)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// fb15kNames keeps the name lines of the MIDs the kept lines mention.
func fb15kNames(t *testing.T, data string) []byte {
	return namesOf(t, data, fb15kLines(t, data))
}

// namesOf keeps the name lines of the MIDs that lines mention.
func namesOf(t *testing.T, data string, lines map[string][]byte) []byte {
	mids := map[string]bool{}
	for _, b := range lines {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Split(line, "\t")
			mids[f[0]], mids[f[2]] = true, true
		}
	}
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(readFile(t, filepath.Join(data, "fb15k237/FB15k_mid2name.txt")), []byte("\n")) {
		if mid, _, ok := bytes.Cut(line, []byte("\t")); ok && mids[string(mid)] {
			out.Write(line)
		}
	}
	return out.Bytes()
}

// sliceMIDs returns the MIDs (as /m/X) the gold queries of the slice
// questions name.
func sliceMIDs(t *testing.T, data string) map[string]bool {
	t.Helper()
	var env struct {
		Questions []struct {
			QuestionId string
			Parses     []struct{ Sparql string }
		}
	}
	require.NoError(t, json.Unmarshal(readFile(t, filepath.Join(data, "webqsp/WebQSP.train.json")), &env))
	mids := map[string]bool{}
	for _, q := range env.Questions {
		if !slices.Contains(sliceQuestions, q.QuestionId) {
			continue
		}
		for _, p := range q.Parses {
			for _, m := range midInQuery.FindAllStringSubmatch(p.Sparql, -1) {
				mids["/m/"+m[1]] = true
			}
		}
	}
	require.NotEmpty(t, mids)
	return mids
}

var midInQuery = regexp.MustCompile(`ns:m\.([0-9a-z_]+)`)

// sliceLines keeps every FB15k-237 line that mentions a slice MID.
func sliceLines(t *testing.T, data string) map[string][]byte {
	mids := sliceMIDs(t, data)
	return fb15kFilter(t, data, func(_, line string) bool {
		f := strings.Split(line, "\t")
		return len(f) == 3 && (mids[f[0]] || mids[f[2]])
	})
}

func sliceArchive(t *testing.T, data string) []byte { return archiveOf(t, sliceLines(t, data)) }

func sliceNames(t *testing.T, data string) []byte { return namesOf(t, data, sliceLines(t, data)) }
