package compile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
	"github.com/parog/parog-go/kgqa/kg"
)

// TestTimeConditionForms: an open-ended time condition prints as the gold
// queries write it; a closed one needs the date; a date that is none is
// refused.
func TestTimeConditionForms(t *testing.T) {
	d := kg.Freebase(kg.DialectOptions{})
	find := func(q compile.Qualifier) *compile.Query {
		return &compile.Query{Answer: "s1", Nodes: []compile.Node{{ID: "s1", Op: kgqa.OpFind, Anchors: []string{"m.0c2yrf"},
			Paths:      []compile.Path{{{Relation: "sports.pro_athlete.teams", Dir: kgqa.Out, Mediator: true}, {Relation: "sports.sports_team_roster.team", Dir: kgqa.Out}}},
			Qualifiers: []compile.Qualifier{q}}}}
	}
	out, err := compile.Compile(find(compile.Qualifier{Relation: "sports.sports_team_roster.to", Cmp: ">=", Value: "2015-08-10", Open: true}), d)
	require.NoError(t, err)
	assert.Contains(t, out, `FILTER(NOT EXISTS { ?m1 ns:sports.sports_team_roster.to ?d2 } || EXISTS { ?m1 ns:sports.sports_team_roster.to ?d3 . FILTER(xsd:dateTime(?d3) >= "2015-08-10"^^xsd:dateTime) })`)
	out, err = compile.Compile(find(compile.Qualifier{Relation: "sports.sports_team_roster.from", Cmp: "<", Value: "2009"}), d)
	require.NoError(t, err)
	assert.Contains(t, out, "?m1 ns:sports.sports_team_roster.from ?d2 .\n")
	assert.Contains(t, out, `FILTER(xsd:dateTime(?d2) < "2009-01-01"^^xsd:dateTime)`)
	assert.NotContains(t, out, "NOT EXISTS")
	for _, bad := range []compile.Qualifier{
		{Relation: "sports.sports_team_roster.from", Cmp: "<", Value: `2009") || true || ("`},
		{Relation: "sports.sports_team_roster.from", Cmp: "!=", Value: "2009"},
	} {
		_, err := compile.Compile(find(bad), d)
		assert.ErrorIs(t, err, compile.ErrInvalid)
	}
}
