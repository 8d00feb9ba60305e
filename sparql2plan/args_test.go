package sparql2plan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
)

// TestConditionArgs: the conditions a gold query states reach the plan as
// structure, not only as text: a roster spot valid on WebQSP's "now"
// (WebQTrn-6), a text value (WebQTrn-3), a find from a literal
// (WebQTrn-1466). Such plans are version 2 and parse back strictly.
func TestConditionArgs(t *testing.T) {
	tests := []struct {
		name, gold string
		want       kgqa.Args
		op         kgqa.Op
		text       string
	}{
		{"time validity", webqTrn6, kgqa.Args{Valid: []kgqa.TimeCond{
			{Attribute: "from", Cmp: "<=", Value: "2015-08-10", Open: true},
			{Attribute: "to", Cmp: ">=", Value: "2015-08-10", Open: true}}}, kgqa.OpFind, "currently"},
		{"text value", webqTrn3, kgqa.Args{Attribute: "loc type", Cmp: "=", Value: "Country", Type: kgqa.TypeText}, kgqa.OpFilter, "Country"},
		{"find from a literal", webqTrn1466, kgqa.Args{Attribute: "common.topic.alias", Literal: "EU", Type: kgqa.TypeText}, kgqa.OpFind, "EU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ConvertQuery(tt.gold, nil)
			require.NoError(t, err)
			last := c.Plan.Subgoals[len(c.Plan.Subgoals)-1]
			assert.Equal(t, tt.op, last.Op)
			require.NotNil(t, last.Args)
			assert.Equal(t, tt.want, *last.Args)
			assert.Contains(t, last.Text, tt.text)
			assert.Equal(t, kgqa.PlanVersionConditions, c.Plan.Version)
			b, err := json.Marshal(c.Plan)
			require.NoError(t, err)
			back, err := kgqa.ParsePlan(b)
			require.NoError(t, err)
			assert.Equal(t, c.Plan, back)
		})
	}
	// A plan with no such condition stays version 1.
	c, err := ConvertQuery(fbPrefix+`SELECT DISTINCT ?x WHERE { ns:m.05nrg ns:location.location.contains ?x . }`, nil)
	require.NoError(t, err)
	assert.Equal(t, kgqa.PlanVersion, c.Plan.Version)
}
