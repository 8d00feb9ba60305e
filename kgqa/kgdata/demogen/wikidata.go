package main

import (
	"fmt"
	"log"
	"os"
	"strings"
)

const (
	wd      = "http://www.wikidata.org/entity/"
	wdt     = "http://www.wikidata.org/prop/direct/"
	wdp     = "http://www.wikidata.org/prop/"
	wdps    = "http://www.wikidata.org/prop/statement/"
	wdpq    = "http://www.wikidata.org/prop/qualifier/"
	wds     = "http://www.wikidata.org/entity/statement/"
	rdfs    = "http://www.w3.org/2000/01/rdf-schema#label"
	schema  = "http://schema.org/description"
	rankIRI = "http://wikiba.se/ontology#rank"
	rankNS  = "http://wikiba.se/ontology#"
)

// wikidata builds the Wikidata-style graph: truthy wdt: edges, full p:/ps:/pq:
// statements, rdfs:label in English (and some German noise).
type wikidata struct {
	lines  []string
	ids    map[string]string // label -> Q id
	labels map[string]string // Q id -> label
	stmt   int
}

func newWikidata() *wikidata {
	return &wikidata{ids: map[string]string{}, labels: map[string]string{}}
}

func (w *wikidata) add(s, p, o string) { w.lines = append(w.lines, s+" "+p+" "+o+" .") }

// ref returns the Q id of a declared label.
func (w *wikidata) ref(label string) string {
	id, ok := w.ids[label]
	if !ok {
		log.Fatalf("gen: wikidata: undeclared %q", label)
	}
	return id
}

func (w *wikidata) item(id, label, desc string) {
	if w.labels[id] != "" || w.ids[label] != "" {
		log.Fatalf("gen: wikidata: duplicate %s %q", id, label)
	}
	w.ids[label], w.labels[id] = id, label
	w.add("<"+wd+id+">", "<"+rdfs+">", quote(label)+"@en")
	if desc != "" {
		w.add("<"+wd+id+">", "<"+schema+">", quote(desc)+"@en")
	}
}

// claim adds a truthy edge and its statement node; value is an object term
// in N-Triples form. Qualifiers are (P id, term) pairs.
func (w *wikidata) claim(s, prop, value string, truthy bool, quals ...string) {
	subj := "<" + wd + w.ref(s) + ">"
	if truthy {
		w.add(subj, "<"+wdt+prop+">", value)
	}
	w.stmt++
	st := fmt.Sprintf("<%s%s-%04d>", wds, w.ref(s), w.stmt)
	w.add(subj, "<"+wdp+prop+">", st)
	w.add(st, "<"+wdps+prop+">", value)
	rank := "NormalRank"
	if truthy {
		rank = "PreferredRank"
	}
	w.add(st, "<"+rankIRI+">", "<"+rankNS+rank+">")
	for i := 0; i+1 < len(quals); i += 2 {
		w.add(st, "<"+wdpq+quals[i]+">", quals[i+1])
	}
}

func (w *wikidata) item2(label string) string { return "<" + wd + w.ref(label) + ">" }

func (w *wikidata) write(path string) {
	if err := os.WriteFile(path, []byte(strings.Join(w.lines, "\n")+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
}

// wdItems: well-known Q ids are real; airport and small-town ids beyond
// those are invented but well formed.
var wdItems = []struct{ id, label, desc string }{
	{"Q6256", "country", "distinct territorial body or political entity"},
	{"Q515", "city", "large permanent human settlement"},
	{"Q1248784", "airport", "facility where aircraft take off and land"},
	{"Q46", "Europe", "continent"},
	{"Q18", "South America", "continent"},
	{"Q4916", "euro", "currency of the eurozone"},
	{"Q25344", "Swiss franc", "currency of Switzerland and Liechtenstein"},
	{"Q142", "France", "country in Western Europe"},
	{"Q183", "Germany", "country in Central Europe"},
	{"Q31", "Belgium", "country in Western Europe"},
	{"Q32", "Luxembourg", "country in Western Europe"},
	{"Q39", "Switzerland", "country in Central Europe"},
	{"Q38", "Italy", "country in Southern Europe"},
	{"Q29", "Spain", "country in Southwestern Europe"},
	{"Q228", "Andorra", "country in Southwestern Europe"},
	{"Q235", "Monaco", "city-state on the French Riviera"},
	{"Q155", "Brazil", "country in South America"},
	{"Q730", "Suriname", "country in South America"},
	{"Q55", "Netherlands", "country in Western Europe"},
	{"Q40", "Austria", "country in Central Europe"},
	{"Q347", "Liechtenstein", "country in Central Europe"},
	{"Q90", "Paris", "capital of France"},
	{"Q64", "Berlin", "capital of Germany"},
	{"Q239", "Brussels", "capital of Belgium"},
	{"Q727", "Amsterdam", "capital of the Netherlands"},
	{"Q70", "Bern", "federal city of Switzerland"},
	{"Q1741", "Vienna", "capital of Austria"},
	{"Q1844", "Vaduz", "capital of Liechtenstein"},
	{"Q47887", "Nijmegen", "city in Gelderland, the Netherlands"},
	{"Q9832", "Eindhoven", "city in North Brabant, the Netherlands"},
	{"Q14828", "Weeze", "municipality in North Rhine-Westphalia, Germany"},
	{"Q1990", "Düsseldorf", "capital of North Rhine-Westphalia"},
	{"Q9694", "Amsterdam Airport Schiphol", "main international airport of the Netherlands"},
	{"Q1162040", "Eindhoven Airport", "airport in the Netherlands"},
	{"Q470467", "Weeze Airport", "airport in Germany near the Dutch border"},
	{"Q58226", "Düsseldorf Airport", "international airport of Düsseldorf"},
	{"Q46475", "Charles de Gaulle Airport", "main airport of Paris"},
	{"Q27706", "Brussels Airport", "airport serving Brussels"},
}

func buildWikidata(w *wikidata) {
	for _, it := range wdItems {
		w.item(it.id, it.label, it.desc)
	}
	w.add(w.item2("France"), "<http://www.w3.org/2000/01/rdf-schema#label>", `"Frankreich"@de`)
	w.add(w.item2("Germany"), "<http://www.w3.org/2000/01/rdf-schema#label>", `"Deutschland"@de`)
	type cty struct {
		name, continent, capital, currency string
		pop2010, pop2019                   int64
	}
	cs := []cty{
		{"France", "Europe", "Paris", "euro", 65027507, 67059887},
		{"Germany", "Europe", "Berlin", "euro", 81776930, 83132799},
		{"Belgium", "Europe", "Brussels", "euro", 10895586, 11484055},
		{"Luxembourg", "Europe", "", "euro", 506953, 619896},
		{"Switzerland", "Europe", "Bern", "Swiss franc", 7824909, 8574832},
		{"Italy", "Europe", "", "euro", 59277417, 60297396},
		{"Spain", "Europe", "", "euro", 46576897, 47076781},
		{"Andorra", "Europe", "", "euro", 84449, 77142},
		{"Monaco", "Europe", "", "euro", 35612, 38964},
		{"Brazil", "South America", "", "", 195713635, 211049527},
		{"Suriname", "South America", "", "", 528535, 581372},
		{"Netherlands", "Europe", "Amsterdam", "euro", 16615394, 17332850},
		{"Austria", "Europe", "Vienna", "euro", 8363404, 8877067},
		{"Liechtenstein", "Europe", "Vaduz", "Swiss franc", 35926, 38019},
	}
	q := func(label string) string { return w.item2(label) }
	dec := func(n int64) string { return fmt.Sprintf(`"%d"^^<%sdecimal>`, n, xsd) }
	when := func(y int) string { return fmt.Sprintf(`"%d-01-01T00:00:00Z"^^<%sdateTime>`, y, xsd) }
	for _, c := range cs {
		w.claim(c.name, "P31", q("country"), true)
		w.claim(c.name, "P30", q(c.continent), true)
		if c.capital != "" {
			w.claim(c.name, "P36", q(c.capital), true)
			w.claim(c.capital, "P1376", q(c.name), true)
			w.claim(c.capital, "P31", q("city"), true)
			w.claim(c.capital, "P17", q(c.name), true)
		}
		if c.currency != "" {
			w.claim(c.name, "P38", q(c.currency), true)
		}
		w.claim(c.name, "P1082", dec(c.pop2010), false, "P585", when(2010))
		w.claim(c.name, "P1082", dec(c.pop2019), true, "P585", when(2019))
	}
	for _, pair := range []string{
		"France|Andorra", "France|Belgium", "France|Brazil", "France|Germany", "France|Italy",
		"France|Luxembourg", "France|Monaco", "France|Spain", "France|Suriname", "France|Switzerland",
		"Germany|Austria", "Germany|Belgium", "Germany|Luxembourg", "Germany|Netherlands", "Germany|Switzerland",
		"Belgium|Luxembourg", "Belgium|Netherlands", "Switzerland|Austria", "Switzerland|Italy",
		"Switzerland|Liechtenstein", "Italy|Austria", "Spain|Andorra", "Brazil|Suriname", "Austria|Liechtenstein",
	} {
		a, b, _ := strings.Cut(pair, "|")
		w.claim(a, "P47", q(b), true)
		w.claim(b, "P47", q(a), true)
	}
	for _, c := range []struct{ city, country string }{
		{"Nijmegen", "Netherlands"}, {"Eindhoven", "Netherlands"}, {"Weeze", "Germany"}, {"Düsseldorf", "Germany"},
	} {
		w.claim(c.city, "P31", q("city"), true)
		w.claim(c.city, "P17", q(c.country), true)
	}
	for _, a := range []struct {
		name, iata, country string
		serves              []string
	}{
		{"Amsterdam Airport Schiphol", "AMS", "Netherlands", []string{"Amsterdam", "Nijmegen"}},
		{"Eindhoven Airport", "EIN", "Netherlands", []string{"Eindhoven", "Nijmegen"}},
		{"Weeze Airport", "NRN", "Germany", []string{"Weeze", "Nijmegen"}},
		{"Düsseldorf Airport", "DUS", "Germany", []string{"Düsseldorf"}},
		{"Charles de Gaulle Airport", "CDG", "France", []string{"Paris"}},
		{"Brussels Airport", "BRU", "Belgium", []string{"Brussels"}},
	} {
		w.claim(a.name, "P31", q("airport"), true)
		w.claim(a.name, "P17", q(a.country), true)
		w.claim(a.name, "P238", quote(a.iata), true)
		for _, s := range a.serves {
			w.claim(a.name, "P931", q(s), true)
		}
	}
}
