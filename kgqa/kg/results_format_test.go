package kg

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/kg/backend"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	"github.com/parog/parog-go/kgqa/kg/endpoint"
)

// bothFormats sends every query three times, asking for JSON, for
// tab-separated and for XML results, and fails the test when the tables
// (or the errors' classes) differ; the store goes on with the JSON
// answer.
type bothFormats struct {
	t              *testing.T
	json, tsv, xml *endpoint.Client
	compared       atomic.Int64
	withLiteral    atomic.Int64
}

func (b *bothFormats) Query(ctx context.Context, q string) (*backend.Table, error) {
	want, werr := b.json.Query(ctx, q)
	b.compared.Add(1)
	for _, other := range []*endpoint.Client{b.tsv, b.xml} {
		got, gerr := other.Query(ctx, q)
		for _, class := range []error{backend.ErrQuery, backend.ErrBadResponse, backend.ErrTooLarge, backend.ErrEndpoint, backend.ErrUnavailable} {
			if errors.Is(werr, class) != errors.Is(gerr, class) {
				b.t.Errorf("query %q: JSON error %v, other error %v", q, werr, gerr)
			}
		}
		if werr == nil && gerr == nil {
			assert.Equal(b.t, want, got, "query %q", q)
		}
	}
	if werr == nil {
		for _, row := range want.Rows {
			for _, n := range row {
				if n.Kind == backend.NodeLiteral && (n.Datatype != "" || n.Lang != "") {
					b.withLiteral.Add(1)
				}
			}
		}
	}
	return want, werr
}

func (b *bothFormats) Close() error {
	return errors.Join(b.json.Close(), b.tsv.Close(), b.xml.Close())
}

// openBoth is an OpenBackend of bothFormats; it keeps the one it opens
// in *last.
func openBoth(t *testing.T, last **bothFormats) OpenBackend {
	return func(_ context.Context, cfg config.KG, _ string) (backend.Backend, error) {
		o := endpoint.Options{Timeout: cfg.Timeout, Retries: cfg.Retries, Results: endpoint.ResultsJSON}
		j, err := endpoint.New(cfg.Endpoint, o)
		if err != nil {
			return nil, err
		}
		o.Results = endpoint.ResultsTSV
		v, err := endpoint.New(cfg.Endpoint, o)
		if err != nil {
			return nil, err
		}
		o.Results = endpoint.ResultsXML
		x, err := endpoint.New(cfg.Endpoint, o)
		if err != nil {
			return nil, err
		}
		*last = &bothFormats{t: t, json: j, tsv: v, xml: x}
		return *last, nil
	}
}

// TestResultsFormatsAgreeVirtuoso asks the real Virtuoso every query the
// store sends (the contract on the fixture, every primitive of the demo
// graphs, the free-text search, the listings from the relation index)
// as JSON, as tab-separated values and as XML, and requires the same
// tables. Virtuoso 7's tab-separated values are not SPARQL 1.1 TSV (they
// lose the kind of term, datatypes and language tags), so what this
// holds for them is that the client never reads them as such: each is
// asked again as JSON. Its XML is read.
func TestResultsFormatsAgreeVirtuoso(t *testing.T) {
	srv := virtuoso(t)
	ctx := context.Background()
	var b *bothFormats
	t.Run("contract", func(t *testing.T) {
		g, err := Open(ctx, endpointConfig(srv.GraphURL(fixtureGraph)), "", openBoth(t, &b))
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		runContract(t, g)
		assert.Greater(t, b.compared.Load(), int64(20))
	})
	t.Run("demo freebase", func(t *testing.T) {
		c := endpointConfig(srv.GraphURL(demoGraph))
		c.CacheSize = 0
		backendsAgreeWith(t, "freebase", embedded.BuiltinDemoFreebase, c, openBoth(t, &b), demokg.FreebaseQuestions(), 100)
		assert.Greater(t, b.compared.Load(), int64(100))
	})
	t.Run("demo wikidata", func(t *testing.T) {
		c := endpointConfig(virtuosoWithWikidata(t))
		c.Dialect, c.CacheSize = "wikidata", 0
		backendsAgreeWith(t, "wikidata", embedded.BuiltinDemoWikidata, c, openBoth(t, &b), demokg.WikidataQuestions(), 50)
	})
	t.Run("relation index and full text", func(t *testing.T) {
		c := endpointConfig(indexedURL(t, demoGraph, demoIndex))
		c.CacheSize, c.FullText = 0, true
		g, err := Open(ctx, c, "", openBoth(t, &b))
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		s, ok := g.(*store)
		require.True(t, ok)
		require.True(t, s.hasRelIndex(ctx), "the index is not found")
		for _, q := range demokg.FreebaseQuestions() {
			for _, e := range q.TopicEntities {
				rels, err := g.Relations(ctx, e.ID)
				require.NoError(t, err)
				assert.NotEmpty(t, rels, e.ID)
				_, err = g.Search(ctx, e.Name+" x", 5)
				require.NoError(t, err)
			}
		}
	})
	t.Run("literals", func(t *testing.T) {
		_, err := openBoth(t, &b)(ctx, endpointConfig(srv.SPARQL), "")
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		for _, q := range []string{
			"SELECT ?s ?p ?o WHERE { GRAPH <" + demoGraph + "> { ?s ?p ?o FILTER(isLiteral(?o)) } }",
			"SELECT ?s ?p ?o WHERE { GRAPH <" + fixtureGraph + "> { ?s ?p ?o } }",
			`SELECT ?x ?y WHERE { VALUES (?x ?y) { ("a\tb\nc\"d\\e\u00fc\U0001D11E" 1) ("x"@en-gb 1.5) (<http://x/a%20b> 1e3) (true "x"^^<http://www.w3.org/2001/XMLSchema#string>) ("2020-01-01"^^<http://www.w3.org/2001/XMLSchema#date> UNDEF) } }`,
			"SELECT (COUNT(*) AS ?n) WHERE { GRAPH <" + demoGraph + "> { ?s ?p ?o } }",
		} {
			_, err := b.Query(ctx, q)
			require.NoError(t, err, q)
		}
		assert.Greater(t, b.withLiteral.Load(), int64(10), "typed and language-tagged literals compared")
	})
}

// TestStoreResultsTSVVirtuoso runs the store's contract and the demo
// graph's comparison with kg.results tsv and xml.
func TestStoreResultsTSVVirtuoso(t *testing.T) {
	srv := virtuoso(t)
	for _, results := range []string{"tsv", "xml"} {
		t.Run("contract "+results, func(t *testing.T) {
			c := endpointConfig(srv.GraphURL(fixtureGraph))
			c.Results = results
			runContract(t, openFixture(t, c))
		})
		t.Run("demo "+results, func(t *testing.T) {
			c := endpointConfig(srv.GraphURL(demoGraph))
			c.CacheSize, c.Results = 0, results
			backendsAgreeWith(t, "freebase", embedded.BuiltinDemoFreebase, c, adapters.Open, demokg.FreebaseQuestions(), 100)
		})
	}
}
