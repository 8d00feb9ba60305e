package kg

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two holders of one office, each a statement with qualifiers, as Wikidata
// stores them: Q1 held Q9 from 2001 to 2005 (a truthy edge too), Q2 from
// 2005 on with no truthy edge (a normal-rank statement beside Q2's
// preferred one, Q8).
const officeNT = `<http://www.wikidata.org/entity/Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Alice"@en .
<http://www.wikidata.org/entity/Q2> <http://www.w3.org/2000/01/rdf-schema#label> "Bob"@en .
<http://www.wikidata.org/entity/Q8> <http://www.w3.org/2000/01/rdf-schema#label> "Treasurer"@en .
<http://www.wikidata.org/entity/Q9> <http://www.w3.org/2000/01/rdf-schema#label> "Mayor"@en .
<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P39> <http://www.wikidata.org/entity/Q9> .
<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/P39> <http://www.wikidata.org/entity/statement/Q1-a> .
<http://www.wikidata.org/entity/statement/Q1-a> <http://www.wikidata.org/prop/statement/P39> <http://www.wikidata.org/entity/Q9> .
<http://www.wikidata.org/entity/statement/Q1-a> <http://www.wikidata.org/prop/qualifier/P580> "2001-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://www.wikidata.org/entity/statement/Q1-a> <http://www.wikidata.org/prop/qualifier/P582> "2005-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://www.wikidata.org/entity/statement/Q1-a> <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#NormalRank> .
<http://www.wikidata.org/entity/Q2> <http://www.wikidata.org/prop/direct/P39> <http://www.wikidata.org/entity/Q8> .
<http://www.wikidata.org/entity/Q2> <http://www.wikidata.org/prop/P39> <http://www.wikidata.org/entity/statement/Q2-a> .
<http://www.wikidata.org/entity/statement/Q2-a> <http://www.wikidata.org/prop/statement/P39> <http://www.wikidata.org/entity/Q9> .
<http://www.wikidata.org/entity/statement/Q2-a> <http://www.wikidata.org/prop/qualifier/P580> "2005-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://www.wikidata.org/entity/statement/Q2-a> <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#NormalRank> .
<http://www.wikidata.org/entity/Q2> <http://www.wikidata.org/prop/P39> <http://www.wikidata.org/entity/statement/Q2-b> .
<http://www.wikidata.org/entity/statement/Q2-b> <http://www.wikidata.org/prop/statement/P39> <http://www.wikidata.org/entity/Q8> .
<http://www.wikidata.org/entity/statement/Q2-b> <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#PreferredRank> .
`

const officeGraph = "urn:parog:test-office"

// officeLoad loads officeNT into the package's Virtuoso on first use.
var officeLoad struct {
	once sync.Once
	err  error
}

// openOffice opens officeNT in the embedded store, or, with virt, in
// Virtuoso.
func openOffice(t *testing.T, virt bool) Graph {
	t.Helper()
	path := filepath.Join(t.TempDir(), "office.nt")
	require.NoError(t, os.WriteFile(path, []byte(officeNT), 0o644))
	if !virt {
		cfg := fixtureConfig()
		cfg.Dialect, cfg.Files = "wikidata", []string{path}
		return openFixture(t, cfg)
	}
	srv := virtuoso(t)
	officeLoad.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		officeLoad.err = srv.Load(ctx, officeGraph, path)
	})
	require.NoError(t, officeLoad.err, "load the office graph into Virtuoso")
	cfg := endpointConfig(srv.GraphURL(officeGraph))
	cfg.Dialect = "wikidata"
	return openFixture(t, cfg)
}

// From the office, against the direction of its statements: each holder's
// statement reads as one fact through the statement node, the holder and
// the qualifiers sharing the mediator, so "who was mayor in 2006" can be
// told from the facts. Bob's statement has no truthy edge, so without the
// statements he would not be found at all.
func TestWikidataIncomingStatements(t *testing.T) {
	for _, backend := range []string{"embedded", "virtuoso"} {
		t.Run(backend, func(t *testing.T) {
			incomingStatements(t, openOffice(t, backend == "virtuoso"))
		})
	}
}

func incomingStatements(t *testing.T, g Graph) {
	facts, err := g.Neighbors(context.Background(), "Q9", kgqa.Relation{ID: "P39", Dir: kgqa.In}, 0)
	require.NoError(t, err)
	type row struct {
		path     string
		dir2     kgqa.Direction
		mediator string
		tail     string
	}
	var got []row
	for _, f := range facts {
		assert.Equal(t, kgqa.In, f.Dir)
		assert.Equal(t, "Q9", f.Head.ID)
		tail := f.Tail.ID
		if tail == "" {
			tail = f.Tail.Name
		} else {
			assert.NotEmpty(t, f.Tail.Name, "holders are named")
		}
		p := f.Path[0]
		if len(f.Path) > 1 {
			p += "/" + f.Path[1]
		}
		got = append(got, row{p, f.Dir2, f.Mediator, tail})
	}
	assert.ElementsMatch(t, []row{
		{"P39", "", "", "Q1"},
		{"P39/P39", kgqa.In, "Q1-a", "Q1"},
		{"P39/P580", kgqa.Out, "Q1-a", "2001-01-01T00:00:00Z"},
		{"P39/P582", kgqa.Out, "Q1-a", "2005-01-01T00:00:00Z"},
		{"P39/P39", kgqa.In, "Q2-a", "Q2"},
		{"P39/P580", kgqa.Out, "Q2-a", "2005-01-01T00:00:00Z"},
	}, got)
}

// Every property of the Wikidata demo graph reads as words in a prompt, not
// as a bare id: a model can tell "place served by transport hub" from
// "country", not P931 from P17.
func TestWikidataDemoPropertiesAreReadable(t *testing.T) {
	d := Wikidata(DialectOptions{})
	props := map[string]bool{}
	for _, m := range regexp.MustCompile(`<http://www\.wikidata\.org/prop/(?:direct|qualifier)/(P\d+)>`).FindAllSubmatch(demokg.Wikidata(), -1) {
		props[string(m[1])] = true
	}
	require.NotEmpty(t, props)
	for p := range props {
		r := d.Readable(p)
		assert.NotEqual(t, p, r, "%s has no readable name", p)
		assert.Contains(t, r, "("+p+")", "the id stays visible")
	}
}
