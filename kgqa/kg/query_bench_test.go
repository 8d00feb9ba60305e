package kg

import (
	"fmt"
	"testing"
)

// BenchmarkQueryRendering renders one query of every template per
// iteration, with the names and mediator queries at a full chunk of
// mediatorsPerCall subjects:
//
//	go test -run '^$' -bench QueryRendering -benchmem ./kgqa/kg/
func BenchmarkQueryRendering(b *testing.B) {
	fb := Freebase(DialectOptions{}).(*dialect).v
	wd := Wikidata(DialectOptions{}).(*dialect).v
	ms := make([]string, mediatorsPerCall)
	for i := range ms {
		ms[i] = fmt.Sprintf("m.0cvt%03d", i)
	}
	rel := Relation{ID: "location.location.contains", Dir: Out}
	b.ReportAllocs()
	for b.Loop() {
		_ = relationsQuery(fb, france)
		_ = wikidataRelationsQuery(wd, "Q142")
		_ = neighborsQuery(fb, france, rel, 100)
		_ = namesQuery(fb, ms)
		_ = mediatorQuery(fb, france, ms)
		_ = qualifierQuery(wd, "Q142", Relation{ID: "P39", Dir: Out}, maxExpansionRows)
		_ = incomingQualifierQuery(wd, "Q142", Relation{ID: "P39", Dir: In}, maxExpansionRows)
		_ = nameQuery(fb, france)
		for _, f := range []func(vocab, string, int) (string, error){searchExactQuery, searchFoldQuery, searchTextQuery} {
			if _, err := f(fb, `O'Hare "Intl" Airport`, 10); err != nil {
				b.Fatal(err)
			}
		}
	}
}
