package compile_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
	"github.com/parog/parog-go/kgqa/kg"
)

// FuzzCompile puts fuzzed text in every identifier and constant of an
// executed plan, in both dialects and under every operation, and checks
// that a query the compiler writes holds nothing but its own keywords,
// punctuation and variables, identifiers that fit the dialect's grammar,
// and constants re-printed from their parsed values.
func FuzzCompile(f *testing.F) {
	f.Add("m.0f8l9c", "location.location.contains", "people.person", "1990", ">", "max", "out")
	f.Add("Q142", "P47", "people.person", "2019-06", "<=", "min", "in")
	f.Add("m.0f8l9c> } SERVICE <http://x> {", "a.b.c\" . ?s ?p ?o", "t.t }", "1990\") || true || (\"", "> 0) #", "max) }", "out")
	f.Add("m.0f8l9c\n", "location.location.contains ?x", "x.y", "1e400", "=", "", "sideways")
	f.Fuzz(func(t *testing.T, ent, rel, typ, val, cmp, order, dir string) {
		for _, d := range []kg.Dialect{kg.Freebase(kg.DialectOptions{}), kg.Wikidata(kg.DialectOptions{})} {
			for _, q := range fuzzQueries(ent, rel, typ, val, cmp, order, kgqa.Direction(dir)) {
				out, err := compile.Compile(q, d)
				if err != nil {
					continue // refused: nothing reaches a KG
				}
				checkQuery(t, d, out)
			}
		}
	})
}

func fuzzQueries(ent, rel, typ, val, cmp, order string, dir kgqa.Direction) []*compile.Query {
	hop := compile.Hop{Relation: rel, Dir: dir}
	med := compile.Hop{Relation: rel, Dir: dir, Mediator: true}
	base := compile.Node{ID: "s1", Op: kgqa.OpFind, Anchors: []string{ent, ent}, Paths: []compile.Path{{hop}, {med, hop}},
		Qualifiers: []compile.Qualifier{{Relation: rel, Entity: ent}}, Types: []string{typ}}
	one := compile.Node{ID: "s0", Op: kgqa.OpFind, Anchors: []string{ent}, Paths: []compile.Path{{med, {Any: true, Dir: dir}}}}
	given := compile.Node{ID: "s2", Op: kgqa.OpFind, Given: []string{ent}}
	attr := []compile.Path{{hop}, {med, hop}}
	var qs []*compile.Query
	for _, kind := range []compile.ValueKind{compile.KindNumber, compile.KindDate, compile.KindNative} {
		last := []compile.Node{
			{ID: "s3", Op: kgqa.OpIntersect, Needs: []string{"s1", "s2"}},
			{ID: "s3", Op: kgqa.OpUnion, Needs: []string{"s0", "s2"}},
			{ID: "s3", Op: kgqa.OpCount, Needs: []string{"s1"}},
			{ID: "s3", Op: kgqa.OpCompare, Needs: []string{"s1"}, Attribute: attr, Kind: kind, Cmp: cmp, Value: val},
			{ID: "s3", Op: kgqa.OpCompare, Needs: []string{"s1", "s2"}, Bound: "s2", Attribute: attr, Kind: kind, Cmp: cmp},
			{ID: "s3", Op: kgqa.OpFilter, Needs: []string{"s1"}, Attribute: attr, Value: ent},
			{ID: "s3", Op: kgqa.OpSuperlative, Needs: []string{"s1"}, Attribute: attr, Kind: kind, Order: order},
			{ID: "s3", Op: kgqa.OpSuperlative, Needs: []string{"s1"}, Attribute: []compile.Path{{med, hop}}, Kind: kind, Order: order,
				Dated: &compile.Dated{DateRelation: rel, Times: []string{val}}},
			{ID: "s3", Op: kgqa.OpCompare, Needs: []string{"s1"}, Attribute: []compile.Path{{med, hop}}, Kind: kind, Cmp: cmp, Value: val,
				Dated: &compile.Dated{DateRelation: rel}},
			{ID: "s3", Op: kgqa.Op(order), Needs: []string{"s1"}},
		}
		for _, n := range last {
			qs = append(qs, &compile.Query{Nodes: []compile.Node{base, one, given, n}, Answer: "s3"})
		}
	}
	return qs
}

var (
	keywords = map[string]bool{}
	variable = regexp.MustCompile(`^\?[a-z]+[0-9]*$`)
	// constants the compiler writes itself, and the shapes of re-printed
	// dates and numbers.
	ownString = regexp.MustCompile(`^"(-01-01|[0-9]{4}(-[0-9]{2}){0,2}|[-+]?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?|[-+]?Inf|NaN|\^\[0-9\]\{4\}\(-\[0-9\]\{2\}\)\{0,2\}\(\[T \]\.\*\)\?Z\?\$)"(\^\^xsd:(double|date))?$`)
	prefixed  = regexp.MustCompile(`^(ns|wd|wdt|p|ps|pq):(.+)$`)
	typeID    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}(\.[a-z0-9_]{1,64}){1,3}$`)
)

func init() {
	for _, w := range strings.Fields(`PREFIX SELECT DISTINCT WHERE { } ( ) . , UNION VALUES FILTER NOT EXISTS AS
		COUNT MAX MIN SUBSTR CONCAT STR STRSTARTS REGEX xsd:double 1 10 != = < <= > >= || wikibase:rank wikibase:DeprecatedRank
		ns: xsd: wd: wdt: p: ps: pq: wikibase: ns:type.object.type`) {
		keywords[w] = true
	}
}

// tokens splits a compiled query at spaces and punctuation, keeping
// string literals and IRIs whole.
func tokens(q string) []string {
	var out []string
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\n':
			i++
		case c == '"':
			j := strings.IndexByte(q[i+1:], '"')
			if j < 0 {
				return append(out, q[i:])
			}
			end := i + 1 + j + 1
			for end < len(q) && strings.IndexByte(" \n),", q[end]) < 0 {
				end++
			}
			out = append(out, q[i:end])
			i = end
		case c == '<' && i+1 < len(q) && q[i+1] != '=' && q[i+1] != ' ':
			j := strings.IndexByte(q[i:], '>')
			if j < 0 {
				return append(out, q[i:])
			}
			out = append(out, q[i:i+j+1])
			i += j + 1
		case strings.IndexByte("{}(),", c) >= 0:
			out = append(out, string(c))
			i++
		default:
			j := i
			for j < len(q) && strings.IndexByte(" \n{}(),\"", q[j]) < 0 {
				j++
			}
			out = append(out, q[i:j])
			i = j
		}
	}
	return out
}

func checkQuery(t *testing.T, d kg.Dialect, q string) {
	t.Helper()
	for _, tok := range tokens(q) {
		if keywords[tok] || variable.MatchString(tok) || ownString.MatchString(tok) {
			continue
		}
		if m := prefixed.FindStringSubmatch(tok); m != nil {
			if d.ValidEntity(m[2]) || d.ValidRelation(m[2]) || (m[1] == "ns" && typeID.MatchString(m[2])) {
				continue
			}
		}
		if iri, ok := strings.CutPrefix(tok, "<"); ok {
			iri = strings.TrimSuffix(iri, ">")
			id := strings.TrimPrefix(strings.TrimPrefix(iri, "http://rdf.freebase.com/ns/"), "http://www.wikidata.org/entity/")
			if id != iri && d.ValidEntity(id) {
				continue
			}
			if iri == "http://rdf.freebase.com/ns/" || iri == "http://www.w3.org/2001/XMLSchema#" || strings.HasPrefix(iri, "http://www.wikidata.org/") || iri == "http://wikiba.se/ontology#" {
				continue
			}
		}
		t.Fatalf("token %q is not the compiler's own, nor a valid identifier or constant:\n%s", tok, q)
	}
}

// The benign seeds compile under every operation (so the fuzz target
// checks queries, not refusals), and the checker refuses a query with a
// token of its own.
func TestFuzzSeedsCompile(t *testing.T) {
	compiled := 0
	for _, q := range fuzzQueries("m.0f8l9c", "location.location.contains", "people.person", "1990", ">", "max", kgqa.Out) {
		out, err := compile.Compile(q, kg.Freebase(kg.DialectOptions{}))
		if err == nil {
			checkQuery(t, kg.Freebase(kg.DialectOptions{}), out)
			compiled++
		}
	}
	if compiled != 27 {
		t.Fatalf("%d of the 30 benign queries compiled, want 27 (the unknown op refused in each kind)", compiled)
	}
	var inner testing.T
	done := make(chan bool)
	go func() {
		defer close(done)
		checkQuery(&inner, kg.Freebase(kg.DialectOptions{}), "SELECT ?x WHERE { SERVICE <http://x> { ?x ?p ?o } }")
	}()
	<-done
	if !inner.Failed() {
		t.Fatal("the checker let SERVICE through")
	}
}
