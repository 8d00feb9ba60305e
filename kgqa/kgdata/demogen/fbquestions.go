package main

import "github.com/parog/parog-go/kgqa"

var freebaseQuestions = []question{
	{
		id: "demo-01", typ: "conjunction",
		text:    "What country bordering France contains an airport that serves Nijmegen?",
		topics:  []string{"France", "Nijmegen"},
		answers: []string{"Germany"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[France]] ns:location.location.adjoin_s ?y .
  ?y ns:location.adjoining_relationship.adjoins ?x .
  ?x ns:type.object.type ns:location.country .
  ?x ns:location.location.contains ?a .
  ?a ns:aviation.airport.serves ns:[[Nijmegen]] .
  FILTER (?x != <http://rdf.freebase.com/ns/[[France]]>)
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that border France."),
			sg("s2", kgqa.OpFind, "Find the airports that serve Nijmegen."),
			sg("s3", kgqa.OpFind, "Find the countries that contain #2.", "s2"),
			sg("s4", kgqa.OpIntersect, "Find the countries that are in both #1 and #3.", "s1", "s3"),
		},
	},
	{
		id: "demo-02", typ: "superlative",
		text:    "Lou Seal is the mascot for the team that last won the World Series when?",
		topics:  []string{"Lou Seal"},
		answers: []string{"2014 World Series"},
		sparql: fbPrefix + `SELECT ?x WHERE {
  ns:[[Lou Seal]] ns:sports.mascot.team ?t .
  ?t ns:sports.sports_team.championships ?x .
  ?x ns:sports.sports_championship_event.championship ns:[[World Series]] .
  ?x ns:time.event.end_date ?d .
}
ORDER BY DESC(?d)
LIMIT 1`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the team whose mascot is Lou Seal."),
			sg("s2", kgqa.OpFind, "Find the World Series championships that #1 won.", "s1"),
			withArgs(sg("s3", kgqa.OpSuperlative, "Find which of #2 ended most recently.", "s2"),
				kgqa.Args{Attribute: "end date", Order: "max"}),
		},
	},
	{
		id: "demo-03", typ: "conjunction",
		text:    "Which country borders both Germany and Spain?",
		topics:  []string{"Germany", "Spain"},
		answers: []string{"France"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[Germany]] ns:location.location.adjoin_s ?y1 .
  ?y1 ns:location.adjoining_relationship.adjoins ?x .
  ns:[[Spain]] ns:location.location.adjoin_s ?y2 .
  ?y2 ns:location.adjoining_relationship.adjoins ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that border Germany."),
			sg("s2", kgqa.OpFind, "Find the countries that border Spain."),
			sg("s3", kgqa.OpIntersect, "Find the countries that are in both #1 and #2.", "s1", "s2"),
		},
	},
	{
		id: "demo-04", typ: "conjunction",
		text:    "Which river flows through both Switzerland and the Netherlands?",
		topics:  []string{"Switzerland", "Netherlands"},
		answers: []string{"Rhine"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ?x ns:geography.river.basin_countries ns:[[Switzerland]] .
  ?x ns:geography.river.basin_countries ns:[[Netherlands]] .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the rivers that flow through Switzerland."),
			sg("s2", kgqa.OpFind, "Find the rivers that flow through the Netherlands."),
			sg("s3", kgqa.OpIntersect, "Find the rivers that are in both #1 and #2.", "s1", "s2"),
		},
	},
	{
		id: "demo-05", typ: "conjunction",
		text:    "Which country that borders Italy uses the Swiss franc?",
		topics:  []string{"Italy", "Swiss franc"},
		answers: []string{"Switzerland"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[Italy]] ns:location.location.adjoin_s ?y .
  ?y ns:location.adjoining_relationship.adjoins ?x .
  ?x ns:location.country.currency_used ns:[[Swiss franc]] .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that border Italy."),
			sg("s2", kgqa.OpFind, "Find the countries that use the Swiss franc."),
			sg("s3", kgqa.OpIntersect, "Find the countries that are in both #1 and #2.", "s1", "s2"),
		},
	},
	{
		id: "demo-06", typ: "composition",
		text:    "What is the capital of the country that contains Weeze Airport?",
		topics:  []string{"Weeze Airport"},
		answers: []string{"Berlin"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ?c ns:location.location.contains ns:[[Weeze Airport]] .
  ?c ns:type.object.type ns:location.country .
  ?c ns:location.country.capital ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the country that contains Weeze Airport."),
			sg("s2", kgqa.OpFind, "Find the capital of #1.", "s1"),
		},
	},
	{
		id: "demo-07", typ: "composition",
		text:    "What is the home stadium of the team whose mascot is Mr. Met?",
		topics:  []string{"Mr. Met"},
		answers: []string{"Citi Field"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[Mr. Met]] ns:sports.mascot.team ?t .
  ?t ns:sports.sports_team.arena_stadium ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the team whose mascot is Mr. Met."),
			sg("s2", kgqa.OpFind, "Find the home stadium of #1.", "s1"),
		},
	},
	{
		id: "demo-08", typ: "composition",
		text:    "Where was the director of Amélie born?",
		topics:  []string{"Amélie"},
		answers: []string{"Roanne"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[Amélie]] ns:film.film.directed_by ?d .
  ?d ns:people.person.place_of_birth ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the director of Amélie."),
			sg("s2", kgqa.OpFind, "Find the place where #1 was born.", "s1"),
		},
	},
	{
		id: "demo-09", typ: "composition",
		text:    "What currency is used in the country that contains Zurich Airport?",
		topics:  []string{"Zurich Airport"},
		answers: []string{"Swiss franc"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ?c ns:location.location.contains ns:[[Zurich Airport]] .
  ?c ns:type.object.type ns:location.country .
  ?c ns:location.country.currency_used ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the country that contains Zurich Airport."),
			sg("s2", kgqa.OpFind, "Find the currency used in #1.", "s1"),
		},
	},
	{
		id: "demo-10", typ: "comparative",
		text:    "Which country bordering Germany had a population of more than 50 million in 2019?",
		topics:  []string{"Germany"},
		answers: []string{"France"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[Germany]] ns:location.location.adjoin_s ?y .
  ?y ns:location.adjoining_relationship.adjoins ?x .
  ?x ns:location.statistical_region.population ?p .
  ?p ns:measurement_unit.dated_integer.year "2019"^^<http://www.w3.org/2001/XMLSchema#gYear> .
  ?p ns:measurement_unit.dated_integer.number ?n .
  FILTER (?n > 50000000)
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that border Germany."),
			withArgs(sg("s2", kgqa.OpCompare, "Find which of #1 had a population of more than 50 million in 2019.", "s1"),
				kgqa.Args{Attribute: "population in 2019", Cmp: ">", Value: "50000000"}),
		},
	},
	{
		id: "demo-11", typ: "comparative",
		text:    "Which World Series won by the Boston Red Sox started after 2015?",
		topics:  []string{"Boston Red Sox"},
		answers: []string{"2018 World Series"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[Boston Red Sox]] ns:sports.sports_team.championships ?x .
  ?x ns:time.event.start_date ?d .
  FILTER (?d > "2015-12-31"^^xsd:date)
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the World Series that the Boston Red Sox won."),
			withArgs(sg("s2", kgqa.OpCompare, "Find which of #1 started after 2015.", "s1"),
				kgqa.Args{Attribute: "start date", Cmp: ">", Value: "2015-12-31"}),
		},
	},
	{
		id: "demo-12", typ: "comparative",
		text:    "Which film directed by Jean-Pierre Jeunet was released before 1995?",
		topics:  []string{"Jean-Pierre Jeunet"},
		answers: []string{"Delicatessen"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ?x ns:film.film.directed_by ns:[[Jean-Pierre Jeunet]] .
  ?x ns:film.film.initial_release_date ?d .
  FILTER (?d < "1995-01-01"^^xsd:date)
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the films directed by Jean-Pierre Jeunet."),
			withArgs(sg("s2", kgqa.OpCompare, "Find which of #1 was released before 1995.", "s1"),
				kgqa.Args{Attribute: "initial release date", Cmp: "<", Value: "1995-01-01"}),
		},
	},
	{
		id: "demo-13", typ: "comparative",
		text:    "Which mountain in Switzerland has an elevation above 4,600 metres?",
		topics:  []string{"Switzerland"},
		answers: []string{"Dufourspitze"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[Switzerland]] ns:location.location.contains ?x .
  ?x ns:type.object.type ns:geography.mountain .
  ?x ns:geography.mountain.elevation ?e .
  FILTER (?e > 4600)
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the mountains in Switzerland."),
			withArgs(sg("s2", kgqa.OpCompare, "Find which of #1 has an elevation above 4,600 metres.", "s1"),
				kgqa.Args{Attribute: "elevation", Cmp: ">", Value: "4600"}),
		},
	},
	{
		id: "demo-14", typ: "superlative",
		text:    "Which country bordering Switzerland had the smallest population in 2019?",
		topics:  []string{"Switzerland"},
		answers: []string{"Liechtenstein"},
		sparql: fbPrefix + `SELECT ?x WHERE {
  ns:[[Switzerland]] ns:location.location.adjoin_s ?y .
  ?y ns:location.adjoining_relationship.adjoins ?x .
  ?x ns:location.statistical_region.population ?p .
  ?p ns:measurement_unit.dated_integer.year "2019"^^<http://www.w3.org/2001/XMLSchema#gYear> .
  ?p ns:measurement_unit.dated_integer.number ?n .
}
ORDER BY ASC(?n)
LIMIT 1`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that border Switzerland."),
			withArgs(sg("s2", kgqa.OpSuperlative, "Find which of #1 had the smallest population in 2019.", "s1"),
				kgqa.Args{Attribute: "population in 2019", Order: "min"}),
		},
	},
	{
		id: "demo-15", typ: "superlative",
		text:    "What is the longest river that flows through Germany?",
		topics:  []string{"Germany"},
		answers: []string{"Danube"},
		sparql: fbPrefix + `SELECT ?x WHERE {
  ?x ns:geography.river.basin_countries ns:[[Germany]] .
  ?x ns:geography.river.length ?l .
}
ORDER BY DESC(?l)
LIMIT 1`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the rivers that flow through Germany."),
			withArgs(sg("s2", kgqa.OpSuperlative, "Find which of #1 is the longest.", "s1"),
				kgqa.Args{Attribute: "length", Order: "max"}),
		},
	},
	{
		id: "demo-16", typ: "superlative",
		text:    "Which was the first World Series won by the New York Yankees?",
		topics:  []string{"New York Yankees"},
		answers: []string{"1923 World Series"},
		sparql: fbPrefix + `SELECT ?x WHERE {
  ?x ns:sports.sports_championship_event.champion ns:[[New York Yankees]] .
  ?x ns:sports.sports_championship_event.championship ns:[[World Series]] .
  ?x ns:time.event.start_date ?d .
}
ORDER BY ASC(?d)
LIMIT 1`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the World Series that the New York Yankees won."),
			withArgs(sg("s2", kgqa.OpSuperlative, "Find which of #1 took place first.", "s1"),
				kgqa.Args{Attribute: "start date", Order: "min"}),
		},
	},
	{
		id: "demo-17", typ: "count",
		text:    "How many countries border France?",
		topics:  []string{"France"},
		literal: &literalAnswer{"10", xsdInteger},
		sparql: fbPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {
  ns:[[France]] ns:location.location.adjoin_s ?y .
  ?y ns:location.adjoining_relationship.adjoins ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that border France."),
			sg("s2", kgqa.OpCount, "Count the countries in #1.", "s1"),
		},
	},
	{
		id: "demo-18", typ: "count",
		text:    "How many World Series have the San Francisco Giants won?",
		topics:  []string{"San Francisco Giants"},
		literal: &literalAnswer{"8", xsdInteger},
		sparql: fbPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {
  ns:[[San Francisco Giants]] ns:sports.sports_team.championships ?x .
  ?x ns:sports.sports_championship_event.championship ns:[[World Series]] .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the World Series that the San Francisco Giants won."),
			sg("s2", kgqa.OpCount, "Count the championships in #1.", "s1"),
		},
	},
	{
		id: "demo-19", typ: "count",
		text:    "How many airports serve Nijmegen?",
		topics:  []string{"Nijmegen"},
		literal: &literalAnswer{"4", xsdInteger},
		sparql: fbPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {
  ?x ns:aviation.airport.serves ns:[[Nijmegen]] .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the airports that serve Nijmegen."),
			sg("s2", kgqa.OpCount, "Count the airports in #1.", "s1"),
		},
	},
	{
		id: "demo-20", typ: "count",
		text:    "How many World Series have the New York Yankees won?",
		topics:  []string{"New York Yankees"},
		literal: &literalAnswer{"27", xsdInteger},
		sparql: fbPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {
  ns:[[New York Yankees]] ns:sports.sports_team.championships ?x .
  ?x ns:sports.sports_championship_event.championship ns:[[World Series]] .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the World Series that the New York Yankees won."),
			sg("s2", kgqa.OpCount, "Count the championships in #1.", "s1"),
		},
	},
	{
		id: "demo-21", typ: "count",
		text:    "How many films directed by Jean-Pierre Jeunet were released after 2000?",
		topics:  []string{"Jean-Pierre Jeunet"},
		literal: &literalAnswer{"4", xsdInteger},
		sparql: fbPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {
  ?x ns:film.film.directed_by ns:[[Jean-Pierre Jeunet]] .
  ?x ns:film.film.initial_release_date ?d .
  FILTER (?d > "2000-12-31"^^xsd:date)
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the films directed by Jean-Pierre Jeunet."),
			withArgs(sg("s2", kgqa.OpCompare, "Find which of #1 were released after 2000.", "s1"),
				kgqa.Args{Attribute: "initial release date", Cmp: ">", Value: "2000-12-31"}),
			sg("s3", kgqa.OpCount, "Count the films in #2.", "s2"),
		},
	},
	{
		id: "demo-22", typ: "linear",
		text:    "Who is the mascot of the San Francisco Giants?",
		topics:  []string{"San Francisco Giants"},
		answers: []string{"Lou Seal"},
		sparql: fbPrefix + `SELECT DISTINCT ?x WHERE {
  ns:[[San Francisco Giants]] ns:sports.sports_team.team_mascot ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the mascot of the San Francisco Giants."),
		},
	},
}

var wikidataQuestions = []question{
	{
		id: "wd-01", typ: "conjunction",
		text:    "What country bordering France contains an airport that serves Nijmegen?",
		topics:  []string{"France", "Nijmegen"},
		answers: []string{"Germany"},
		sparql: wdPrefix + `SELECT DISTINCT ?x WHERE {
  wd:[[France]] wdt:P47 ?x .
  ?x wdt:P31 wd:[[country]] .
  ?a wdt:P931 wd:[[Nijmegen]] .
  ?a wdt:P17 ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that share a border with France."),
			sg("s2", kgqa.OpFind, "Find the airports that serve Nijmegen."),
			sg("s3", kgqa.OpFind, "Find the countries in which #2 are located.", "s2"),
			sg("s4", kgqa.OpIntersect, "Find the countries that are in both #1 and #3.", "s1", "s3"),
		},
	},
	{
		id: "wd-02", typ: "count",
		text:    "How many countries share a border with France?",
		topics:  []string{"France"},
		literal: &literalAnswer{"10", xsdInteger},
		sparql: wdPrefix + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {
  wd:[[France]] wdt:P47 ?x .
  ?x wdt:P31 wd:[[country]] .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that share a border with France."),
			sg("s2", kgqa.OpCount, "Count the countries in #1.", "s1"),
		},
	},
	{
		id: "wd-03", typ: "superlative",
		text:    "Which country bordering Belgium had the largest population in 2019?",
		topics:  []string{"Belgium"},
		answers: []string{"Germany"},
		sparql: wdPrefix + `SELECT ?x WHERE {
  wd:[[Belgium]] wdt:P47 ?x .
  ?x p:P1082 ?s .
  ?s ps:P1082 ?n .
  ?s pq:P585 ?t .
  FILTER (YEAR(?t) = 2019)
}
ORDER BY DESC(?n)
LIMIT 1`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that share a border with Belgium."),
			withArgs(sg("s2", kgqa.OpSuperlative, "Find which of #1 had the largest population in 2019.", "s1"),
				kgqa.Args{Attribute: "population in 2019", Order: "max"}),
		},
	},
	{
		id: "wd-04", typ: "comparative",
		text:    "Which country bordering Switzerland had fewer than 100,000 inhabitants in 2019?",
		topics:  []string{"Switzerland"},
		answers: []string{"Liechtenstein"},
		sparql: wdPrefix + `SELECT DISTINCT ?x WHERE {
  wd:[[Switzerland]] wdt:P47 ?x .
  ?x p:P1082 ?s .
  ?s ps:P1082 ?n .
  ?s pq:P585 ?t .
  FILTER (YEAR(?t) = 2019 && ?n < 100000)
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the countries that share a border with Switzerland."),
			withArgs(sg("s2", kgqa.OpCompare, "Find which of #1 had fewer than 100,000 inhabitants in 2019.", "s1"),
				kgqa.Args{Attribute: "population in 2019", Cmp: "<", Value: "100000"}),
		},
	},
	{
		id: "wd-05", typ: "composition",
		text:    "What is the capital of the country where Weeze Airport is located?",
		topics:  []string{"Weeze Airport"},
		answers: []string{"Berlin"},
		sparql: wdPrefix + `SELECT DISTINCT ?x WHERE {
  wd:[[Weeze Airport]] wdt:P17 ?c .
  ?c wdt:P36 ?x .
}`,
		plan: []kgqa.Subgoal{
			sg("s1", kgqa.OpFind, "Find the country where Weeze Airport is located."),
			sg("s2", kgqa.OpFind, "Find the capital of #1.", "s1"),
		},
	},
}
