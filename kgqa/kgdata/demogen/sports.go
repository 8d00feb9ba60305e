package main

import (
	"fmt"
	"strings"
)

type team struct {
	name, city, stadium, mascot string
	founded                     int
}

// teams are franchises: a title won under an older name (New York Giants,
// Brooklyn Dodgers, Milwaukee Braves, ...) belongs to today's team, as in
// Freebase.
var teams = []team{
	{"San Francisco Giants", "San Francisco", "Oracle Park", "Lou Seal", 1883},
	{"New York Yankees", "New York City", "Yankee Stadium", "", 1901},
	{"New York Mets", "New York City", "Citi Field", "Mr. Met", 1962},
	{"Boston Red Sox", "Boston", "Fenway Park", "Wally the Green Monster", 1901},
	{"Los Angeles Dodgers", "Los Angeles", "Dodger Stadium", "", 1883},
	{"St. Louis Cardinals", "St. Louis", "Busch Stadium", "Fredbird", 1882},
	{"Chicago Cubs", "Chicago", "Wrigley Field", "Clark the Cub", 1876},
	{"Chicago White Sox", "Chicago", "Guaranteed Rate Field", "Southpaw", 1901},
	{"Houston Astros", "Houston", "Minute Maid Park", "Orbit", 1962},
	{"Kansas City Royals", "Kansas City", "Kauffman Stadium", "Sluggerrr", 1969},
	{"Philadelphia Phillies", "Philadelphia", "Citizens Bank Park", "Phillie Phanatic", 1883},
	{"Los Angeles Angels", "Anaheim", "Angel Stadium", "", 1961},
	{"Atlanta Braves", "Atlanta", "Truist Park", "Blooper", 1871},
	{"Texas Rangers", "Arlington", "Globe Life Field", "Rangers Captain", 1961},
	{"Washington Nationals", "Washington, D.C.", "Nationals Park", "Screech", 1969},
	{"Detroit Tigers", "Detroit", "Comerica Park", "Paws", 1894},
	{"Tampa Bay Rays", "St. Petersburg", "Tropicana Field", "Raymond", 1998},
	{"Cleveland Guardians", "Cleveland", "Progressive Field", "Slider", 1894},
	{"Colorado Rockies", "Denver", "Coors Field", "Dinger", 1993},
	{"San Diego Padres", "San Diego", "Petco Park", "Swinging Friar", 1969},
	{"Pittsburgh Pirates", "Pittsburgh", "PNC Park", "Pirate Parrot", 1881},
	{"Cincinnati Reds", "Cincinnati", "Great American Ball Park", "Mr. Redlegs", 1881},
	{"Oakland Athletics", "Oakland", "Oakland Coliseum", "Stomper", 1901},
	{"Minnesota Twins", "Minneapolis", "Target Field", "T.C. Bear", 1901},
	{"Miami Marlins", "Miami", "LoanDepot Park", "Billy the Marlin", 1993},
	{"Arizona Diamondbacks", "Phoenix", "Chase Field", "D. Baxter the Bobcat", 1998},
}

// formerVenues are home grounds a team left, reached through a
// sports.team_venue_relationship mediator with from/to years.
var formerVenues = []struct {
	team, venue, city string
	from, to          int
}{
	{"San Francisco Giants", "Candlestick Park", "San Francisco", 1960, 1999},
	{"San Francisco Giants", "Polo Grounds", "New York City", 1891, 1957},
	{"New York Mets", "Shea Stadium", "New York City", 1964, 2008},
	{"New York Mets", "Polo Grounds", "New York City", 1962, 1963},
	{"New York Yankees", "Polo Grounds", "New York City", 1913, 1922},
	{"Los Angeles Dodgers", "Ebbets Field", "New York City", 1913, 1957},
}

// series lists World Series as "year|champion|runner-up|start|end".
var series = []string{
	"1903|Boston Red Sox|Pittsburgh Pirates|1903-10-01|1903-10-13",
	"1905|San Francisco Giants|Oakland Athletics|1905-10-09|1905-10-14",
	"1912|Boston Red Sox|San Francisco Giants|1912-10-08|1912-10-16",
	"1915|Boston Red Sox|Philadelphia Phillies|1915-10-08|1915-10-13",
	"1916|Boston Red Sox|Los Angeles Dodgers|1916-10-07|1916-10-12",
	"1918|Boston Red Sox|Chicago Cubs|1918-09-05|1918-09-11",
	"1921|San Francisco Giants|New York Yankees|1921-10-05|1921-10-13",
	"1922|San Francisco Giants|New York Yankees|1922-10-04|1922-10-08",
	"1923|New York Yankees|San Francisco Giants|1923-10-10|1923-10-15",
	"1927|New York Yankees|Pittsburgh Pirates|1927-10-05|1927-10-08",
	"1928|New York Yankees|St. Louis Cardinals|1928-10-04|1928-10-09",
	"1932|New York Yankees|Chicago Cubs|1932-09-28|1932-10-02",
	"1933|San Francisco Giants|Minnesota Twins|1933-10-03|1933-10-07",
	"1936|New York Yankees|San Francisco Giants|1936-09-30|1936-10-06",
	"1937|New York Yankees|San Francisco Giants|1937-10-06|1937-10-10",
	"1938|New York Yankees|Chicago Cubs|1938-10-05|1938-10-09",
	"1939|New York Yankees|Cincinnati Reds|1939-10-04|1939-10-08",
	"1941|New York Yankees|Los Angeles Dodgers|1941-10-01|1941-10-06",
	"1943|New York Yankees|St. Louis Cardinals|1943-10-05|1943-10-11",
	"1947|New York Yankees|Los Angeles Dodgers|1947-09-30|1947-10-06",
	"1949|New York Yankees|Los Angeles Dodgers|1949-10-05|1949-10-09",
	"1950|New York Yankees|Philadelphia Phillies|1950-10-04|1950-10-07",
	"1951|New York Yankees|San Francisco Giants|1951-10-04|1951-10-10",
	"1952|New York Yankees|Los Angeles Dodgers|1952-10-01|1952-10-07",
	"1953|New York Yankees|Los Angeles Dodgers|1953-09-30|1953-10-05",
	"1954|San Francisco Giants|Cleveland Guardians|1954-09-29|1954-10-02",
	"1956|New York Yankees|Los Angeles Dodgers|1956-10-03|1956-10-10",
	"1958|New York Yankees|Atlanta Braves|1958-10-01|1958-10-09",
	"1961|New York Yankees|Cincinnati Reds|1961-10-04|1961-10-09",
	"1962|New York Yankees|San Francisco Giants|1962-10-04|1962-10-16",
	"1977|New York Yankees|Los Angeles Dodgers|1977-10-11|1977-10-18",
	"1978|New York Yankees|Los Angeles Dodgers|1978-10-10|1978-10-17",
	"1989|Oakland Athletics|San Francisco Giants|1989-10-14|1989-10-28",
	"1996|New York Yankees|Atlanta Braves|1996-10-20|1996-10-26",
	"1998|New York Yankees|San Diego Padres|1998-10-17|1998-10-21",
	"1999|New York Yankees|Atlanta Braves|1999-10-23|1999-10-27",
	"2000|New York Yankees|New York Mets|2000-10-21|2000-10-26",
	"2001|Arizona Diamondbacks|New York Yankees|2001-10-27|2001-11-04",
	"2002|Los Angeles Angels|San Francisco Giants|2002-10-19|2002-10-27",
	"2003|Miami Marlins|New York Yankees|2003-10-18|2003-10-25",
	"2004|Boston Red Sox|St. Louis Cardinals|2004-10-23|2004-10-27",
	"2005|Chicago White Sox|Houston Astros|2005-10-22|2005-10-26",
	"2006|St. Louis Cardinals|Detroit Tigers|2006-10-21|2006-10-27",
	"2007|Boston Red Sox|Colorado Rockies|2007-10-24|2007-10-28",
	"2008|Philadelphia Phillies|Tampa Bay Rays|2008-10-22|2008-10-29",
	"2009|New York Yankees|Philadelphia Phillies|2009-10-28|2009-11-04",
	"2010|San Francisco Giants|Texas Rangers|2010-10-27|2010-11-01",
	"2011|St. Louis Cardinals|Texas Rangers|2011-10-19|2011-10-28",
	"2012|San Francisco Giants|Detroit Tigers|2012-10-24|2012-10-28",
	"2013|Boston Red Sox|St. Louis Cardinals|2013-10-23|2013-10-30",
	"2014|San Francisco Giants|Kansas City Royals|2014-10-21|2014-10-29",
	"2015|Kansas City Royals|New York Mets|2015-10-27|2015-11-01",
	"2016|Chicago Cubs|Cleveland Guardians|2016-10-25|2016-11-02",
	"2017|Houston Astros|Los Angeles Dodgers|2017-10-24|2017-11-01",
	"2018|Boston Red Sox|Los Angeles Dodgers|2018-10-23|2018-10-28",
	"2019|Washington Nationals|Houston Astros|2019-10-22|2019-10-30",
	"2020|Los Angeles Dodgers|Tampa Bay Rays|2020-10-20|2020-10-27",
	"2021|Atlanta Braves|Houston Astros|2021-10-26|2021-11-02",
	"2022|Houston Astros|Philadelphia Phillies|2022-10-28|2022-11-05",
	"2023|Texas Rangers|Arizona Diamondbacks|2023-10-27|2023-11-01",
}

func buildSports(b *builder) {
	b.entity("Baseball", "Baseball", "sports.sport")
	b.entity("Major League Baseball", "Major League Baseball", "sports.sports_league")
	b.entity("World Series", "World Series", "sports.sports_championship")
	b.rel(b.ref("World Series"), "sports.sports_championship.league", b.ref("Major League Baseball"))
	for _, t := range teams {
		m := b.entity(t.name, t.name, "sports.sports_team", "baseball.baseball_team")
		b.rel(m, "sports.sports_team.sport", b.ref("Baseball"))
		b.rel(m, "sports.sports_team.location", b.ref(t.city))
		b.typed(m, "sports.sports_team.founded", fmt.Sprint(t.founded), "gYear")
		lp := b.cvt("league:"+t.name, "sports.sports_league_participation")
		b.rel(m, "sports.sports_team.league", lp)
		b.rel(lp, "sports.sports_league_participation.league", b.ref("Major League Baseball"))
		st := b.entity(t.stadium, t.stadium, "sports.sports_facility", "location.location")
		b.rel(m, "sports.sports_team.arena_stadium", st)
		b.rel(st, "sports.sports_facility.teams", m)
		b.contains(t.city, t.stadium)
		if t.mascot != "" {
			ms := b.entity(t.mascot, t.mascot, "sports.mascot")
			b.rel(m, "sports.sports_team.team_mascot", ms)
			b.rel(ms, "sports.mascot.team", m)
		}
	}
	b.describe("Lou Seal", "Lou Seal is the official mascot of the San Francisco Giants.")
	b.describe("San Francisco Giants", "The San Francisco Giants are a baseball team; as the New York Giants they won five World Series before moving west in 1958.")
	for _, v := range formerVenues {
		st := b.entity(v.venue, v.venue, "sports.sports_facility", "location.location")
		b.contains(v.city, v.venue)
		c := b.cvt("venue:"+v.team+":"+v.venue, "sports.team_venue_relationship")
		b.rel(b.ref(v.team), "sports.sports_team.venue", c)
		b.rel(c, "sports.team_venue_relationship.venue", st)
		b.typed(c, "sports.team_venue_relationship.from", fmt.Sprint(v.from), "gYear")
		b.typed(c, "sports.team_venue_relationship.to", fmt.Sprint(v.to), "gYear")
	}
	for _, s := range series {
		f := strings.Split(s, "|")
		name := f[0] + " World Series"
		ev := b.entity(name, name, "sports.sports_championship_event", "time.event")
		b.rel(ev, "sports.sports_championship_event.championship", b.ref("World Series"))
		b.rel(ev, "sports.sports_championship_event.champion", b.ref(f[1]))
		b.rel(ev, "sports.sports_championship_event.runner_up", b.ref(f[2]))
		b.rel(b.ref(f[1]), "sports.sports_team.championships", ev)
		b.typed(ev, "time.event.start_date", f[3], "date")
		b.typed(ev, "time.event.end_date", f[4], "date")
		b.typed(ev, "sports.sports_championship_event.season", f[0], "gYear")
		b.rel(b.ref("World Series"), "sports.sports_championship.events", ev)
	}
}
