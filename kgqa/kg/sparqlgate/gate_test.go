package sparqlgate_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/kg/sparqlgate"
)

const ns = "PREFIX ns: <http://rdf.freebase.com/ns/> "

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"select", ns + `SELECT ?x WHERE { ns:m.1 ns:type.object.name ?x } LIMIT 5`,
			`SELECT ?x WHERE { <http://rdf.freebase.com/ns/m.1> <http://rdf.freebase.com/ns/type.object.name> ?x . } LIMIT 5`},
		{"ask", `ASK { ?s ?p "a\"b\\c" }`, `ASK WHERE { ?s ?p "a\"b\\c" . }`},
		{"count", ns + `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ?x ns:p ?y }`,
			`SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ?x <http://rdf.freebase.com/ns/p> ?y . }`},
		{"filter and bind", `SELECT * WHERE { ?s ?p ?o FILTER(regex(STR(?o), "^a", "i")) BIND(STRLEN(?o) AS ?l) }`,
			`SELECT * WHERE { ?s ?p ?o . BIND(STRLEN(?o) AS ?l) FILTER(REGEX(STR(?o), "^a", "i")) }`},
		{"optional union", `SELECT * { ?s <http://x/p> ?o OPTIONAL { ?o <http://x/q> ?r } { ?s <http://x/a> 1 } UNION { ?s <http://x/b> 2.5 } } ORDER BY DESC(?s) LIMIT 3 OFFSET 2`,
			`SELECT * WHERE { ?s <http://x/p> ?o . OPTIONAL { ?o <http://x/q> ?r . } { ?s <http://x/a> 1 . } UNION { ?s <http://x/b> 2.5 . } } ORDER BY DESC(?s) LIMIT 3 OFFSET 2`},
		{"language and datatype", `SELECT * { ?s ?p "x"@en-GB . ?s ?q "1"^^<http://www.w3.org/2001/XMLSchema#integer> }`,
			`SELECT * WHERE { ?s ?p "x"@en-GB . ?s ?q "1"^^<http://www.w3.org/2001/XMLSchema#integer> . }`},
		{"path", ns + `SELECT * { ?s ns:a/ns:b* ?o }`,
			`SELECT * WHERE { ?s (<http://rdf.freebase.com/ns/a>/(<http://rdf.freebase.com/ns/b>)*) ?o . }`},
		{"in", `SELECT * { ?s ?p ?o FILTER(?o IN (1, 2)) }`,
			`SELECT * WHERE { ?s ?p ?o . FILTER(((?o = "1"^^<http://www.w3.org/2001/XMLSchema#integer>) || (?o = "2"^^<http://www.w3.org/2001/XMLSchema#integer>))) }`},
		{"codepoint escape of a plain letter", `SELECT * WHERE { ?s ?p "\u0041" }`, `SELECT * WHERE { ?s ?p "A" . }`},
		{"group by", `SELECT ?s (SUM(?o) AS ?t) WHERE { ?s ?p ?o } GROUP BY ?s HAVING (SUM(?o) > 2)`,
			`SELECT ?s (SUM(?o) AS ?t) WHERE { ?s ?p ?o . } GROUP BY ?s HAVING ((SUM(?o) > "2"^^<http://www.w3.org/2001/XMLSchema#integer>))`},
		{"values", `SELECT * { VALUES ?s { <http://x/a> <http://x/b> } ?s ?p ?o }`,
			`SELECT * WHERE { VALUES (?s) { (<http://x/a>) (<http://x/b>) } ?s ?p ?o . }`},
		{"not exists", `SELECT * { ?s ?p ?o FILTER NOT EXISTS { ?o ?q ?s } }`,
			`SELECT * WHERE { ?s ?p ?o . FILTER(NOT EXISTS { ?o ?q ?s . }) }`},
		{"triples in connected order", `SELECT * { ?a <http://x/p> ?b . ?c <http://x/q> ?d . ?b <http://x/r> ?c }`,
			`SELECT * WHERE { ?a <http://x/p> ?b . ?b <http://x/r> ?c . ?c <http://x/q> ?d . }`},
		{"VALUES first, triples from their variables", `SELECT * { ?x0 <http://x/t> <http://x/A> . ?x1 <http://x/t> <http://x/B> . VALUES ?x2 { <http://x/m> } ?x0 <http://x/r> ?x1 . ?x1 <http://x/s> ?x2 . FILTER(?x0 != ?x2) }`,
			`SELECT * WHERE { VALUES (?x2) { (<http://x/m>) } ?x1 <http://x/s> ?x2 . ?x1 <http://x/t> <http://x/B> . ?x0 <http://x/r> ?x1 . ?x0 <http://x/t> <http://x/A> . FILTER((?x0 != ?x2)) }`},
		{"a disconnected group keeps its order", `SELECT * { ?a <http://x/p> ?b . ?c <http://x/q> ?d }`,
			`SELECT * WHERE { ?a <http://x/p> ?b . ?c <http://x/q> ?d . }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := sparqlgate.Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, q.String())
			again, err := sparqlgate.Parse(q.String())
			require.NoError(t, err)
			assert.Equal(t, q.String(), again.String(), "the canonical text reads back as itself")
		})
	}
}

// WebQSP's gold queries cast with xsd:dateTime(...) in FILTERs, in
// EXISTS and in ORDER BY; the text is as sparql2plan.Normalize hands it to
// the gate (OR as ||, xsd:datetime as xsd:dateTime, xsd: declared).
func TestParseKeepsCasts(t *testing.T) {
	const fb = "http://rdf.freebase.com/ns/"
	tests := []struct {
		name, in, want string
	}{
		{"WebQTrn-6: a cast in EXISTS in a FILTER", `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT DISTINCT ?x
WHERE {
FILTER (?x != <http://rdf.freebase.com/ns/m.0c2yrf>)
FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en'))
ns:m.0c2yrf ns:sports.pro_athlete.teams ?y .
?y ns:sports.sports_team_roster.team ?x .
FILTER(NOT EXISTS {?y ns:sports.sports_team_roster.from ?sk0} || 
EXISTS {?y ns:sports.sports_team_roster.from ?sk1 . 
FILTER(xsd:dateTime(?sk1) <= "2015-08-10"^^xsd:dateTime) })
FILTER(NOT EXISTS {?y ns:sports.sports_team_roster.to ?sk2} || 
EXISTS {?y ns:sports.sports_team_roster.to ?sk3 . 
FILTER(xsd:dateTime(?sk3) >= "2015-08-10"^^xsd:dateTime) })
}`, `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT DISTINCT ?x WHERE { <` + fb + `m.0c2yrf> <` + fb + `sports.pro_athlete.teams> ?y . ?y <` + fb + `sports.sports_team_roster.team> ?x . ` +
			`FILTER((?x != <` + fb + `m.0c2yrf>)) FILTER((((!ISLITERAL(?x)) || (LANG(?x) = "")) || LANGMATCHES(LANG(?x), "en"))) ` +
			`FILTER((NOT EXISTS { ?y <` + fb + `sports.sports_team_roster.from> ?sk0 . } || EXISTS { ?y <` + fb + `sports.sports_team_roster.from> ?sk1 . FILTER((xsd:dateTime(?sk1) <= "2015-08-10"^^<http://www.w3.org/2001/XMLSchema#dateTime>)) })) ` +
			`FILTER((NOT EXISTS { ?y <` + fb + `sports.sports_team_roster.to> ?sk2 . } || EXISTS { ?y <` + fb + `sports.sports_team_roster.to> ?sk3 . FILTER((xsd:dateTime(?sk3) >= "2015-08-10"^^<http://www.w3.org/2001/XMLSchema#dateTime>)) })) }`},
		{"WebQTrn-45: a cast in ORDER BY", `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT DISTINCT ?x
WHERE {
FILTER (?x != <http://rdf.freebase.com/ns/m.078ffw>)
FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en'))
ns:m.078ffw ns:book.literary_series.works_in_this_series ?x .
?x ns:book.written_work.date_of_first_publication ?sk0 .
}
ORDER BY xsd:dateTime(?sk0)
LIMIT 1`, `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT DISTINCT ?x WHERE { <` + fb + `m.078ffw> <` + fb + `book.literary_series.works_in_this_series> ?x . ?x <` + fb + `book.written_work.date_of_first_publication> ?sk0 . ` +
			`FILTER((?x != <` + fb + `m.078ffw>)) FILTER((((!ISLITERAL(?x)) || (LANG(?x) = "")) || LANGMATCHES(LANG(?x), "en"))) } ORDER BY ASC(xsd:dateTime(?sk0)) LIMIT 1`},
		{"every cast, the client's own prefix name", `PREFIX x: <http://www.w3.org/2001/XMLSchema#> SELECT * { ?s ?p ?o FILTER(x:integer(?o) > 1 && x:float(?o) < x:double(?o) && x:decimal(?o) != 0 && x:boolean(?o) && x:string(?o) != "" && BOUND(?s)) }`,
			`PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT * WHERE { ?s ?p ?o . FILTER(((((((xsd:integer(?o) > "1"^^<http://www.w3.org/2001/XMLSchema#integer>) && (xsd:float(?o) < xsd:double(?o))) && (xsd:decimal(?o) != "0"^^<http://www.w3.org/2001/XMLSchema#integer>)) && xsd:boolean(?o)) && (xsd:string(?o) != "")) && BOUND(?s))) }`},
		{"a client's own xsd: prefix", `PREFIX x: <http://www.w3.org/2001/XMLSchema#> PREFIX xsd: <http://x/> SELECT * { ?s xsd:p ?o FILTER(x:integer(?o) > 1) }`,
			`PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT * WHERE { ?s <http://x/p> ?o . FILTER((xsd:integer(?o) > "1"^^<http://www.w3.org/2001/XMLSchema#integer>)) }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := sparqlgate.Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, q.String())
			again, err := sparqlgate.Parse(q.String())
			require.NoError(t, err)
			assert.Equal(t, q.String(), again.String(), "the canonical text reads back as itself")
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, in, why string
	}{
		{"service after a dot", `SELECT * WHERE { ?s ?p ?o.SERVICE <http://127.0.0.1:9/x> { ?a ?b ?c } } LIMIT 1`, "SERVICE"},
		{"escaped service", `SELECT * WHERE { ?s ?p ?o.\u0053ERVICE <http://127.0.0.1:9/x> { ?a ?b ?c } } LIMIT 1`, "SERVICE"},
		{"define in a pattern", `SELECT * WHERE { ?s ?p ?x.DEFINE input:inference "x" }`, "not a term"},
		{"define pragma", `DEFINE input:inference "x" SELECT * WHERE { ?s ?p ?o }`, "expected SELECT"},
		{"insert in a pattern", `SELECT * WHERE { ?s ?p ?o.INSERT DATA { <http://a> <http://b> <http://c> } }`, "expected object"},
		{"update", `INSERT DATA { <http://a> <http://b> <http://c> }`, "expected SELECT"},
		{"construct", `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`, "only SELECT and ASK"},
		{"bif function", `SELECT * WHERE { ?s ?p ?o FILTER(bif:getenv("x")) }`, "not a SPARQL 1.1 built-in"},
		{"declared bif function", `PREFIX bif: <bif:> SELECT * WHERE { ?s ?p ?o FILTER(bif:contains(?o, "x")) }`, "not a SPARQL 1.1 built-in"},
		{"extension function", `PREFIX f: <http://x/> SELECT * WHERE { ?s ?p ?o FILTER(f:g(?o)) }`, "not a SPARQL 1.1 built-in"},
		{"undeclared prefix", `SELECT * WHERE { ?s sql:x ?o }`, "undeclared prefix"},
		{"base", `BASE <http://x/> SELECT * WHERE { ?s <p> ?o }`, "BASE"},
		{"relative IRI", `SELECT * WHERE { ?s <p> ?o }`, "not absolute"},
		{"triple term", `SELECT * WHERE { <<( ?s ?p ?o )>> ?q ?r }`, ""},
		{"garbage", `SELECT * WHERE { ?s ?p ?o ) ) }`, ""},
		{"chained update", `SELECT * WHERE { ?s ?p ?o } ; DROP ALL`, "one query per request"},
		{"escaped chain", `SELECT * WHERE { ?s ?p ?o } \u003B DELETE WHERE { ?s ?p ?o }`, "one query per request"},
		// What the gate would otherwise have to drop is refused: the
		// client would get an answer to another query.
		{"trailing text and its limit", `SELECT * WHERE { ?s ?p ?o } garbage LIMIT 1`, "text after the query"},
		{"trailing text after the limit", `SELECT * WHERE { ?s ?p ?o } LIMIT 1 garbage`, "text after the query"},
		{"trailing order key", `SELECT * WHERE { ?s ?p ?o } ORDER BY ?s ] LIMIT 1`, "text after the query"},
		{"trailing brace", `SELECT * WHERE { ?s ?p ?o } } LIMIT 1`, "text after the query"},
		{"trailing VALUES", `SELECT * WHERE { ?s ?p ?o } VALUES ?s { <http://a> }`, "text after the query"},
		{"from", `SELECT * FROM <http://g/> WHERE { ?s ?p ?o } LIMIT 1`, "FROM"},
		{"from named", `SELECT * FROM NAMED <http://g/> WHERE { ?s ?p ?o } LIMIT 1`, "FROM"},
		{"lower-case from", `ask from <http://g/> { ?s ?p ?o }`, "FROM"},
		{"escaped from", `SELECT * \u0046ROM <http://g/> WHERE { ?s ?p ?o }`, "FROM"},
		{"negative limit", `SELECT * WHERE { ?s ?p ?o } LIMIT -1`, `LIMIT takes a whole number of rows (0 or more), got "-1"`},
		{"word for a limit", `SELECT * WHERE { ?s ?p ?o } LIMIT ten`, `LIMIT takes a whole number of rows (0 or more), got "ten"`},
		{"fraction for a limit", `SELECT * WHERE { ?s ?p ?o } LIMIT 1.5`, `LIMIT takes a whole number of rows (0 or more), got "1.5"`},
		{"missing limit", `SELECT * WHERE { ?s ?p ?o } LIMIT`, `LIMIT takes a whole number of rows (0 or more), got nothing`},
		{"negative offset", `SELECT * WHERE { ?s ?p ?o } OFFSET -3`, `OFFSET takes a whole number of rows (0 or more), got "-3"`},
		{"huge limit", `SELECT * WHERE { ?s ?p ?o } LIMIT 99999999999999999999`, `LIMIT is larger than`},
		{"subquery limit", `SELECT * WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT -2 } }`, `LIMIT takes a whole number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := sparqlgate.Parse(tt.in)
			require.Error(t, err, "accepted as %v", q)
			assert.ErrorIs(t, err, sparqlgate.ErrRefused)
			assert.Contains(t, err.Error(), tt.why)
		})
	}
}

// A query the lenient parser reads with something after its end, or with a
// \u escape that closes a string, is forwarded only as the gate read it.
func TestParseForwardsOnlyWhatItRead(t *testing.T) {
	for name, in := range map[string]string{
		"trailing service": `SELECT * WHERE { ?s ?p ?o } LIMIT 1 garbage SERVICE <http://x/>`,
		"escaped quote":    `SELECT * WHERE { ?s ?p "\u0022 . } SERVICE <http://x/> {?a ?b ?c} #" }`,
	} {
		t.Run(name, func(t *testing.T) {
			q, err := sparqlgate.Parse(in)
			if err != nil {
				require.ErrorIs(t, err, sparqlgate.ErrRefused)
				return
			}
			assertHarmless(t, q.String())
		})
	}
}

func TestCapRows(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT * { ?s ?p ?o }`:           `SELECT * WHERE { ?s ?p ?o . } LIMIT 11`,
		`SELECT * { ?s ?p ?o } LIMIT 5`:   `SELECT * WHERE { ?s ?p ?o . } LIMIT 5`,
		`SELECT * { ?s ?p ?o } LIMIT 500`: `SELECT * WHERE { ?s ?p ?o . } LIMIT 11`,
		`ASK { ?s ?p ?o }`:                `ASK WHERE { ?s ?p ?o . }`,
	} {
		q, err := sparqlgate.Parse(in)
		require.NoError(t, err)
		q.CapRows(11)
		assert.Equal(t, want, q.String(), in)
	}
}

func TestBounded(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"connected", ns + `SELECT * { ?a ns:p ?x . ?x ns:q ?y }`, true},
		{"issue repro", ns + `SELECT (COUNT(*) AS ?n) WHERE { ?a ns:type.object.name ?x . ?b ns:type.object.name ?y . ?c ns:type.object.name ?z }`, false},
		{"product across groups", ns + `SELECT * { ?a ns:p ?x { ?b ns:p ?y } }`, false},
		{"product with optional", ns + `SELECT * { ?a ns:p ?x OPTIONAL { ?b ns:p ?y } }`, false},
		{"optional shares", ns + `SELECT * { ?a ns:p ?x OPTIONAL { ?x ns:p ?y } }`, true},
		{"union", ns + `SELECT * { { ?a ns:p ?x } UNION { ?b ns:q ?y } }`, true},
		{"minus", ns + `SELECT * { ?a ns:p ?x MINUS { ?a ns:q ?x } }`, false},
		{"constant triple", ns + `SELECT * { ns:a ns:p ns:b . ?a ns:p ?x }`, true},
		{"product in a sub-query", ns + `SELECT * { { SELECT * { ?a ns:p ?x . ?b ns:p ?y } } }`, false},
		// A part of one row pairs each row with itself alone.
		{"GrailQA 2101960008000: a one-row VALUES", `PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> PREFIX : <http://rdf.freebase.com/ns/> 
SELECT (?x0 AS ?value) WHERE {
SELECT DISTINCT ?x0  WHERE { 
?x0 :type.object.type :theater.play . 
VALUES ?x1 { :m.0yrlqjm } 
?x0 :theater.play.productions ?x1 . 
FILTER ( ?x0 != ?x1  )
}
}`, true},
		{"VALUES of two rows sharing nothing", ns + `SELECT * { ?a ns:p ?x . VALUES ?y { ns:b ns:c } }`, false},
		// The group is connected; only its written order pairs every
		// distance unit with every measurement system, and the gate sends
		// it in connected order.
		{"GrailQA 3205368004000: connected once ordered", `PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> PREFIX : <http://rdf.freebase.com/ns/> 
SELECT (?x0 AS ?value) WHERE {
SELECT DISTINCT ?x0  WHERE { 
?x0 :type.object.type :measurement_unit.distance_unit . 
?x1 :type.object.type :measurement_unit.measurement_system . 
VALUES ?x2 { :m.02p14f_ } 
?x0 :measurement_unit.distance_unit.measurement_system ?x1 . 
?x1 :measurement_unit.measurement_system.weight_units ?x2 . 
FILTER ( ?x0 != ?x1 && ?x0 != ?x2 && ?x1 != ?x2  )
}
}`, true},
		{"two VALUES and a group connected once ordered", ns + `SELECT * { ?x0 ns:t ns:a . VALUES ?x1 { ns:b } ?x2 ns:t ns:c . VALUES ?x3 { ns:d } ?x1 ns:r ?x0 . ?x2 ns:s ?x0 . ?x3 ns:u ?x2 }`, true},
		{"WebQTrn-2513: an aggregate without GROUP BY", ns + `SELECT DISTINCT  ?x
WHERE {
    {
      SELECT ?x (COUNT(?x) as ?count)
      WHERE {
          ns:m.02_p0 ns:sports.sports_award_type.winners ?y .
          ?y ns:sports.sports_award.award_winner ?x .
      }
    }
    {
      SELECT (MAX(?count) AS ?maxCount)
      WHERE {
        SELECT ?x (COUNT(?x) as ?count) 
        WHERE {
          ns:m.02_p0 ns:sports.sports_award_type.winners ?y .
          ?y ns:sports.sports_award.award_winner ?x .
        }
      }
    }
    FILTER (?maxCount = ?count)
}`, true},
		{"an aggregate with GROUP BY", ns + `SELECT * { ?a ns:p ?x { SELECT ?y (COUNT(?z) AS ?n) { ?y ns:q ?z } GROUP BY ?y } }`, false},
		{"a sub-query of one row", ns + `SELECT * { ?a ns:p ?x { SELECT ?y { ?y ns:q ?z } ORDER BY ?z LIMIT 1 } }`, true},
		// The sub-query's ?x and ?y are its own: every row of the outer
		// pattern meets every start date of a presidency.
		{"WebQTrn-316: a sub-query that shares nothing", `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT DISTINCT ?x
WHERE {
  {
    SELECT ?pFrom 
    WHERE {
      ns:m.0gzh ns:government.politician.government_positions_held ?y .  
      ?y ns:government.government_position_held.office_position_or_title ?x ; 
         ns:government.government_position_held.basic_title ns:m.060c4 ;  
         ns:government.government_position_held.from ?pFrom .
    }
  }
  ns:m.0gzh ns:government.politician.government_positions_held ?y .  
  ?y ns:government.government_position_held.office_position_or_title ?x ; 
     ns:government.government_position_held.from ?from .
  FILTER(xsd:dateTime(?pFrom) - xsd:dateTime(?from) > 0)
}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := sparqlgate.Parse(tt.in)
			require.NoError(t, err)
			if tt.ok {
				assert.NoError(t, q.Bounded())
				return
			}
			assert.ErrorIs(t, q.Bounded(), sparqlgate.ErrRefused)
		})
	}
	var b strings.Builder
	b.WriteString(`SELECT * { ?s ?p ?o VALUES ?o {`)
	for range sparqlgate.MaxValues + 1 {
		b.WriteString(` 1`)
	}
	b.WriteString(` } }`)
	q, err := sparqlgate.Parse(b.String())
	require.NoError(t, err)
	assert.ErrorIs(t, q.Bounded(), sparqlgate.ErrRefused)
}
