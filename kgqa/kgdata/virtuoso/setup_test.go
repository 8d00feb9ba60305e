package virtuoso_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/answerable"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kgdata/fbimport"
	"github.com/parog/parog-go/kgqa/kgdata/virtuoso"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
	"github.com/parog/parog-go/sparql2plan"
)

// TestSetupLoadsTheFB15k237Slice imports the real FB15k-237 slice, sets up
// Virtuoso with it, runs every WebQSP train gold query on it, and sets up
// again to see that nothing loads twice.
func TestSetupLoadsTheFB15k237Slice(t *testing.T) {
	archive, names := realdata.Path(t, "fb15k237/FB15k-237.tar.gz"), realdata.Path(t, "fb15k237/FB15k_mid2name.txt")
	webqsp := realdata.Path(t, "webqsp/WebQSP.train.json")
	virtuosotest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	_, err := fbimport.ImportFB15k237(ctx, archive, names, filepath.Join(data, "fb15k237.nt.gz"))
	require.NoError(t, err)
	ports, err := virtuoso.FreePorts(2)
	require.NoError(t, err)
	var seen []virtuoso.Progress
	o := virtuoso.SetupOptions{Dir: filepath.Join(tmp, "db"), Data: []string{data}, Memory: virtuoso.GiB, Parallel: 2,
		SQLPort: ports[0], HTTPPort: ports[1], Interval: time.Second, Progress: func(p virtuoso.Progress) { seen = append(seen, p) }}
	rep, err := virtuoso.Setup(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rep.Server.Stop() })
	t.Logf("FB15k-237 slice: %d triples in store, loaded in %s (%.0f triples/s)", rep.Load.Triples, rep.LoadTime, rep.Load.Rate)
	assert.True(t, rep.Started)
	assert.GreaterOrEqual(t, rep.Load.Triples, int64(532224))
	assert.Equal(t, 1, rep.Load.Files)
	assert.Equal(t, 1, rep.Load.Done)
	assert.Zero(t, rep.Load.Failed)
	require.NotEmpty(t, seen)
	assert.Equal(t, int64(14541), rep.Verified.Names)
	assert.True(t, rep.Verified.UpdateRefused, "/sparql took an INSERT")

	// Gold queries of real questions run against the slice.
	g, err := kg.Open(ctx, config.KG{Backend: "sparql", Dialect: "freebase", Endpoint: rep.Server.SPARQL(), Timeout: time.Minute}, "", adapters.Open)
	require.NoError(t, err)
	defer g.Close()
	in, err := os.Open(webqsp)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.Create(filepath.Join(tmp, "kept.json"))
	require.NoError(t, err)
	defer out.Close()
	ans, err := answerable.Run(ctx, g, in, out, answerable.Options{
		Format: dataset.WebQSP, Parallel: 4, Rewrite: func(q string) string { s, _ := sparql2plan.Normalize(q); return s },
	})
	require.NoError(t, err)
	t.Logf("WebQSP train on the slice in Virtuoso: %v; failures %v", ans.Counts, ans.Failures)
	assert.Equal(t, 3098, ans.Questions)
	assert.Greater(t, ans.Counts[answerable.Exact], 200)
	assert.Greater(t, ans.Counts[answerable.Exact]+ans.Counts[answerable.Superset]+ans.Counts[answerable.Partial], 450)

	// Again: the server is reused and nothing is loaded twice.
	again, err := virtuoso.Setup(ctx, o)
	require.NoError(t, err)
	assert.False(t, again.Started)
	assert.Equal(t, rep.Load.Triples, again.Load.Triples)
	assert.Equal(t, 1, again.Load.Files)

	// Data outside DirsAllowed of the running server.
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "x.nt"), []byte("<urn:a> <urn:b> <urn:c> .\n"), 0o644))
	_, err = virtuoso.Setup(ctx, virtuoso.SetupOptions{Dir: o.Dir, Data: []string{other}, SQLPort: ports[0], HTTPPort: ports[1]})
	require.ErrorIs(t, err, virtuoso.ErrDirsAllowed)
	assert.Contains(t, err.Error(), "parog kg virtuoso stop --dir")
}

// TestSetupLoadsTheFB15k237Excerpt sets Virtuoso up with the excerpt of
// FB15k-237 in testdata, which a fresh clone has. The expected values are
// read off the excerpt's text: its names file has 3,788 lines; train.txt's
// first line is the Dominican Republic's form of government (Republic);
// its second, the one regular_cast path of Mighty Morphin Power Rangers in
// the excerpt, reaches Wendee Lee through a mediator.
func TestSetupLoadsTheFB15k237Excerpt(t *testing.T) {
	virtuosotest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	_, err := fbimport.ImportFB15k237(ctx, realdata.Excerpt(t, "fb15k237/FB15k-237.tar.gz"),
		realdata.Excerpt(t, "fb15k237/FB15k_mid2name.txt"), filepath.Join(data, "fb15k237.nt.gz"))
	require.NoError(t, err)
	ports, err := virtuoso.FreePorts(2)
	require.NoError(t, err)
	rep, err := virtuoso.Setup(ctx, virtuoso.SetupOptions{Dir: filepath.Join(tmp, "db"), Data: []string{data},
		Memory: virtuoso.GiB, Parallel: 1, SQLPort: ports[0], HTTPPort: ports[1], Interval: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = rep.Server.Stop() })
	assert.GreaterOrEqual(t, rep.Load.Triples, int64(1057+2*1943+3788))
	assert.Equal(t, int64(3788), rep.Verified.Names)

	g, err := kg.Open(ctx, config.KG{Backend: "sparql", Dialect: "freebase", Endpoint: rep.Server.SPARQL(), Timeout: time.Minute}, "", adapters.Open)
	require.NoError(t, err)
	defer g.Close()
	name, err := g.Name(ctx, "m.0c94fn")
	require.NoError(t, err)
	assert.Equal(t, "Gary Rydstrom", name)
	res, err := g.Select(ctx, `PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT ?g ?a WHERE { ns:m.027rn ns:location.country.form_of_government ?g .
  ns:m.017dcd ns:tv.tv_program.regular_cast ?c . ?c ns:tv.regular_tv_appearance.actor ?a }`)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, "m.06cx9", res.Rows[0]["g"].ID)
	assert.Equal(t, "m.06v8s0", res.Rows[0]["a"].ID)
}

func TestSetupErrors(t *testing.T) {
	virtuosotest.Require(t)
	data := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(data, "x.nt"), []byte("<urn:a> <urn:b> <urn:c> .\n"), 0o644))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	ports, err := virtuoso.FreePorts(1)
	require.NoError(t, err)

	_, err = virtuoso.Setup(context.Background(), virtuoso.SetupOptions{Dir: t.TempDir(), Data: []string{data}, SQLPort: ports[0], HTTPPort: busy})
	require.Error(t, err)
	assert.Equal(t, "virtuoso: port "+strconv.Itoa(busy)+" is in use", err.Error()[:len("virtuoso: port ")+len(strconv.Itoa(busy))+len(" is in use")])
	assert.Contains(t, err.Error(), "stop what holds it, or pass --http-port with a free port")

	t.Setenv("PATH", t.TempDir())
	_, err = virtuoso.Setup(context.Background(), virtuoso.SetupOptions{Dir: t.TempDir(), Data: []string{data}})
	require.ErrorIs(t, err, virtuoso.ErrMissing)
	assert.Equal(t, "virtuoso: virtuoso-t or isql-vt not found; install Virtuoso 7: apt-get install -y virtuoso-opensource-7-bin", err.Error())
}

func TestBuffers(t *testing.T) {
	cases := []struct {
		mem            int64
		buffers, dirty int
	}{
		{16 * virtuoso.GiB, 1360000, 1000000},
		{20 * virtuoso.GiB, 1360000, 1000000},
		{64 * virtuoso.GiB, 5450000, 4000000},
		{2 * virtuoso.GiB, 170000, 130000},
		{virtuoso.GiB, 85000, 63750},
		{1, 10000, 7500},
	}
	for _, c := range cases {
		t.Run(strconv.FormatInt(c.mem, 10), func(t *testing.T) {
			b, d := virtuoso.Buffers(c.mem)
			assert.Equal(t, c.buffers, b)
			assert.Equal(t, c.dirty, d)
		})
	}
}
