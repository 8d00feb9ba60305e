package demokg_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg/demokg"
)

func planSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(engine.PlanSchema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("plan.schema.json", doc))
	s, err := c.Compile("plan.schema.json")
	require.NoError(t, err)
	return s
}

// TestGoldPlans: every gold plan parses strictly, validates against the
// published schema, is version 1, and contains the question's own kind.
func TestGoldPlans(t *testing.T) {
	schema := planSchema(t)
	sets := map[string][]dataset.DemoRecord{
		"freebase": demokg.FreebaseQuestions(),
		"wikidata": demokg.WikidataQuestions(),
	}
	for name, qs := range sets {
		for _, q := range qs {
			t.Run(name+"/"+q.ID, func(t *testing.T) {
				p, err := kgqa.ParsePlan(q.Plan)
				require.NoError(t, err)
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(q.Plan))
				require.NoError(t, err)
				require.NoError(t, schema.Validate(inst))

				var raw struct {
					Version int `json:"version"`
				}
				require.NoError(t, json.Unmarshal(q.Plan, &raw))
				assert.Equal(t, kgqa.PlanVersion, raw.Version)

				kinds := p.Kinds()
				if q.Type == string(kgqa.KindLinear) {
					assert.Equal(t, []kgqa.Kind{kgqa.KindLinear}, kinds)
				} else {
					assert.Contains(t, kinds, kgqa.Kind(q.Type))
				}
				for i, s := range p.Subgoals {
					for _, n := range s.Needs {
						ref := "#" + strings.TrimPrefix(n, "s")
						assert.Contains(t, s.Text, ref, "subgoal %s needs %s but does not name %s", s.ID, n, ref)
					}
					if i > 0 && len(s.Needs) == 0 {
						assert.NotContains(t, s.Text, "#", "subgoal %s refers to a result it does not need", s.ID)
					}
				}
			})
		}
	}
}

func TestPaperConjunctionPlanIsNonLinear(t *testing.T) {
	for _, q := range demokg.FreebaseQuestions() {
		if q.ID != "demo-01" {
			continue
		}
		p, err := kgqa.ParsePlan(q.Plan)
		require.NoError(t, err)
		order, err := p.Order()
		require.NoError(t, err)
		require.Len(t, order, 4)
		// The two finds from France and from Nijmegen are independent, so an
		// executor can run them concurrently.
		assert.Empty(t, p.Subgoals[0].Needs)
		assert.Empty(t, p.Subgoals[1].Needs)
		assert.Equal(t, kgqa.OpIntersect, p.Subgoals[len(p.Subgoals)-1].Op)
		return
	}
	t.Fatal("demo-01 not found")
}
