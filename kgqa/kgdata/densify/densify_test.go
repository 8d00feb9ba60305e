package densify

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type triple struct{ s, p, o, line string }

func build(t *testing.T, seed uint64, target int64) (*Report, []triple, [][]byte) {
	t.Helper()
	out := t.TempDir()
	rep, err := Build(context.Background(), "testdata/slice.nt", "testdata/schema", out,
		Options{Seed: seed, TargetTriples: target, ShardTriples: 20_000})
	require.NoError(t, err)
	var ts []triple
	var raw [][]byte
	for _, f := range rep.Shards {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		raw = append(raw, b)
		gz, err := gzip.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		sc := bufio.NewScanner(gz)
		for sc.Scan() {
			s, p, o, ok := splitTriple(sc.Text())
			require.True(t, ok, sc.Text())
			if o == "" {
				o = strings.TrimSuffix(strings.SplitN(sc.Text(), " ", 3)[2], " .")
			}
			ts = append(ts, triple{s, p, o, sc.Text()})
		}
		require.NoError(t, sc.Err())
	}
	return rep, ts, raw
}

func readLines(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestWorldInvariants(t *testing.T) {
	s, err := LoadSchema("testdata/schema")
	require.NoError(t, err)
	rep, ts, _ := build(t, 7, 60_000)
	real := readLines(t, "testdata/slice.nt")
	assert.GreaterOrEqual(t, rep.Triples, int64(60_000))
	assert.Equal(t, int64(len(ts)), rep.Triples)

	// Every real line is kept, unchanged, first.
	for i, l := range real {
		require.Equal(t, l, ts[i].line, "real line %d", i)
	}
	realNode, used := map[string]bool{}, map[string]bool{}
	for _, l := range real {
		s, p, o, _ := splitTriple(l)
		realNode[s], used[p] = true, true
		if o != "" {
			realNode[o] = true
		}
	}
	synth := ts[len(real):]
	have := map[string]bool{}
	for _, x := range ts {
		have[x.s+" "+x.p+" "+x.o] = true
	}
	named, typed := map[string]bool{}, map[string]bool{}
	perProp := map[string]int{}
	forms := map[string]int{}
	for _, x := range synth {
		objReal := realNode[x.o]
		if x.p == typeProp {
			typed[x.s] = true
			continue
		}
		if x.p == nameProp {
			named[x.s] = true
			assert.False(t, realNode[x.s], "a real entity renamed: %s", x.line)
			continue
		}
		// Synthetic facts never join two real nodes, never touch a real
		// mediator, and never give a real node a relation of the slice.
		assert.False(t, realNode[x.s] && objReal, "synthetic fact between real nodes: %s", x.line)
		assert.False(t, strings.Contains(x.s+x.o, "fb15k_cvt"), "synthetic fact on a real mediator: %s", x.line)
		if realNode[x.s] || objReal {
			assert.False(t, used[x.p], "slice relation %s given to a real entity: %s", x.p, x.line)
		}
		p := s.Props[x.p]
		require.NotNil(t, p, "a property the schema lacks: %s", x.line)
		if p.Literal() {
			forms[checkLiteral(t, p, x.o)]++
		} else if p.Reverse != "" {
			assert.True(t, have[x.o+" "+p.Reverse+" "+x.s], "reverse missing for %s", x.line)
		}
		if p.Unique {
			perProp[x.s+" "+x.p]++
		}
	}
	for k, n := range perProp {
		assert.Equal(t, 1, n, "single-valued property given %d values: %s", n, k)
	}
	for _, f := range []string{"date", "gYear", "gYearMonth", "dateTime", "int", "float", "text"} {
		assert.Positive(t, forms[f], "no literal in form %s", f)
	}
	for n := range typed {
		if strings.HasPrefix(n, "m.dzc") {
			assert.False(t, named[n], "a mediator has a name: %s", n)
		} else if !realNode[n] {
			assert.True(t, named[n], "a synthetic entity without a name: %s", n)
		}
	}
}

var lexical = map[string]*regexp.Regexp{
	"date":       regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`),
	"gYear":      regexp.MustCompile(`^\d{4}$`),
	"gYearMonth": regexp.MustCompile(`^\d{4}-\d{2}$`),
	"dateTime":   regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`),
}

// checkLiteral checks a literal against its property's kind and returns
// its form.
func checkLiteral(t *testing.T, p *Property, o string) string {
	t.Helper()
	m := regexp.MustCompile(`^"([^"]*)"(?:\^\^<http://www\.w3\.org/2001/XMLSchema#(\w+)>|@(en))?$`).FindStringSubmatch(o)
	require.NotNil(t, m, "not a literal: %s %s", p.ID, o)
	lex, dt := m[1], m[2]
	switch p.Range {
	case KindDatetime:
		require.Contains(t, lexical, dt, "%s: %s", p.ID, o)
		assert.Regexp(t, lexical[dt], lex, p.ID)
		return dt
	case KindInt:
		assert.Equal(t, "int", dt, p.ID)
		_, err := strconv.ParseInt(lex, 10, 64)
		assert.NoError(t, err, p.ID)
		return "int"
	case KindFloat:
		assert.Equal(t, "float", dt, p.ID)
		_, err := strconv.ParseFloat(lex, 64)
		assert.NoError(t, err, p.ID)
		return "float"
	case KindText:
		assert.Equal(t, "en", m[3], "%s: %s", p.ID, o)
		return "text"
	}
	return p.Range
}

func TestWorldDeterministic(t *testing.T) {
	_, _, a := build(t, 3, 30_000)
	_, _, b := build(t, 3, 30_000)
	_, _, c := build(t, 4, 30_000)
	assert.Equal(t, a, b, "the same seed gives the same shards")
	assert.NotEqual(t, a, c, "another seed gives another world")
}

// TestWorldHeavyTail wants the real entities' synthetic fan-out heavy
// tailed: the busiest entity far above the median, counted from the
// shards rather than the report.
func TestWorldHeavyTail(t *testing.T) {
	rep, ts, _ := build(t, 7, 60_000)
	real := map[string]bool{}
	for _, l := range readLines(t, "testdata/slice.nt") {
		s, _, _, _ := splitTriple(l)
		real[s] = true
	}
	facts, rels := map[string]int{}, map[string]map[string]bool{}
	for _, x := range ts {
		if x.p == nameProp || x.p == typeProp {
			continue
		}
		for _, e := range []struct{ id, rel string }{{x.s, "+" + x.p}, {x.o, "-" + x.p}} {
			if real[e.id] {
				facts[e.id]++
				if rels[e.id] == nil {
					rels[e.id] = map[string]bool{}
				}
				rels[e.id][e.rel] = true
			}
		}
	}
	var counts []int
	for _, n := range facts {
		counts = append(counts, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	median := counts[len(counts)/2]
	assert.Greater(t, counts[0], 20*median, "top %d, median %d", counts[0], median)
	top := rep.Hubs[0]
	assert.Equal(t, int64(facts[top.ID]), top.Facts, "the report counts the hub's facts as the shards hold them")
	assert.Equal(t, len(rels[top.ID]), top.Relations)
	assert.Greater(t, top.Relations, 100)
}

func TestBuildErrors(t *testing.T) {
	_, err := Build(context.Background(), "testdata/missing.nt", "testdata/schema", t.TempDir(), Options{})
	assert.ErrorContains(t, err, "missing.nt")
	_, err = Build(context.Background(), "testdata/slice.nt", "testdata", t.TempDir(), Options{})
	assert.ErrorContains(t, err, "fb_roles")
	bad := filepath.Join(t.TempDir(), "bad.nt")
	require.NoError(t, os.WriteFile(bad, []byte("<a> <b> <c> .\n"), 0o644))
	_, err = Build(context.Background(), bad, "testdata/schema", t.TempDir(), Options{})
	assert.ErrorContains(t, err, "line 1")
}
