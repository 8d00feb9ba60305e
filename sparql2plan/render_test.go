package sparql2plan

import (
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ns = "PREFIX ns: <http://rdf.freebase.com/ns/> "

// TestRenderedText checks the subgoal texts a planner is trained on. Each
// case says why the wording is right for the query; names come from the
// Namer the way a dataset's topic entities supply them.
func TestRenderedText(t *testing.T) {
	names := map[string]string{"m.03_dwn": "Lou Seal", "m.05qtj": "Paris", "m.0f8l9c": "France", "m.0d060g": "Canada", "m.09c7w0": "United States"}
	namer := func(id string) string { return names[id] }
	tests := []struct {
		name, query string
		want        []string
	}{
		{
			// The mascot triple points at Lou Seal, so the team is its
			// subject: a reverse hop names the result by the relation's
			// own type (sports_team -> team) and reads "whose mascot".
			name:  "reverse hop names the subject type",
			query: ns + "SELECT ?c WHERE { ?c ns:sports.sports_team.team_mascot ns:m.03_dwn . }",
			want:  []string{"Find the teams whose mascot is Lou Seal."},
		},
		{
			// "contains" is a verb: France contains ?x reads "that France
			// contains", and the notable type m.01mp (Country, named by the
			// built-in table) becomes the noun.
			name:  "verb relation forward with a notable type",
			query: ns + "SELECT ?x WHERE { ns:m.0f8l9c ns:location.location.contains ?x . ?x ns:common.topic.notable_types ns:m.01mp . }",
			want:  []string{"Find the countries that France contains."},
		},
		{
			// A noun relation read forward is "the <relation> of <start>".
			name:  "noun relation forward",
			query: ns + "SELECT ?x WHERE { ns:m.0f8l9c ns:location.country.capital ?x . }",
			want:  []string{"Find the capital of France."},
		},
		{
			// ?y is a mediator (position held): the two triples are one
			// fact, named by the relation into it, with the office holder
			// as the role; the title constant is a qualifier and the two
			// dump-date filters mean "currently". The title has no name
			// in the record: a neutral phrase, not its MID.
			name: "mediator hop with qualifiers",
			query: ns + `SELECT ?x WHERE { ns:m.0f8l9c ns:government.governmental_jurisdiction.governing_officials ?y .
				?y ns:government.government_position_held.office_holder ?x .
				?y ns:government.government_position_held.office_position_or_title ns:m.0j5wjnc .
				FILTER(NOT EXISTS {?y ns:government.government_position_held.from ?a} || EXISTS {?y ns:government.government_position_held.from ?b . FILTER(xsd:datetime(?b) <= "2015-08-10"^^xsd:dateTime) }) }`,
			want: []string{"Find the office holder in the governing officials of France with office position or title a specific entity, currently."},
		},
		{
			// The mediator is entered from the answer's side: the result is
			// the country whose anthem fact leads to the anthem entity;
			// "anthem" is already said by "national anthem".
			name:  "reverse mediator hop",
			query: ns + "SELECT ?c WHERE { ?c ns:location.country.national_anthem ?k . ?k ns:government.national_anthem_of_a_country.anthem ns:m.05qtj . }",
			want:  []string{"Find the countries whose national anthem is Paris."},
		},
		{
			// Two independent conditions on ?x: two finds and an
			// intersection, which reads as a question over #1. adjoin_s
			// reads "adjoins", a verb, and nothing types its objects.
			name:  "conjunction",
			query: ns + "SELECT ?x WHERE { ns:m.0f8l9c ns:location.location.adjoin_s ?x . ?x ns:location.country.capital ns:m.05qtj . }",
			want:  []string{"Find the entities that France adjoins.", "Find the countries whose capital is Paris.", "Which of #1 are also in #2?"},
		},
		{
			// ORDER BY DESC(date) LIMIT 1 on the championships: a
			// superlative asked as a question, "latest" because the
			// attribute is a date.
			name: "superlative on a date",
			query: ns + `SELECT ?x WHERE { ?c ns:sports.sports_team.team_mascot ns:m.03_dwn . ?c ns:sports.sports_team.championships ?x .
				?x ns:time.event.start_date ?d . } ORDER BY DESC(xsd:datetime(?d)) LIMIT 1`,
			want: []string{"Find the teams whose mascot is Lou Seal.", "Find the championships of #1.", "Which of #2 has the latest start date?"},
		},
		{
			// "written" ends the relation's words: the works are written by
			// the author, not "the works written of".
			name:  "participle relation",
			query: ns + "SELECT ?x WHERE { ns:m.05qtj ns:book.author.works_written ?x . }",
			want:  []string{"Find the works written by Paris."},
		},
		{
			// Several VALUES rows are one set of anchors for one hop.
			name:  "VALUES with several rows",
			query: ns + "SELECT ?x WHERE { VALUES ?e { ns:m.0d060g ns:m.09c7w0 } ?e ns:location.country.capital ?x . }",
			want:  []string{"Find the capital of Canada or United States."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConvertQuery(tc.query, namer)
			require.NoError(t, err)
			var got []string
			for _, s := range c.Plan.Subgoals {
				got = append(got, s.Text)
				assert.NotRegexp(t, `\b[mg]\.[0-9a-z_]{3,}\b`, s.Text, "no bare MID")
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestOptionalAndBindNeverChangeTheAnswer: OPTIONAL and BIND are dropped
// only when that cannot change the answer set; otherwise the query is
// refused with a reason.
func TestOptionalAndBindNeverChangeTheAnswer(t *testing.T) {
	tests := []struct {
		name, query, reason string
		steps               int
	}{
		{
			// The optional part only adds ?n; the answer ?x comes from the
			// main pattern, so the plan is the one hop.
			name:  "optional extra binding is dropped",
			query: ns + "SELECT ?x WHERE { ns:m.0f8l9c ns:location.country.capital ?x . OPTIONAL { ?x ns:type.object.name ?n } }",
			steps: 1,
		},
		{
			name:   "answer bound only inside OPTIONAL",
			query:  ns + "SELECT ?n WHERE { ns:m.0f8l9c ns:location.country.capital ?x . OPTIONAL { ?x ns:location.location.area ?n } }",
			reason: "unsupported: answer bound only by OPTIONAL",
		},
		{
			name:   "ordering by an OPTIONAL value",
			query:  ns + "SELECT ?x WHERE { ns:m.0f8l9c ns:location.location.contains ?x . OPTIONAL { ?x ns:location.location.area ?a } } ORDER BY DESC(?a) LIMIT 1",
			reason: "unsupported: constraint on a value bound only by OPTIONAL",
		},
		{
			// BIND of a variable no triple, filter or projection uses is
			// inert.
			name:  "unused BIND is dropped",
			query: ns + "SELECT ?x WHERE { ns:m.0f8l9c ns:location.country.capital ?x . BIND(1 AS ?one) }",
			steps: 1,
		},
		{
			name:   "BIND value compared",
			query:  ns + "SELECT ?x WHERE { ns:m.0f8l9c ns:location.location.contains ?x . ?x ns:location.location.area ?a . BIND(?a * 2 AS ?d) FILTER(?d > 10) }",
			reason: "unsupported: constraint on a value bound only by BIND",
		},
		{
			name:   "BIND value joined",
			query:  ns + "SELECT ?x WHERE { BIND(ns:m.0f8l9c AS ?f) ?f ns:location.country.capital ?x . }",
			reason: "unsupported: BIND value joined in a triple",
		},
		{
			name:   "VALUES set used beyond one hop",
			query:  ns + "SELECT ?x WHERE { VALUES ?e { ns:m.0d060g ns:m.09c7w0 } ?e ns:location.country.capital ?x . ?e ns:location.location.contains ns:m.05qtj . }",
			reason: "unsupported: VALUES set used beyond one hop",
		},
		{
			name:   "VALUES with several literal rows",
			query:  ns + `SELECT ?x WHERE { VALUES ?v { "a" "b" } ?x ns:common.topic.alias ?v . }`,
			reason: "unsupported: VALUES with several literal rows",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConvertQuery(tc.query, nil)
			if tc.reason != "" {
				require.Error(t, err)
				assert.Equal(t, tc.reason, FailureReason(err))
				return
			}
			require.NoError(t, err)
			assert.Len(t, c.Plan.Subgoals, tc.steps)
		})
	}
}

// TestPrimaryKind checks the paper-comparable type against plans whose type
// follows from the rule in PrimaryKind's documentation.
func TestPrimaryKind(t *testing.T) {
	find := func(id string, needs ...string) kgqa.Subgoal {
		return kgqa.Subgoal{ID: id, Op: kgqa.OpFind, Text: "x", Needs: needs}
	}
	op := func(id string, o kgqa.Op, needs ...string) kgqa.Subgoal {
		return kgqa.Subgoal{ID: id, Op: o, Text: "x", Needs: needs}
	}
	tests := []struct {
		name string
		subs []kgqa.Subgoal
		want kgqa.Kind
	}{
		// One hop from the topic entity.
		{"one hop", []kgqa.Subgoal{find("s1")}, kgqa.KindLinear},
		// Lou Seal -> team -> championships: the team must be found
		// before its championships, so the question composes two.
		{"multi-hop chain", []kgqa.Subgoal{find("s1"), find("s2", "s1")}, kgqa.KindComposition},
		// Counting a one-hop set asks nothing but that hop.
		{"count of one hop", []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpCount, "s1")}, kgqa.KindLinear},
		{"union of one-hop finds", []kgqa.Subgoal{find("s1"), find("s2"), op("s3", kgqa.OpUnion, "s1", "s2")}, kgqa.KindLinear},
		{"intersection", []kgqa.Subgoal{find("s1"), find("s2"), op("s3", kgqa.OpIntersect, "s1", "s2")}, kgqa.KindConjunction},
		// A find from a superlative's result: the nested sub-question
		// is followed further.
		{"find after superlative", []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpSuperlative, "s1"), find("s3", "s2")}, kgqa.KindComposition},
		{"find after intersection", []kgqa.Subgoal{find("s1"), find("s2"), op("s3", kgqa.OpIntersect, "s1", "s2"), find("s4", "s3")}, kgqa.KindComposition},
		{"superlative of a chain", []kgqa.Subgoal{find("s1"), find("s2", "s1"), op("s3", kgqa.OpSuperlative, "s2")}, kgqa.KindSuperlative},
		{"comparative", []kgqa.Subgoal{find("s1"), op("s2", kgqa.OpCompare, "s1")}, kgqa.KindComparative},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &kgqa.Plan{Version: kgqa.PlanVersion, Subgoals: tc.subs}
			require.NoError(t, p.Validate())
			assert.Equal(t, tc.want, PrimaryKind(p))
		})
	}
}
