package kg

import (
	"fmt"
	"testing"

	"github.com/parog/parog-go/kgqa"
)

// BenchmarkQueryRendering renders one query of every template per
// iteration, with the names and mediator queries at a full chunk of
// mediatorsPerCall subjects:
//
//	go test -run '^$' -bench QueryRendering -benchmem ./kgqa/kg/
func BenchmarkQueryRendering(b *testing.B) {
	fb := Freebase(DialectOptions{}).(*dialect)
	wd := Wikidata(DialectOptions{}).(*dialect)
	ms := make([]string, mediatorsPerCall)
	for i := range ms {
		ms[i] = fmt.Sprintf("m.0cvt%03d", i)
	}
	rel := kgqa.Relation{ID: "location.location.contains", Dir: kgqa.Out}
	builds := []func() (string, error){
		func() (string, error) { return fb.relationsDirQuery(france, kgqa.Out) },
		func() (string, error) { return wd.relationsQuery("Q142") },
		func() (string, error) { return fb.neighborsQuery(france, rel, 100) },
		func() (string, error) { return fb.namesQuery(ms) },
		func() (string, error) { return fb.mediatorQuery(france, ms) },
		func() (string, error) {
			return wd.qualifierQuery("Q142", kgqa.Relation{ID: "P39", Dir: kgqa.Out}, maxExpansionRows)
		},
		func() (string, error) {
			return wd.qualifierQuery("Q142", kgqa.Relation{ID: "P39", Dir: kgqa.In}, maxExpansionRows)
		},
		func() (string, error) { return fb.nameQuery(france) },
		func() (string, error) { return fb.searchExactQuery(`O'Hare "Intl" Airport`, 10) },
		func() (string, error) { return fb.searchFoldQuery(`O'Hare "Intl" Airport`, 10) },
		func() (string, error) { return fb.searchTextQuery(`O'Hare "Intl" Airport`, 10) },
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, build := range builds {
			if _, err := build(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
