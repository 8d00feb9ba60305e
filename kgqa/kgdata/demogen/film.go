package main

import "strings"

type person struct{ name, born, birthplace, nationality, profession string }

var people = []person{
	{"Jean-Pierre Jeunet", "1953-09-03", "Roanne", "France", "Film director"},
	{"Marc Caro", "1956-04-02", "Nantes", "France", "Film director"},
	{"Mathieu Kassovitz", "1967-08-03", "Paris", "France", "Film director"},
	{"Audrey Tautou", "1976-08-09", "Beaumont", "France", "Actor"},
	{"Dominique Pinon", "1955-03-04", "Saumur", "France", "Actor"},
	{"Sigourney Weaver", "1949-10-08", "New York City", "United States", "Actor"},
	{"Ron Perlman", "1950-04-13", "New York City", "United States", "Actor"},
	{"Vincent Cassel", "1966-11-23", "Paris", "France", "Actor"},
}

// films lists "title|release date|directors;...|actors;...|setting|country".
var films = []string{
	"Delicatessen|1991-04-17|Jean-Pierre Jeunet;Marc Caro|Dominique Pinon||France",
	"The City of Lost Children|1995-05-17|Jean-Pierre Jeunet;Marc Caro|Ron Perlman;Dominique Pinon||France",
	"Alien Resurrection|1997-11-26|Jean-Pierre Jeunet|Sigourney Weaver;Ron Perlman;Dominique Pinon||United States",
	"Amélie|2001-04-25|Jean-Pierre Jeunet|Audrey Tautou;Mathieu Kassovitz;Dominique Pinon|Paris|France",
	"A Very Long Engagement|2004-10-27|Jean-Pierre Jeunet|Audrey Tautou;Dominique Pinon|Paris|France",
	"Micmacs|2009-10-28|Jean-Pierre Jeunet|Dominique Pinon|Paris|France",
	"The Young and Prodigious T.S. Spivet|2013-10-16|Jean-Pierre Jeunet|Dominique Pinon||Canada",
	"La Haine|1995-05-31|Mathieu Kassovitz|Vincent Cassel|Paris|France",
}

func buildFilm(b *builder) {
	b.entity("Saumur", "Saumur", "location.citytown", "location.location")
	b.contains("France", "Saumur")
	for _, p := range []string{"Film director", "Actor"} {
		b.entity(p, p, "people.profession")
	}
	for _, p := range people {
		m := b.entity(p.name, p.name, "people.person")
		b.typed(m, "people.person.date_of_birth", p.born, "date")
		b.rel(m, "people.person.place_of_birth", b.ref(p.birthplace))
		b.rel(m, "people.person.nationality", b.ref(p.nationality))
		b.rel(m, "people.person.profession", b.ref(p.profession))
		if p.profession == "Film director" {
			b.rel(m, "type.object.type", "film.director")
		}
	}
	for _, f := range films {
		part := strings.Split(f, "|")
		m := b.entity(part[0], part[0], "film.film")
		b.typed(m, "film.film.initial_release_date", part[1], "date")
		b.rel(m, "film.film.country", b.ref(part[5]))
		for _, d := range strings.Split(part[2], ";") {
			b.rel(m, "film.film.directed_by", b.ref(d))
			b.rel(b.ref(d), "film.director.film", m)
		}
		for _, a := range strings.Split(part[3], ";") {
			c := b.cvt("perf:"+part[0]+":"+a, "film.performance")
			b.rel(m, "film.film.starring", c)
			b.rel(c, "film.performance.actor", b.ref(a))
			b.rel(b.ref(a), "type.object.type", "film.actor")
			b.rel(b.ref(a), "film.actor.film", c)
			b.rel(c, "film.performance.film", m)
		}
		if part[4] != "" {
			b.rel(m, "film.film.featured_film_locations", b.ref(part[4]))
		}
	}
	b.describe("Amélie", "Amélie is a 2001 romantic comedy set in Montmartre, Paris.")
}
