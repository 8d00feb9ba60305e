package kg

import (
	"context"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/sparql2plan"
)

// conditionsGraph holds testdata/conditions.nt in the package's Virtuoso:
// the facts three WebQSP train questions read, with a distractor each
// that only their condition rules out.
const conditionsGraph = "urn:parog:conditions"

var conditionsLoad struct {
	once sync.Once
	err  error
}

func virtuosoWithConditions(t *testing.T) string {
	t.Helper()
	srv := virtuoso(t)
	conditionsLoad.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		file, err := filepath.Abs("testdata/conditions.nt")
		if err != nil {
			conditionsLoad.err = err
			return
		}
		conditionsLoad.err = srv.Load(ctx, conditionsGraph, file)
	})
	require.NoError(t, conditionsLoad.err, "load testdata/conditions.nt into Virtuoso")
	return srv.GraphURL(conditionsGraph)
}

// TestConditionGoldQueries takes one WebQSP train gold query per plan
// operation of version 2 (a time-validity condition on a mediator, a
// text value, a find from a literal), converts it, compiles the plan
// back, and runs both queries on the embedded store and on Virtuoso: the
// same answers, the expected ones, which the query without its
// condition does not give.
func TestConditionGoldQueries(t *testing.T) {
	const prefix = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"
	tests := []struct {
		id, gold, unconditioned string
		want                    []string
	}{
		{"WebQTrn-6", prefix + `SELECT DISTINCT ?x
WHERE {
FILTER (?x != ns:m.0c2yrf)
FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))
ns:m.0c2yrf ns:sports.pro_athlete.teams ?y .
?y ns:sports.sports_team_roster.team ?x .
FILTER(NOT EXISTS {?y ns:sports.sports_team_roster.from ?sk0} || 
EXISTS {?y ns:sports.sports_team_roster.from ?sk1 . 
FILTER(xsd:datetime(?sk1) <= "2015-08-10"^^xsd:dateTime) })
FILTER(NOT EXISTS {?y ns:sports.sports_team_roster.to ?sk2} || 
EXISTS {?y ns:sports.sports_team_roster.to ?sk3 . 
FILTER(xsd:datetime(?sk3) >= "2015-08-10"^^xsd:dateTime) })
}`, prefix + `SELECT DISTINCT ?x WHERE { ns:m.0c2yrf ns:sports.pro_athlete.teams ?y . ?y ns:sports.sports_team_roster.team ?x . }`,
			[]string{"entity:m.0jm74"}},
		{"WebQTrn-3", prefix + `SELECT DISTINCT ?x
WHERE {
FILTER (?x != ns:m.03st9j)
FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))
ns:m.03st9j ns:location.location.containedby ?x .
?x ns:base.biblioness.bibs_location.loc_type ?sk0 .
FILTER (str(?sk0) = "Country")
}`, prefix + `SELECT DISTINCT ?x WHERE { ns:m.03st9j ns:location.location.containedby ?x . ?x ns:base.biblioness.bibs_location.loc_type ?sk0 . }`,
			[]string{"entity:m.0160w"}},
		{"WebQTrn-1466", "#MANUAL SPARQL\n" + prefix + `SELECT DISTINCT ?x
WHERE {
  ?x ns:common.topic.alias "EU"@en . 
}`, prefix + `SELECT DISTINCT ?x WHERE { ?x ns:common.topic.alias ?a . }`,
			[]string{"entity:m.02jxk"}},
	}
	emb := config.Default().KG
	emb.Backend, emb.Files, emb.CacheSize = "embedded", []string{"testdata/conditions.nt"}, 0
	virt := endpointConfig(virtuosoWithConditions(t))
	virt.CacheSize = 0
	backends := map[string]Graph{"embedded": openFixture(t, emb), "virtuoso": openFixture(t, virt)}
	for _, tt := range tests {
		c, err := sparql2plan.ConvertQuery(tt.gold, nil)
		require.NoError(t, err, tt.id)
		compiled, err := sparql2plan.CompilePlan(c.Steps)
		require.NoError(t, err, tt.id)
		require.Empty(t, sparql2plan.SameAlgebra(tt.gold, compiled), "%s compiled:\n%s", tt.id, compiled)
		gold, _ := sparql2plan.Normalize(tt.gold)
		for name, g := range backends {
			t.Run(tt.id+"/"+name, func(t *testing.T) {
				assert.Equal(t, tt.want, answerKeys(t, g, gold), "gold")
				assert.Equal(t, tt.want, answerKeys(t, g, compiled), "compiled:\n%s", compiled)
				assert.NotEqual(t, tt.want, answerKeys(t, g, tt.unconditioned), "the condition changes nothing here")
			})
		}
	}
}

// answerKeys runs query on g and keys its first variable's values.
func answerKeys(t *testing.T, g Graph, query string) []string {
	t.Helper()
	res, err := g.Select(context.Background(), query)
	require.NoError(t, err, query)
	require.NotEmpty(t, res.Vars)
	var got []string
	for _, row := range res.Rows {
		if term, ok := row[res.Vars[0]]; ok {
			got = append(got, answerKey(term.ID, term.Name))
		}
	}
	sort.Strings(got)
	return got
}
