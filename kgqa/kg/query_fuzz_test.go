package kg

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"github.com/tggo/goRDFlib/sparql"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg/backend"
	"github.com/parog/parog-go/kgqa/kg/embedded"
)

// recorder keeps the query text a store sends, passing it on to a real
// embedded store.
type recorder struct {
	backend.Backend
	mu      sync.Mutex
	queries []string
}

func (r *recorder) Query(ctx context.Context, q string) (*backend.Table, error) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.mu.Unlock()
	return r.Backend.Query(ctx, q)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queries
	r.queries = nil
	return q
}

// shape renders the structure of a parsed query: pattern and expression
// kinds, projections, limits and which triple positions are variables, but
// not the content of IRIs and literals. Two queries with the same shape
// differ only in the constants a template fills in.
func shape(v reflect.Value, b *strings.Builder, field string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil ")
			return
		}
		shape(v.Elem(), b, field)
	case reflect.Struct:
		t := v.Type()
		if t.PkgPath() != "github.com/tggo/goRDFlib/sparql" {
			b.WriteString(t.Name() + " ") // an RDF term: its kind only
			return
		}
		b.WriteString(t.Name() + "{")
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				shape(v.Field(i), b, t.Field(i).Name)
			}
		}
		b.WriteString("} ")
	case reflect.Slice, reflect.Array:
		if field == "Values" { // VALUES rows vary with the mediators found
			b.WriteString("values ")
			return
		}
		fmt.Fprintf(b, "[%d ", v.Len())
		for i := range v.Len() {
			shape(v.Index(i), b, field)
		}
		b.WriteString("] ")
	case reflect.Map:
		fmt.Fprintf(b, "map%d ", v.Len())
	case reflect.String:
		s := v.String()
		switch {
		case strings.HasPrefix(s, "?"):
			b.WriteString(s + " ") // variable names are part of the template
		case field == "Name" || field == "Op" || field == "Var":
			b.WriteString(s + " ")
		default:
			b.WriteString("const ")
		}
	case reflect.Int:
		if field == "Limit" && v.Int() >= 0 { // the caller picks the number, not whether there is one
			b.WriteString("limit ")
			return
		}
		fmt.Fprintf(b, "%d ", v.Int())
	default:
		fmt.Fprintf(b, "%v ", v.Interface())
	}
}

func shapeOf(t testing.TB, q string) string {
	t.Helper()
	pq, err := sparql.Parse(q)
	require.NoError(t, err, "built query must parse:\n%s", q)
	var b strings.Builder
	shape(reflect.ValueOf(pq), &b, "")
	return b.String()
}

type fuzzTarget struct {
	rec *recorder
	s   *store
	ok  map[string]bool // shapes the templates produce on benign input
}

// newFuzzTarget records the shapes of the queries a store on file sends
// for benign input; the Wikidata fixture has statements of every kind, so
// every statement template runs with rows to name.
func newFuzzTarget(t testing.TB, d Dialect, fullText bool) *fuzzTarget {
	file := map[string]string{"freebase": "testdata/fixture.nt", "wikidata": wikidataFixture}[d.Name()]
	e, err := embedded.Open(context.Background(), "", []string{file}, "", 0)
	require.NoError(t, err)
	rec := &recorder{Backend: e}
	// The embedded store answers bif:contains with nothing.
	g, err := New(d, rec, Options{NeighborLimit: 50, FullText: fullText})
	require.NoError(t, err)
	s := g.(*store)
	ft := &fuzzTarget{rec: rec, s: s, ok: map[string]bool{}}
	ctx := context.Background()
	ids := map[string][3]string{"freebase": {france, "location.location.adjoin_s", "France"}, "wikidata": {"Q9", "P39", "Mayor"}}[d.Name()]
	_, _ = s.Relations(ctx, ids[0])
	_, _ = s.Name(ctx, ids[0])
	_, _ = s.Search(ctx, "no such name", 5) // exact, then case-folded or full text
	_, _ = s.Neighbors(ctx, ids[0], kgqa.Relation{ID: ids[1], Dir: kgqa.Out}, 5)
	_, _ = s.Neighbors(ctx, ids[0], kgqa.Relation{ID: ids[1], Dir: kgqa.In}, 5)
	for _, dir := range []kgqa.Direction{kgqa.Out, kgqa.In} {
		_, _ = s.Count(ctx, ids[0], kgqa.Relation{ID: ids[1], Dir: dir})
		_, _ = s.Linked(ctx, ids[0], kgqa.Relation{ID: ids[1], Dir: dir}, []string{ids[0]})
	}
	if d.Name() == "wikidata" { // a statement-only value, in both directions
		_, _ = s.Neighbors(ctx, "Q1", kgqa.Relation{ID: "P69", Dir: kgqa.Out}, 5)
		_, _ = s.Neighbors(ctx, "Q30", kgqa.Relation{ID: "P69", Dir: kgqa.In}, 5)
	}
	for _, q := range rec.take() {
		ft.ok[shapeOf(t, q)] = true
	}
	// The mediator and names templates have one UNION branch per subject.
	var ms []string
	for i := range mediatorsPerCall {
		ms = append(ms, fmt.Sprintf(map[string]string{"freebase": "m.0cvt%03d", "wikidata": "Q9%03d"}[d.Name()], i))
		q, err := s.d.namesQuery(ms)
		require.NoError(t, err)
		ft.ok[shapeOf(t, q)] = true
		if d.Name() == "freebase" {
			q, err := s.d.mediatorQuery(france, ms)
			require.NoError(t, err)
			ft.ok[shapeOf(t, q)] = true
		}
	}
	return ft
}

func (ft *fuzzTarget) check(t *testing.T, id, rel, name string, limit int) {
	ctx := context.Background()
	_, _ = ft.s.Relations(ctx, id)
	_, _ = ft.s.Name(ctx, id)
	_, _ = ft.s.Search(ctx, name, limit)
	_, _ = ft.s.Neighbors(ctx, id, kgqa.Relation{ID: rel, Dir: kgqa.Out}, limit)
	_, _ = ft.s.Neighbors(ctx, id, kgqa.Relation{ID: rel, Dir: kgqa.In}, limit)
	for _, dir := range []kgqa.Direction{kgqa.Out, kgqa.In} {
		_, _ = ft.s.Count(ctx, id, kgqa.Relation{ID: rel, Dir: dir})
		_, _ = ft.s.Linked(ctx, id, kgqa.Relation{ID: rel, Dir: dir}, []string{id})
	}
	for _, q := range ft.rec.take() {
		if sh := shapeOf(t, q); !ft.ok[sh] {
			t.Fatalf("input changed the query's structure:\nid=%q rel=%q name=%q\n%s\nshape %s", id, rel, name, q, sh)
		}
		checkTextExpr(t, q, name)
	}
}

var (
	// textArgRE finds the free-text expression of a query; the shape check
	// has already shown that it is one single-quoted literal.
	textArgRE = regexp.MustCompile(`<bif:contains> '([^']*)'`)
	// textExprRE is the whole grammar textWords and textExpr may produce:
	// quoted words of letters, digits and marks with an optional trailing
	// wildcard, joined by AND; the loop below checks the lengths.
	textWordRE = `"[\pL\pNd][\pL\pNd\pM]*\*?"`
	textExprRE = regexp.MustCompile(`^` + textWordRE + `(?: AND ` + textWordRE + `){0,7}$`)
)

// checkTextExpr holds the free-text expression in q, if any, to the
// grammar: nothing else, however the name was written, can reach
// Virtuoso's free-text parser.
func checkTextExpr(t *testing.T, q, name string) {
	if !strings.Contains(q, "bif:contains") {
		return
	}
	m := textArgRE.FindAllStringSubmatch(q, -1)
	if len(m) != 1 || !textExprRE.MatchString(m[0][1]) {
		t.Fatalf("free-text expression outside the grammar:\nname=%q\n%s", name, q)
	}
	for _, w := range strings.Split(m[0][1], " AND ") {
		stem := strings.TrimSuffix(strings.Trim(w, `"`), "*")
		if n := utf8.RuneCountInString(stem); n < minTextWord || n > maxTextWord || (strings.HasSuffix(w, `*"`) && n < minWildcardStem) {
			t.Fatalf("free-text word %s breaks Virtuoso's limits (name=%q)", w, name)
		}
	}
}

func FuzzQueryBuilders(f *testing.F) {
	f.Add(france, "location.location.contains", "France", 5)
	f.Add("Q142", "P47", "Frankreich", 0)
	f.Add(`m.0f8l9c> ?p ?o } INSERT DATA { <a> <b> <c> } #`, `a.b.c> ?x`, `France" } UNION { ?e ?p ?o } #`, 3)
	f.Add("m.0f8l9c", "location.location.contains", `\" ) } ; DROP ALL #`, 1)
	f.Add("g.11b6", "base.x.y.z", `\u0022 } ?s ?p ?o {`, 7)
	f.Add("m.x", "a.b.c", "line\nbreak\" . ?s ?p ?o", -1)
	f.Add("m.x", "a.b.c", `''' """ \\\\" '`, 2)
	f.Add(france, "location.location.adjoin_s", "x", 10)
	f.Add(france, "a.b.c", `Fran* O'Hare "x" AND 'y' NEAR \z Côte`, 4)
	f.Add(france, "a.b.c", "Fra* e\u0301cole Ⅻ 東京 ab*cd", 4)
	// Wikidata statements: p:/ps:/pq: IRIs and the rank filter are built
	// from the relation id.
	f.Add("Q9", "P39", "Mayor", 0)
	f.Add("Q1", "P69", "Hill College", 5)
	f.Add("Q1", `P39> ?m . ?m ?r ?t } #`, `Alice"@en . ?m <http://wikiba.se/ontology#rank> ?k`, 2)
	f.Add(`Q1> <http://www.wikidata.org/prop/P39> ?m . FILTER NOT EXISTS { ?m ?r ?t } #`, "P27", "Freedonia", 1)
	f.Add("Q30", "P69 } UNION { ?s ?p ?o", `"statement-in"`, 3)
	targets := []*fuzzTarget{
		newFuzzTarget(f, Freebase(DialectOptions{}), false),
		newFuzzTarget(f, Wikidata(DialectOptions{Language: "fr"}), false),
		newFuzzTarget(f, Freebase(DialectOptions{}), true),
	}
	f.Fuzz(func(t *testing.T, id, rel, name string, limit int) {
		for _, ft := range targets {
			ft.check(t, id, rel, name, limit)
			checkBank(t, ft.s.d, id, rel, name, limit)
		}
	})
}

func TestLanguageTagCannotInject(t *testing.T) {
	for _, tag := range []string{`en") } INSERT {`, "en\n", "toolongtag-x", ""} {
		d := Freebase(DialectOptions{Language: tag}).(*dialect)
		require.Equal(t, "en", d.v.lang, tag)
	}
	require.Equal(t, "pt-br", Freebase(DialectOptions{Language: "pt-BR"}).(*dialect).v.lang)
}
