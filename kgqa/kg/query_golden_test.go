package kg

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func oneSpaced(q string) string { return strings.Join(strings.Fields(q), " ") }

func TestBankMatchesBuilders(t *testing.T) {
	dialects := []Dialect{
		Freebase(DialectOptions{}), Freebase(DialectOptions{Language: "pt-BR"}),
		Wikidata(DialectOptions{}), Wikidata(DialectOptions{Language: "fr"}),
	}
	ids := map[string][]string{"freebase": {france, "g.11b6x_1"}, "wikidata": {"Q142", "Q1"}}
	rels := map[string][]string{"freebase": {"location.location.contains", "base.a.b.c"}, "wikidata": {"P39", "P1082"}}
	names := []string{"France", `O'Hare "Intl"`, "New  York", `Côte d'Azur`, `back\slash`, "Fran* ville", "東京"}
	n := 0
	same := func(old string, oldErr error, q string, err error) {
		t.Helper()
		require.Equal(t, oldErr, err)
		require.Equal(t, oneSpaced(old), oneSpaced(q))
		n++
	}
	for _, di := range dialects {
		d := di.(*dialect)
		v := d.v
		for _, id := range ids[d.Name()] {
			q, err := d.relationsQuery(id)
			if d.v.expansion == expandQualifier {
				same(wikidataRelationsQuery(v, id), nil, q, err)
			} else {
				same(relationsQuery(v, id), nil, q, err)
			}
			q, err = d.nameQuery(id)
			same(nameQuery(v, id), nil, q, err)
			for _, r := range rels[d.Name()] {
				for _, dir := range []Direction{Out, In} {
					rel := Relation{ID: r, Dir: dir}
					for _, limit := range []int{1, 5, 200} {
						q, err := d.neighborsQuery(id, rel, limit)
						same(neighborsQuery(v, id, rel, limit), nil, q, err)
					}
					if d.v.expansion == expandQualifier {
						q, err := d.qualifierQuery(id, rel, maxExpansionRows)
						old := qualifierQuery(v, id, rel, maxExpansionRows)
						if dir == In {
							old = incomingQualifierQuery(v, id, rel, maxExpansionRows)
						}
						same(old, nil, q, err)
					}
				}
			}
		}
		for _, k := range []int{1, 3, mediatorsPerCall} {
			var ms []string
			for i := range k {
				ms = append(ms, fmt.Sprintf(map[string]string{"freebase": "m.0cvt%03d", "wikidata": "Q9%03d"}[d.Name()], i))
			}
			q, err := d.namesQuery(ms)
			same(namesQuery(v, ms), nil, q, err)
			q, err = d.mediatorQuery(ids[d.Name()][0], ms)
			same(mediatorQuery(v, ids[d.Name()][0], ms), nil, q, err)
		}
		for _, name := range names {
			for _, limit := range []int{1, 10} {
				old, oldErr := searchExactQuery(v, name, limit)
				q, err := d.searchExactQuery(name, limit)
				same(old, oldErr, q, err)
				old, oldErr = searchFoldQuery(v, name, limit)
				q, err = d.searchFoldQuery(name, limit)
				same(old, oldErr, q, err)
				old, oldErr = searchTextQuery(v, name, limit)
				q, err = d.searchTextQuery(name, limit)
				same(old, oldErr, q, err)
			}
		}
	}
	t.Logf("%d queries compared", n)
}
