package main

import (
	"fmt"
	"strings"
)

type country struct {
	name      string
	continent string
	capital   string
	currency  string
	langs     []string
	pop2019   int64 // 0: unknown
	pop2010   int64 // 0: unknown
}

// countries: populations are rounded World Bank mid-year figures.
var countries = []country{
	{"France", "Europe", "Paris", "Euro", []string{"French"}, 67059887, 65027507},
	{"Germany", "Europe", "Berlin", "Euro", []string{"German"}, 83132799, 81776930},
	{"Belgium", "Europe", "Brussels", "Euro", []string{"Dutch", "French", "German"}, 11484055, 10895586},
	{"Netherlands", "Europe", "Amsterdam", "Euro", []string{"Dutch"}, 17332850, 16615394},
	{"Luxembourg", "Europe", "Luxembourg City", "Euro", []string{"Luxembourgish", "French", "German"}, 619896, 506953},
	{"Switzerland", "Europe", "Bern", "Swiss franc", []string{"German", "French", "Italian", "Romansh"}, 8574832, 7824909},
	{"Italy", "Europe", "Rome", "Euro", []string{"Italian"}, 60297396, 59277417},
	{"Spain", "Europe", "Madrid", "Euro", []string{"Spanish"}, 47076781, 46576897},
	{"Portugal", "Europe", "Lisbon", "Euro", []string{"Portuguese"}, 10269417, 10573100},
	{"Andorra", "Europe", "Andorra la Vella", "Euro", []string{"Catalan"}, 77142, 84449},
	{"Monaco", "Europe", "", "Euro", []string{"French"}, 38964, 35612},
	{"Austria", "Europe", "Vienna", "Euro", []string{"German"}, 8877067, 8363404},
	{"Czech Republic", "Europe", "Prague", "Czech koruna", []string{"Czech"}, 10669709, 10474410},
	{"Poland", "Europe", "Warsaw", "Polish złoty", []string{"Polish"}, 37970874, 38042794},
	{"Denmark", "Europe", "Copenhagen", "Danish krone", []string{"Danish"}, 5818553, 5547683},
	{"Liechtenstein", "Europe", "Vaduz", "Swiss franc", []string{"German"}, 38019, 35926},
	{"Slovakia", "Europe", "Bratislava", "Euro", []string{"Slovak"}, 5454073, 5391428},
	{"Hungary", "Europe", "Budapest", "Hungarian forint", []string{"Hungarian"}, 9769949, 10000023},
	{"Slovenia", "Europe", "Ljubljana", "Euro", []string{"Slovene"}, 2087946, 2048583},
	{"Croatia", "Europe", "Zagreb", "Euro", []string{"Croatian"}, 4067500, 4417781},
	{"San Marino", "Europe", "City of San Marino", "Euro", []string{"Italian"}, 33860, 31608},
	{"Vatican City", "Europe", "", "Euro", []string{"Italian", "Latin"}, 0, 0},
	{"United Kingdom", "Europe", "London", "Pound sterling", []string{"English"}, 66834405, 62766365},
	{"Ireland", "Europe", "Dublin", "Euro", []string{"English", "Irish"}, 4941444, 4560155},
	{"Lithuania", "Europe", "Vilnius", "Euro", []string{"Lithuanian"}, 2786844, 3097282},
	{"Belarus", "Europe", "Minsk", "Belarusian ruble", []string{"Belarusian", "Russian"}, 9419758, 9490583},
	{"Ukraine", "Europe", "Kyiv", "Ukrainian hryvnia", []string{"Ukrainian"}, 44385155, 45870741},
	{"Russia", "Europe", "Moscow", "Russian ruble", []string{"Russian"}, 144406261, 142849449},
	{"Serbia", "Europe", "Belgrade", "Serbian dinar", []string{"Serbian"}, 6944975, 7291436},
	{"Romania", "Europe", "Bucharest", "Romanian leu", []string{"Romanian"}, 19356544, 20246871},
	{"Bulgaria", "Europe", "Sofia", "Bulgarian lev", []string{"Bulgarian"}, 6975761, 7395599},
	{"Moldova", "Europe", "Chișinău", "Moldovan leu", []string{"Romanian"}, 2657637, 2882235},
	{"Brazil", "South America", "Brasília", "Brazilian real", []string{"Portuguese"}, 211049527, 195713635},
	{"Suriname", "South America", "Paramaribo", "Surinamese dollar", []string{"Dutch"}, 581372, 528535},
	{"Guyana", "South America", "Georgetown", "Guyanese dollar", []string{"English"}, 782766, 747932},
	{"Venezuela", "South America", "Caracas", "Venezuelan bolívar", []string{"Spanish"}, 28515829, 28439940},
	{"Colombia", "South America", "Bogotá", "Colombian peso", []string{"Spanish"}, 50339443, 45222700},
	{"Argentina", "South America", "Buenos Aires", "Argentine peso", []string{"Spanish"}, 44938712, 40788453},
	{"United States", "North America", "Washington, D.C.", "United States dollar", []string{"English"}, 328239523, 309321666},
	{"Canada", "North America", "Ottawa", "Canadian dollar", []string{"English", "French"}, 37589262, 34005274},
	{"Mexico", "North America", "Mexico City", "Mexican peso", []string{"Spanish"}, 127575529, 114092963},
}

// borders lists each land border once; the graph holds it both ways, each
// direction through its own location.adjoining_relationship mediator, as
// Freebase does. France's include Brazil and Suriname (French Guiana).
var borders = []string{
	"France|Andorra", "France|Belgium", "France|Brazil", "France|Germany", "France|Italy",
	"France|Luxembourg", "France|Monaco", "France|Spain", "France|Suriname", "France|Switzerland",
	"Germany|Austria", "Germany|Belgium", "Germany|Czech Republic", "Germany|Denmark",
	"Germany|Luxembourg", "Germany|Netherlands", "Germany|Poland", "Germany|Switzerland",
	"Belgium|Luxembourg", "Belgium|Netherlands",
	"Switzerland|Austria", "Switzerland|Italy", "Switzerland|Liechtenstein",
	"Italy|Austria", "Italy|San Marino", "Italy|Slovenia", "Italy|Vatican City",
	"Spain|Andorra", "Spain|Portugal",
	"Austria|Czech Republic", "Austria|Hungary", "Austria|Liechtenstein", "Austria|Slovakia", "Austria|Slovenia",
	"Czech Republic|Poland", "Czech Republic|Slovakia",
	"Poland|Slovakia", "Poland|Ukraine", "Poland|Belarus", "Poland|Lithuania", "Poland|Russia",
	"Slovakia|Hungary", "Slovakia|Ukraine",
	"Hungary|Croatia", "Hungary|Romania", "Hungary|Serbia", "Hungary|Slovenia", "Hungary|Ukraine",
	"Slovenia|Croatia", "Croatia|Serbia", "Serbia|Romania", "Serbia|Bulgaria", "Romania|Bulgaria",
	"Romania|Moldova", "Romania|Ukraine", "Moldova|Ukraine", "Ukraine|Belarus", "Ukraine|Russia",
	"Belarus|Lithuania", "Belarus|Russia", "Lithuania|Russia",
	"United Kingdom|Ireland",
	"Brazil|Suriname", "Brazil|Guyana", "Brazil|Venezuela", "Brazil|Colombia", "Brazil|Argentina",
	"Suriname|Guyana", "Guyana|Venezuela", "Venezuela|Colombia",
	"United States|Canada", "United States|Mexico",
}

type region struct{ name, country, capital, typ string }

var regions = []region{
	{"North Rhine-Westphalia", "Germany", "Düsseldorf", "location.de_state"},
	{"Bavaria", "Germany", "Munich", "location.de_state"},
	{"Hesse", "Germany", "Wiesbaden", "location.de_state"},
	{"Baden-Württemberg", "Germany", "Stuttgart", "location.de_state"},
	{"Gelderland", "Netherlands", "Arnhem", "location.nl_province"},
	{"North Brabant", "Netherlands", "'s-Hertogenbosch", "location.nl_province"},
	{"South Holland", "Netherlands", "The Hague", "location.nl_province"},
	{"Île-de-France", "France", "Paris", "location.fr_region"},
	{"Grand Est", "France", "Strasbourg", "location.fr_region"},
	{"Canton of Zurich", "Switzerland", "Zurich", "location.ch_canton"},
	{"California", "United States", "Sacramento", "location.us_state"},
	{"New York", "United States", "Albany", "location.us_state"},
	{"Massachusetts", "United States", "Boston", "location.us_state"},
}

type city struct{ name, country, region string }

var cities = []city{
	{"Paris", "France", "Île-de-France"}, {"Lyon", "France", ""}, {"Marseille", "France", ""},
	{"Nice", "France", ""}, {"Toulouse", "France", ""}, {"Roanne", "France", ""}, {"Nantes", "France", ""},
	{"Strasbourg", "France", "Grand Est"}, {"Mulhouse", "France", "Grand Est"}, {"Beaumont", "France", ""},
	{"Berlin", "Germany", ""}, {"Düsseldorf", "Germany", "North Rhine-Westphalia"},
	{"Cologne", "Germany", "North Rhine-Westphalia"}, {"Weeze", "Germany", "North Rhine-Westphalia"},
	{"Munich", "Germany", "Bavaria"}, {"Frankfurt", "Germany", "Hesse"}, {"Wiesbaden", "Germany", "Hesse"},
	{"Stuttgart", "Germany", "Baden-Württemberg"}, {"Freiburg im Breisgau", "Germany", "Baden-Württemberg"},
	{"Hamburg", "Germany", ""},
	{"Amsterdam", "Netherlands", ""}, {"Nijmegen", "Netherlands", "Gelderland"}, {"Arnhem", "Netherlands", "Gelderland"},
	{"Eindhoven", "Netherlands", "North Brabant"}, {"'s-Hertogenbosch", "Netherlands", "North Brabant"},
	{"Rotterdam", "Netherlands", "South Holland"}, {"The Hague", "Netherlands", "South Holland"},
	{"Maastricht", "Netherlands", ""},
	{"Brussels", "Belgium", ""}, {"Charleroi", "Belgium", ""}, {"Antwerp", "Belgium", ""},
	{"Luxembourg City", "Luxembourg", ""},
	{"Bern", "Switzerland", ""}, {"Zurich", "Switzerland", "Canton of Zurich"}, {"Geneva", "Switzerland", ""},
	{"Basel", "Switzerland", ""}, {"Zermatt", "Switzerland", ""},
	{"Rome", "Italy", ""}, {"Milan", "Italy", ""}, {"Turin", "Italy", ""},
	{"Madrid", "Spain", ""}, {"Barcelona", "Spain", ""}, {"Lisbon", "Portugal", ""},
	{"Andorra la Vella", "Andorra", ""}, {"Vienna", "Austria", ""}, {"Prague", "Czech Republic", ""},
	{"Warsaw", "Poland", ""}, {"Copenhagen", "Denmark", ""}, {"Vaduz", "Liechtenstein", ""},
	{"Bratislava", "Slovakia", ""}, {"Budapest", "Hungary", ""}, {"Ljubljana", "Slovenia", ""},
	{"Zagreb", "Croatia", ""}, {"City of San Marino", "San Marino", ""}, {"London", "United Kingdom", ""},
	{"Dublin", "Ireland", ""}, {"Vilnius", "Lithuania", ""}, {"Minsk", "Belarus", ""}, {"Kyiv", "Ukraine", ""},
	{"Moscow", "Russia", ""}, {"Belgrade", "Serbia", ""}, {"Bucharest", "Romania", ""}, {"Sofia", "Bulgaria", ""},
	{"Chișinău", "Moldova", ""}, {"Brasília", "Brazil", ""}, {"São Paulo", "Brazil", ""},
	{"Paramaribo", "Suriname", ""}, {"Georgetown", "Guyana", ""}, {"Caracas", "Venezuela", ""},
	{"Bogotá", "Colombia", ""}, {"Buenos Aires", "Argentina", ""},
	{"Washington, D.C.", "United States", ""}, {"San Francisco", "United States", "California"},
	{"Los Angeles", "United States", "California"}, {"Anaheim", "United States", "California"},
	{"San Diego", "United States", "California"}, {"Oakland", "United States", "California"},
	{"Sacramento", "United States", "California"}, {"New York City", "United States", "New York"},
	{"Albany", "United States", "New York"}, {"Boston", "United States", "Massachusetts"},
	{"Chicago", "United States", ""}, {"St. Louis", "United States", ""}, {"Houston", "United States", ""},
	{"Kansas City", "United States", ""}, {"Philadelphia", "United States", ""}, {"Atlanta", "United States", ""},
	{"Arlington", "United States", ""}, {"Detroit", "United States", ""}, {"St. Petersburg", "United States", ""},
	{"Cleveland", "United States", ""}, {"Denver", "United States", ""}, {"Pittsburgh", "United States", ""},
	{"Cincinnati", "United States", ""}, {"Minneapolis", "United States", ""}, {"Miami", "United States", ""},
	{"Phoenix", "United States", ""}, {"Ottawa", "Canada", ""}, {"Mexico City", "Mexico", ""},
}

type airport struct {
	name, iata, country, region string
	serves                      []string
}

// airports: four serve Nijmegen; only Weeze Airport is in Germany, and it
// sorts last of the four by name. EuroAirport is in France yet serves
// Basel and Freiburg, a tempting cross-border distractor.
var airports = []airport{
	{"Amsterdam Airport Schiphol", "AMS", "Netherlands", "", []string{"Amsterdam", "Nijmegen"}},
	{"Eindhoven Airport", "EIN", "Netherlands", "North Brabant", []string{"Eindhoven", "Nijmegen"}},
	{"Rotterdam The Hague Airport", "RTM", "Netherlands", "South Holland", []string{"Rotterdam", "The Hague", "Nijmegen"}},
	{"Weeze Airport", "NRN", "Germany", "North Rhine-Westphalia", []string{"Weeze", "Nijmegen"}},
	{"Maastricht Aachen Airport", "MST", "Netherlands", "", []string{"Maastricht"}},
	{"Düsseldorf Airport", "DUS", "Germany", "North Rhine-Westphalia", []string{"Düsseldorf"}},
	{"Cologne Bonn Airport", "CGN", "Germany", "North Rhine-Westphalia", []string{"Cologne"}},
	{"Frankfurt Airport", "FRA", "Germany", "Hesse", []string{"Frankfurt", "Wiesbaden"}},
	{"Munich Airport", "MUC", "Germany", "Bavaria", []string{"Munich"}},
	{"Berlin Brandenburg Airport", "BER", "Germany", "", []string{"Berlin"}},
	{"Hamburg Airport", "HAM", "Germany", "", []string{"Hamburg"}},
	{"Charles de Gaulle Airport", "CDG", "France", "Île-de-France", []string{"Paris"}},
	{"Paris Orly Airport", "ORY", "France", "Île-de-France", []string{"Paris"}},
	{"Lyon–Saint-Exupéry Airport", "LYS", "France", "", []string{"Lyon"}},
	{"Nice Côte d'Azur Airport", "NCE", "France", "", []string{"Nice"}},
	{"EuroAirport Basel Mulhouse Freiburg", "BSL", "France", "Grand Est", []string{"Basel", "Mulhouse", "Freiburg im Breisgau"}},
	{"Brussels Airport", "BRU", "Belgium", "", []string{"Brussels"}},
	{"Brussels South Charleroi Airport", "CRL", "Belgium", "", []string{"Charleroi", "Brussels"}},
	{"Luxembourg Airport", "LUX", "Luxembourg", "", []string{"Luxembourg City"}},
	{"Zurich Airport", "ZRH", "Switzerland", "Canton of Zurich", []string{"Zurich"}},
	{"Geneva Airport", "GVA", "Switzerland", "", []string{"Geneva"}},
	{"Leonardo da Vinci–Fiumicino Airport", "FCO", "Italy", "", []string{"Rome"}},
	{"Milan Malpensa Airport", "MXP", "Italy", "", []string{"Milan"}},
	{"Adolfo Suárez Madrid–Barajas Airport", "MAD", "Spain", "", []string{"Madrid"}},
	{"Barcelona–El Prat Airport", "BCN", "Spain", "", []string{"Barcelona"}},
	{"Lisbon Airport", "LIS", "Portugal", "", []string{"Lisbon"}},
	{"Vienna International Airport", "VIE", "Austria", "", []string{"Vienna"}},
	{"Václav Havel Airport Prague", "PRG", "Czech Republic", "", []string{"Prague"}},
	{"Warsaw Chopin Airport", "WAW", "Poland", "", []string{"Warsaw"}},
	{"Copenhagen Airport", "CPH", "Denmark", "", []string{"Copenhagen"}},
	{"Heathrow Airport", "LHR", "United Kingdom", "", []string{"London"}},
	{"São Paulo/Guarulhos International Airport", "GRU", "Brazil", "", []string{"São Paulo"}},
	{"San Francisco International Airport", "SFO", "United States", "California", []string{"San Francisco"}},
	{"Oakland International Airport", "OAK", "United States", "California", []string{"Oakland", "San Francisco"}},
	{"John F. Kennedy International Airport", "JFK", "United States", "New York", []string{"New York City"}},
	{"LaGuardia Airport", "LGA", "United States", "New York", []string{"New York City"}},
	{"Logan International Airport", "BOS", "United States", "Massachusetts", []string{"Boston"}},
	{"Los Angeles International Airport", "LAX", "United States", "California", []string{"Los Angeles"}},
	{"O'Hare International Airport", "ORD", "United States", "", []string{"Chicago"}},
}

type mountain struct {
	name      string
	elevation int // metres
	countries []string
}

// mountains: Mont Blanc is higher than any Swiss peak but lies on the
// French-Italian border, not in Switzerland.
var mountains = []mountain{
	{"Mont Blanc", 4808, []string{"France", "Italy"}},
	{"Dufourspitze", 4634, []string{"Switzerland"}},
	{"Dom", 4545, []string{"Switzerland"}},
	{"Weisshorn", 4506, []string{"Switzerland"}},
	{"Matterhorn", 4478, []string{"Switzerland", "Italy"}},
	{"Jungfrau", 4158, []string{"Switzerland"}},
	{"Eiger", 3967, []string{"Switzerland"}},
	{"Gran Paradiso", 4061, []string{"Italy"}},
	{"Grossglockner", 3798, []string{"Austria"}},
	{"Zugspitze", 2962, []string{"Germany", "Austria"}},
	{"Mulhacén", 3479, []string{"Spain"}},
	{"Aneto", 3404, []string{"Spain"}},
	{"Triglav", 2864, []string{"Slovenia"}},
}

type river struct {
	name      string
	length    int // km
	mouth     string
	countries []string
}

// rivers: the Volga is longer than the Danube but does not reach Germany.
var rivers = []river{
	{"Rhine", 1233, "North Sea", []string{"Switzerland", "Liechtenstein", "Austria", "Germany", "France", "Netherlands"}},
	{"Danube", 2850, "Black Sea", []string{"Germany", "Austria", "Slovakia", "Hungary", "Croatia", "Serbia", "Romania", "Bulgaria", "Moldova", "Ukraine"}},
	{"Elbe", 1094, "North Sea", []string{"Czech Republic", "Germany"}},
	{"Oder", 742, "Baltic Sea", []string{"Czech Republic", "Poland", "Germany"}},
	{"Moselle", 544, "", []string{"France", "Luxembourg", "Germany"}},
	{"Meuse", 925, "North Sea", []string{"France", "Belgium", "Netherlands"}},
	{"Scheldt", 350, "North Sea", []string{"France", "Belgium", "Netherlands"}},
	{"Inn", 518, "", []string{"Switzerland", "Austria", "Germany"}},
	{"Weser", 452, "North Sea", []string{"Germany"}},
	{"Main", 527, "", []string{"Germany"}},
	{"Seine", 777, "English Channel", []string{"France"}},
	{"Loire", 1006, "Atlantic Ocean", []string{"France"}},
	{"Rhône", 813, "Mediterranean Sea", []string{"Switzerland", "France"}},
	{"Po", 652, "Adriatic Sea", []string{"Italy"}},
	{"Tagus", 1007, "Atlantic Ocean", []string{"Spain", "Portugal"}},
	{"Ebro", 930, "Mediterranean Sea", []string{"Spain"}},
	{"Vistula", 1047, "Baltic Sea", []string{"Poland"}},
	{"Volga", 3530, "Caspian Sea", []string{"Russia"}},
	{"Thames", 346, "North Sea", []string{"United Kingdom"}},
}

// contains records (parent contains child) both ways.
func (b *builder) contains(parent, child string) {
	p, c := b.ref(parent), b.ref(child)
	b.rel(p, "location.location.contains", c)
	b.rel(c, "location.location.containedby", p)
}

func (b *builder) population(key string, year int, n int64) {
	m := b.cvt(fmt.Sprintf("pop:%s:%d", key, year), "measurement_unit.dated_integer")
	b.rel(b.ref(key), "location.statistical_region.population", m)
	b.typed(m, "measurement_unit.dated_integer.number", fmt.Sprint(n), "integer")
	b.typed(m, "measurement_unit.dated_integer.year", fmt.Sprint(year), "gYear")
	b.rel(m, "measurement_unit.dated_integer.source", b.ref("World Bank"))
}

func buildGeo(b *builder) {
	for _, c := range []string{"Europe", "South America", "North America"} {
		b.entity(c, c, "location.continent", "location.location")
	}
	b.entity("World Bank", "World Bank", "organization.organization")
	for _, c := range countries {
		b.entity(c.name, c.name, "location.country", "location.location", "location.statistical_region")
		b.rel(b.ref(c.name), "freebase.valuenotation.is_reviewed", "location.country.capital")
		b.contains(c.continent, c.name)
		b.entity(c.currency, c.currency, "finance.currency")
		b.rel(b.ref(c.name), "location.country.currency_used", b.ref(c.currency))
		for _, l := range c.langs {
			b.entity(l+" Language", l+" Language", "language.human_language")
			b.rel(b.ref(c.name), "location.country.official_language", b.ref(l+" Language"))
		}
		if c.pop2010 > 0 {
			b.population(c.name, 2010, c.pop2010)
		}
		if c.pop2019 > 0 {
			b.population(c.name, 2019, c.pop2019)
		}
	}
	b.describe("France", "France is a country in Western Europe with overseas regions, among them French Guiana in South America.")
	b.describe("Germany", "Germany is a country in Central Europe.")
	for _, r := range regions {
		b.entity(r.name, r.name, "location.administrative_division", r.typ, "location.location")
		b.contains(r.country, r.name)
	}
	for _, c := range cities {
		b.entity(c.name, c.name, "location.citytown", "location.location")
		b.contains(c.country, c.name)
		if c.region != "" {
			b.contains(c.region, c.name)
		}
	}
	// A homonym, so that linking "Paris" by name is ambiguous.
	b.entity("Paris (Texas)", "Paris", "location.citytown", "location.location")
	b.contains("United States", "Paris (Texas)")
	b.describe("Paris (Texas)", "Paris is a city in Lamar County, Texas.")
	b.describe("Nijmegen", "Nijmegen is the oldest city in the Netherlands, on the Waal near the German border.")
	for _, c := range countries {
		if c.capital != "" {
			b.rel(b.ref(c.name), "location.country.capital", b.ref(c.capital))
		}
	}
	for _, r := range regions {
		b.rel(b.ref(r.name), "location.administrative_division.capital", b.ref(r.capital))
	}
	for _, pair := range borders {
		a, c, _ := strings.Cut(pair, "|")
		b.adjoin(a, c)
		b.adjoin(c, a)
	}
	for _, a := range airports {
		b.entity(a.name, a.name, "aviation.airport", "location.location")
		b.typed(b.ref(a.name), "aviation.airport.iata", a.iata, "string")
		b.contains(a.country, a.name)
		if a.region != "" {
			b.contains(a.region, a.name)
		}
		for _, s := range a.serves {
			b.rel(b.ref(a.name), "aviation.airport.serves", b.ref(s))
			b.rel(b.ref(s), "location.location.nearby_airports", b.ref(a.name))
		}
	}
	for _, m := range mountains {
		b.entity(m.name, m.name, "geography.mountain", "location.location")
		b.typed(b.ref(m.name), "geography.mountain.elevation", fmt.Sprint(m.elevation), "float")
		for _, c := range m.countries {
			b.contains(c, m.name)
		}
	}
	for _, r := range rivers {
		b.entity(r.name, r.name, "geography.river", "location.location")
		b.typed(b.ref(r.name), "geography.river.length", fmt.Sprint(r.length), "float")
		if r.mouth != "" {
			b.entity(r.mouth, r.mouth, "geography.body_of_water", "location.location")
			b.rel(b.ref(r.name), "geography.river.mouth", b.ref(r.mouth))
		}
		for _, c := range r.countries {
			b.rel(b.ref(r.name), "geography.river.basin_countries", b.ref(c))
		}
	}
}

// adjoin adds "from borders to" through a location.adjoining_relationship
// mediator, as Freebase does.
func (b *builder) adjoin(from, to string) {
	m := b.cvt("adjoin:"+from+">"+to, "location.adjoining_relationship")
	b.rel(b.ref(from), "location.location.adjoin_s", m)
	b.rel(m, "location.adjoining_relationship.adjoins", b.ref(to))
}
