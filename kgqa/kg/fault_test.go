package kg

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/nt"
	"github.com/tggo/goRDFlib/store/sparqlstore"
	"go.uber.org/goleak"
)

// protocolServer serves the fixture graph over the SPARQL protocol with a
// real goRDFlib store behind it; before may delay or fail a request (it
// returns true when it has answered by itself).
type protocolServer struct {
	*httptest.Server
	requests atomic.Int64
}

// failWith answers every request with code and body.
func failWith(code int, body string) func(http.ResponseWriter, *http.Request, int64) bool {
	return func(w http.ResponseWriter, _ *http.Request, _ int64) bool {
		http.Error(w, body, code)
		return true
	}
}

func newProtocolServer(t *testing.T, before func(w http.ResponseWriter, r *http.Request, n int64) bool) *protocolServer {
	t.Helper()
	g := rdflibgo.NewGraph()
	f, err := os.Open("testdata/fixture.nt")
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, nt.Parse(g, f))
	ps := &protocolServer{}
	protocol := sparqlstore.NewServerWithGraph(g).QueryHandler()
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := ps.requests.Add(1)
		if before != nil && before(w, r, n) {
			return
		}
		protocol.ServeHTTP(w, r)
	}))
	t.Cleanup(ps.Close)
	return ps
}

func openEndpoint(t *testing.T, url string, tune func(*config.KG)) Graph {
	t.Helper()
	cfg := endpointConfig(url)
	cfg.CacheSize = 0
	cfg.Timeout = 2 * time.Second
	if tune != nil {
		tune(&cfg)
	}
	return openFixture(t, cfg)
}

func TestContractProtocolServer(t *testing.T) {
	ps := newProtocolServer(t, nil)
	runContract(t, openEndpoint(t, ps.URL, nil))
}

func TestMalformedIDSendsNoQuery(t *testing.T) {
	ps := newProtocolServer(t, nil)
	g := openEndpoint(t, ps.URL, nil)
	ctx := context.Background()
	bad := []string{"", "m.", "m.0F8L9C", "m.0f8l9c>", "m.0f8l9c ?p ?o", "http://rdf.freebase.com/ns/m.0f8l9c", "Q42", "m.0f8l9c\n"}
	for _, id := range bad {
		t.Run(id, func(t *testing.T) {
			_, err := g.Relations(ctx, id)
			var ide *IDError
			require.ErrorAs(t, err, &ide)
			assert.Equal(t, id, ide.Value)
			_, err = g.Neighbors(ctx, france, kgqa.Relation{ID: id, Dir: kgqa.Out}, 0)
			require.ErrorIs(t, err, ErrInvalidID)
		})
	}
	_, err := g.Neighbors(ctx, france, kgqa.Relation{ID: "location.location.contains", Dir: "sideways"}, 0)
	require.ErrorIs(t, err, ErrInvalidID)
	assert.Zero(t, ps.requests.Load(), "no request may reach the endpoint")
}

func TestEndpointDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + l.Addr().String() + "/sparql"
	require.NoError(t, l.Close())
	g := openEndpoint(t, url, func(c *config.KG) { c.Timeout = 1500 * time.Millisecond; c.Retries = 3 })
	start := time.Now()
	_, err = g.Relations(context.Background(), france)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Less(t, time.Since(start), 3*time.Second, "must fail within the configured timeout")
}

func TestEndpointSlowHonoursDeadline(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	ps := newProtocolServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) bool {
		select {
		case <-r.Context().Done():
		case <-release:
		}
		return true
	})
	defer ps.Close()
	defer close(release)
	cfg := endpointConfig(ps.URL)
	cfg.CacheSize = 0
	cfg.Timeout = 300 * time.Millisecond
	cfg.Retries = 0
	g, err := Open(context.Background(), cfg, "", adapters.Open)
	require.NoError(t, err)
	done := make(chan error, 1)
	start := time.Now()
	go func() { _, err := g.Relations(context.Background(), france); done <- err }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrUnavailable)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 2*time.Second)
	case <-time.After(5 * time.Second):
		t.Fatal("query did not return after its deadline")
	}
	// A caller's own, shorter deadline wins as well.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = g.Name(ctx, france)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, g.Close())
}

func TestBadResponses(t *testing.T) {
	cases := map[string]struct {
		ctype, body string
	}{
		"html error page":   {"text/html; charset=utf-8", "<html><body><h1>502 Proxy Error</h1></body></html>"},
		"html as json":      {"application/sparql-results+json", "<!DOCTYPE html><html></html>"},
		"truncated json":    {"application/sparql-results+json", `{"head":{"vars":["r","dir"]},"results":{"bindings":[{"r":{"type":"uri","val`},
		"json, not results": {"application/json", `{"error":"nope"}`},
		"unknown term type": {"application/sparql-results+json", `{"head":{"vars":["r"]},"results":{"bindings":[{"r":{"type":"weird","value":"x"}}]}}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ps := newProtocolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int64) bool {
				w.Header().Set("Content-Type", c.ctype)
				_, _ = w.Write([]byte(c.body))
				return true
			})
			// Name sends one query (a Freebase relation listing sends two).
			_, err := openEndpoint(t, ps.URL, nil).Name(context.Background(), france)
			require.ErrorIs(t, err, ErrBadResponse)
			assert.EqualValues(t, 1, ps.requests.Load(), "a bad response is not retried")
		})
	}
}

func TestResultLargerThanCap(t *testing.T) {
	const total = 200 << 20
	var written atomic.Int64
	ps := newProtocolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int64) bool {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		_, _ = w.Write([]byte(`{"head":{"vars":["r"]},"results":{"bindings":[`))
		row := []byte(strings.Repeat(`{"r":{"type":"uri","value":"http://rdf.freebase.com/ns/a.b.c"}},`, 1000))
		for written.Load() < total {
			n, err := w.Write(row)
			written.Add(int64(n))
			if err != nil {
				return true
			}
		}
		return true
	})
	g := openEndpoint(t, ps.URL, func(c *config.KG) { c.MaxResponseBytes = 64 << 10 })
	_, err := g.Relations(context.Background(), france)
	require.ErrorIs(t, err, ErrTooLarge)
	ps.CloseClientConnections()
	assert.Less(t, written.Load(), int64(total), "the client must stop reading at the cap")
}

func TestRetriesBusyNotFailedOrRefused(t *testing.T) {
	t.Run("503 then success", func(t *testing.T) {
		ps := newProtocolServer(t, func(w http.ResponseWriter, _ *http.Request, n int64) bool {
			if n <= 2 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return true
			}
			return false
		})
		g := openEndpoint(t, ps.URL, func(c *config.KG) { c.Retries = 2 })
		n, err := g.Name(context.Background(), france)
		require.NoError(t, err)
		assert.Equal(t, "France", n)
		assert.EqualValues(t, 3, ps.requests.Load())
	})
	t.Run("503 until retries run out", func(t *testing.T) {
		ps := newProtocolServer(t, failWith(http.StatusServiceUnavailable, "busy"))
		g := openEndpoint(t, ps.URL, func(c *config.KG) { c.Retries = 2 })
		_, err := g.Name(context.Background(), france)
		require.ErrorIs(t, err, ErrUnavailable)
		assert.EqualValues(t, 3, ps.requests.Load())
	})
	t.Run("500 is the endpoint's failure, not retried", func(t *testing.T) {
		ps := newProtocolServer(t, failWith(http.StatusInternalServerError, "boom"))
		g := openEndpoint(t, ps.URL, func(c *config.KG) { c.Retries = 2 })
		_, err := g.Name(context.Background(), france)
		require.ErrorIs(t, err, ErrEndpoint)
		assert.Contains(t, err.Error(), "boom")
		assert.EqualValues(t, 1, ps.requests.Load())
	})
	t.Run("400 is not retried", func(t *testing.T) {
		ps := newProtocolServer(t, failWith(http.StatusBadRequest, "Virtuoso 37000 Error SP030: SPARQL compiler"))
		g := openEndpoint(t, ps.URL, func(c *config.KG) { c.Retries = 3 })
		_, err := g.Name(context.Background(), france)
		require.ErrorIs(t, err, ErrQuery)
		assert.Contains(t, err.Error(), "SP030")
		assert.EqualValues(t, 1, ps.requests.Load())
	})
}

func TestCacheAndSingleflight(t *testing.T) {
	ps := newProtocolServer(t, func(http.ResponseWriter, *http.Request, int64) bool {
		time.Sleep(150 * time.Millisecond)
		return false
	})
	g := openEndpoint(t, ps.URL, func(c *config.KG) { c.CacheSize = 100 })
	var st Stats
	ctx := WithStats(context.Background(), &st)
	rel := kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			facts, err := g.Neighbors(ctx, germany, rel, 0)
			assert.NoError(t, err)
			assert.Len(t, facts, 2)
		})
	}
	wg.Wait()
	// One Neighbors call sends two queries: the tails, then their names.
	assert.EqualValues(t, 2, ps.requests.Load(), "16 identical calls in flight share one backend call")
	assert.EqualValues(t, 2, st.Queries.Load())
	assert.EqualValues(t, 1, st.CacheMisses.Load())
	assert.EqualValues(t, 15, st.CacheHits.Load())
	u := st.Usage()
	require.NotNil(t, u)
	require.Len(t, u.Queries, 2)
	assert.Equal(t, []string{"neighbors", "names"}, []string{u.Queries[0].Kind, u.Queries[1].Kind})
	assert.Equal(t, germany, u.Queries[0].Entity, "a neighbour query is anchored at its entity")
	assert.Empty(t, u.Queries[1].Entity, "a names query has no anchor")
	assert.GreaterOrEqual(t, u.Queries[0].MS, 150.0, "the latency is the client's, the server's delay included")
	assert.Equal(t, map[string]kgqa.KGCacheCount{"neighbors": {Hits: 15, Misses: 1}}, u.Cache)

	facts, err := g.Neighbors(ctx, germany, rel, 0)
	require.NoError(t, err)
	facts[0] = kgqa.Fact{} // a caller's change must not reach the cache
	again, err := g.Neighbors(ctx, germany, rel, 0)
	require.NoError(t, err)
	assert.NotEqual(t, kgqa.Fact{}, again[0])
	assert.EqualValues(t, 2, ps.requests.Load())
	cs, ok := CacheStatsOf(g)
	require.True(t, ok)
	assert.EqualValues(t, CacheStats{Hits: 17, Misses: 1, Entries: 1}, cs)

	// Errors are not cached.
	_, err = g.Relations(ctx, "bad id")
	require.ErrorIs(t, err, ErrInvalidID)
	_, err = g.Relations(ctx, "bad id")
	require.ErrorIs(t, err, ErrInvalidID)
	assert.Equal(t, 1, cs.Entries)
	var nilStats *Stats
	assert.Nil(t, StatsFrom(context.Background()))
	assert.NotPanics(t, func() { nilStats.addQuery("relations", "m.0", 1, time.Millisecond, false) })
}
