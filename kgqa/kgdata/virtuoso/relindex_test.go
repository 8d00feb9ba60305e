package virtuoso_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kgdata/virtuoso"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
)

// indexPairs reads N-Triples and returns the distinct (subject,
// predicate) pairs whose subject is an IRI and the distinct (object,
// predicate) pairs whose object is an IRI: what the relation index of
// the data holds, read off the text.
func indexPairs(t *testing.T, nt []byte) (out, in int) {
	t.Helper()
	outs, ins := map[[2]string]bool{}, map[[2]string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(nt))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, rest, ok1 := strings.Cut(line, " ")
		p, o, ok2 := strings.Cut(rest, " ")
		require.True(t, ok1 && ok2, line)
		if strings.HasPrefix(s, "<") {
			outs[[2]string{s, p}] = true
		}
		if strings.HasPrefix(o, "<") {
			ins[[2]string{strings.TrimSuffix(strings.TrimSpace(o), " ."), p}] = true
		}
	}
	require.NoError(t, sc.Err())
	return len(outs), len(ins)
}

// setupDemo sets a Virtuoso up with the demo graph on free ports, with
// the relation index when index is set, and stops it when the test ends;
// o is what it was set up with.
func setupDemo(ctx context.Context, t *testing.T, index bool) (*virtuoso.SetupReport, virtuoso.SetupOptions) {
	t.Helper()
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	require.NoError(t, os.MkdirAll(data, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "demo.nt"), demokg.Freebase(), 0o644))
	ports, err := virtuoso.FreePorts(2)
	require.NoError(t, err)
	o := virtuoso.SetupOptions{Dir: filepath.Join(tmp, "db"), Data: []string{data}, Memory: virtuoso.GiB / 2,
		Parallel: 1, SQLPort: ports[0], HTTPPort: ports[1], Interval: time.Second, RelationIndex: index}
	rep, err := virtuoso.Setup(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rep.Server.Stop() })
	return rep, o
}

// TestSetupWritesTheRelationIndexOnce sets Virtuoso up with the demo graph
// and checks the relation index against the pairs read off the N-Triples;
// a second setup finds it complete and writes nothing.
func TestSetupWritesTheRelationIndexOnce(t *testing.T) {
	virtuosotest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	wantOut, wantIn := indexPairs(t, demokg.Freebase())
	require.Greater(t, wantOut, 100)
	require.Greater(t, wantIn, 100)
	rep, o := setupDemo(ctx, t, true)
	ri := rep.Relations
	t.Logf("relation index: %+v", ri)
	assert.True(t, ri.Built)
	assert.Equal(t, int64(wantOut), ri.Out)
	assert.Equal(t, int64(wantIn), ri.In)
	assert.Equal(t, int64(wantOut+wantIn+1), ri.Triples, "index triples and the marker")
	assert.Positive(t, ri.Data)

	again, err := virtuoso.Setup(ctx, o)
	require.NoError(t, err)
	assert.False(t, again.Started)
	assert.False(t, again.Relations.Built, "the second setup wrote the index again")
	assert.Equal(t, ri.Triples, again.Relations.Triples)
	assert.Equal(t, ri.Data, again.Relations.Data)

	// An index without its marker (a killed run) is written again, whole.
	_, err = rep.Server.ISQL(ctx, "SPARQL DELETE WHERE { GRAPH <"+virtuoso.RelationIndexGraph+"> { <"+
		virtuoso.RelationIndexMarker+"> ?p ?o } };\n")
	require.NoError(t, err)
	third, err := rep.Server.IndexRelations(ctx, virtuoso.DefaultGraph, virtuoso.RelationIndexGraph)
	require.NoError(t, err)
	assert.True(t, third.Built)
	assert.Equal(t, ri.Triples, third.Triples)
}

// indexDump returns the triples of the index graph, sorted, as isql
// prints them.
func indexDump(ctx context.Context, t *testing.T, s *virtuoso.Server) []string {
	t.Helper()
	out, err := s.ISQL(ctx, "SPARQL SELECT (\"ROW\" AS ?t) ?s ?p ?o WHERE { GRAPH <"+virtuoso.RelationIndexGraph+
		"> { ?s ?p ?o } } ORDER BY ?s ?p ?o;\n")
	require.NoError(t, err)
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "ROW" {
			rows = append(rows, strings.Join(f[1:], " "))
		}
	}
	return rows
}

// TestRelationIndexResumesAfterAStop writes the demo graph's relation
// index in small parts, stops the run after its second part, and runs it
// again: the second run skips the predicates the first one wrote, and the
// index it ends with is the one a run from scratch writes.
func TestRelationIndexResumesAfterAStop(t *testing.T) {
	virtuosotest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	rep, _ := setupDemo(ctx, t, false)
	s := rep.Server
	const part = 200 // data triples: the demo graph's thousands make many parts

	whole, err := s.IndexRelationsWith(ctx, virtuoso.DefaultGraph, virtuoso.RelationIndexGraph,
		virtuoso.IndexOptions{PartTriples: part})
	require.NoError(t, err)
	require.True(t, whole.Built)
	require.Greater(t, whole.Parts, 4, "the demo graph in parts of %d triples", part)
	want := indexDump(ctx, t, s)
	require.Len(t, want, int(whole.Triples))

	// Start again from nothing and stop after the second part.
	_, err = s.ISQL(ctx, "SPARQL CLEAR GRAPH <"+virtuoso.RelationIndexGraph+">;\n")
	require.NoError(t, err)
	stopCtx, stop := context.WithCancel(ctx)
	var seen []virtuoso.IndexProgress
	_, err = s.IndexRelationsWith(stopCtx, virtuoso.DefaultGraph, virtuoso.RelationIndexGraph,
		virtuoso.IndexOptions{PartTriples: part, Progress: func(p virtuoso.IndexProgress) {
			seen = append(seen, p)
			if p.Part == 2 {
				stop()
			}
		}})
	stop()
	require.Error(t, err, "the stopped run")
	require.Len(t, seen, 2)
	assert.Equal(t, whole.Parts, seen[0].Parts)

	again, err := s.IndexRelationsWith(ctx, virtuoso.DefaultGraph, virtuoso.RelationIndexGraph,
		virtuoso.IndexOptions{PartTriples: part})
	require.NoError(t, err)
	assert.True(t, again.Built)
	assert.Positive(t, again.Resumed, "predicates the stopped run had written")
	assert.Equal(t, whole.Predicates, again.Predicates)
	assert.Less(t, again.Parts, whole.Parts, "the resumed run writes only what is left")
	assert.Equal(t, whole.Out, again.Out)
	assert.Equal(t, whole.In, again.In)
	assert.Equal(t, whole.Triples, again.Triples)
	assert.Equal(t, want, indexDump(ctx, t, s), "the resumed index is the whole one, with no progress triples left")

	done, err := s.IndexRelations(ctx, virtuoso.DefaultGraph, virtuoso.RelationIndexGraph)
	require.NoError(t, err)
	assert.False(t, done.Built, "complete: nothing to write")
}
