package prompts

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func samplePlan() PlanView {
	return PlanView{
		Question: "What country bordering France contains an airport that serves Nijmegen?",
		Subgoals: []SubgoalLine{
			{ID: "s1", Text: "Find the countries that border France.", Op: "find"},
			{ID: "s2", Text: "Find the airports that serve Nijmegen.", Op: "find"},
			{ID: "s3", Text: "Find the countries that contain #2.", Op: "find", Needs: "s2"},
			{ID: "s4", Text: "Which of #1 are also in #3?", Op: "intersect", Needs: "s1, s3"},
		},
		Current: "s3",
		Known:   []string{"s2: Weeze Airport; Eindhoven Airport"},
	}
}

// sampleData gives each stage data that exercises every field its
// template reads.
func sampleData() map[string]any {
	plan := samplePlan()
	facts := []string{"Weeze Airport [m.01] -[aviation: serves]-> Nijmegen [m.0yql28]"}
	return map[string]any{
		Plan:        PlanData{Question: plan.Question, Ops: []string{"find", "intersect"}},
		PlanFewShot: PlanData{Question: plan.Question, Ops: []string{"find", "intersect"}},
		Mentions:    MentionsData{Question: plan.Question},
		Tentative:   SubgoalData{Plan: plan, Subgoal: "Find the countries that contain Weeze Airport."},
		Relations: RelationsData{Plan: plan, Subgoal: "Find the countries that contain Weeze Airport.",
			Anchors: []string{"Weeze Airport [m.01]"}, Max: 3, Attribute: "",
			Out: []RelationGroup{{Type: "location.location", Names: []string{"containedby", "contains"}}},
			In:  []RelationGroup{{Type: "location.location", Names: []string{"contains"}}, {Names: []string{"shares border with (P47)"}}}},
		Prune:       PruneData{Plan: plan, Subgoal: "Find the countries.", Candidates: facts, Keep: 2},
		Refine:      RefineData{Plan: plan, Subgoal: "Find the countries.", Tentative: "Netherlands", Facts: facts, Fused: true},
		Sufficiency: SufficiencyData{Plan: plan, Facts: facts},
		Final:       SufficiencyData{Plan: plan, Facts: facts},
		Select:      SelectData{Plan: plan, Subgoal: "Which of #1 is largest?", Members: []string{"Germany [m.0345h]"}, Facts: facts},
		LQTAtoms:    LQTAtomsData{Question: plan.Question, Ops: []string{"find", "intersect"}},
		LQTRelation: LQTRelationData{Question: plan.Question, A: "Find the countries that contain #2.", B: "Find the airports that serve Nijmegen."},
		LQTMerge: LQTMergeData{Question: plan.Question, Tree: "Find the countries that contain #2.", Parent: "Find the countries that contain #2.",
			Child: "Find the airports that serve Nijmegen.", Subtree: "Find the airports that serve Nijmegen."},
		FollowUp: FollowUpData{History: []Turn{{Role: "user", Text: "Who founded Microsoft?"}, {Role: "assistant", Text: "Bill Gates"}},
			Message: "and his wife?"},
	}
}

func TestEveryStageRendersWithItsSchema(t *testing.T) {
	data := sampleData()
	for _, stage := range Names {
		t.Run(stage, func(t *testing.T) {
			d, ok := data[stage]
			require.True(t, ok, "the test has sample data for every stage")
			req, err := Builtin.Request("reasoner", stage, d)
			require.NoError(t, err)
			require.Len(t, req.Messages, 2)
			assert.Equal(t, "system", req.Messages[0].Role)
			assert.Equal(t, "user", req.Messages[1].Role)
			for _, m := range req.Messages {
				assert.NotEmpty(t, m.Content)
				assert.NotContains(t, m.Content, "<no value>", "a template reads a field the data lacks")
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(req.Schema))
			require.NoError(t, err)
			c := jsonschema.NewCompiler()
			require.NoError(t, c.AddResource(stage+".json", doc))
			_, err = c.Compile(stage + ".json")
			require.NoError(t, err, "the reply schema compiles")
		})
	}
}

func TestStageSeesTheWholePlan(t *testing.T) {
	// The relation filter must see every subgoal, not only the current
	// one: that is what lets it keep relations later steps need.
	msgs, err := Builtin.Render(Relations, sampleData()[Relations])
	require.NoError(t, err)
	all := msgs[0].Content + msgs[1].Content
	for _, s := range samplePlan().Subgoals {
		assert.Contains(t, all, s.Text)
	}
	assert.Contains(t, all, "- location.location: containedby, contains\n")
}

func TestRenderUnknownStage(t *testing.T) {
	_, err := Builtin.Render("nope", nil)
	require.Error(t, err)
}

func TestFactReadsMediatorAsOneFact(t *testing.T) {
	d := kg.Freebase(kg.DialectOptions{Language: "en"})
	f := kgqa.Fact{
		Head:     kgqa.Term{ID: "m.0f8l9c", Name: "France"},
		Path:     []string{"location.location.adjoin_s", "location.adjoining_relationship.adjoins"},
		Dir:      kgqa.Out,
		Mediator: "m.0cvt",
		Tail:     kgqa.Term{ID: "m.0345h", Name: "Germany"},
	}
	line := Fact(d, f)
	assert.True(t, strings.HasPrefix(line, "France [m.0f8l9c] -["), line)
	assert.True(t, strings.HasSuffix(line, "]-> Germany [m.0345h]"), line)
	assert.NotContains(t, line, "m.0cvt", "the mediator node is not shown")

	in := kgqa.Fact{Head: kgqa.Term{ID: "m.0yql28", Name: "Nijmegen"}, Path: []string{"aviation.airport.serves"}, Dir: kgqa.In,
		Tail: kgqa.Term{ID: "m.01", Name: "Weeze Airport"}}
	assert.Equal(t, "Weeze Airport [m.01] -["+d.Readable("aviation.airport.serves")+"]-> Nijmegen [m.0yql28]", Fact(d, in))
	assert.Equal(t, `"2014-10-29" (date)`, Term(kgqa.Term{Name: "2014-10-29", Datatype: "http://www.w3.org/2001/XMLSchema#date"}))
}

// A mediator reached against its incoming edge reads in the direction the
// edges point: Germany's border node is adjoined by France, so the fact
// reads from France to Germany, with the relations in that order.
func TestFactReadsSecondHopDirection(t *testing.T) {
	d := kg.Freebase(kg.DialectOptions{Language: "en"})
	germany := kgqa.Term{ID: "m.0345h", Name: "Germany"}
	france := kgqa.Term{ID: "m.0f8l9c", Name: "France"}
	adjoins, adjoinS := "location.adjoining_relationship.adjoins", "location.location.adjoin_s"
	cases := []struct {
		name string
		f    kgqa.Fact
		want string
	}{
		{"in then in is a chain from the tail",
			kgqa.Fact{Head: germany, Path: []string{adjoins, adjoinS}, Dir: kgqa.In, Dir2: kgqa.In, Mediator: "m.0cvt", Tail: france},
			"France [m.0f8l9c] -[location: adjoin s / adjoining relationship: adjoins]-> Germany [m.0345h]"},
		{"out then in names the reversed relation",
			kgqa.Fact{Head: france, Path: []string{adjoinS, adjoinS}, Dir: kgqa.Out, Dir2: kgqa.In, Mediator: "m.0cvt", Tail: germany},
			"France [m.0f8l9c] -[location: adjoin s / reverse of location: adjoin s]-> Germany [m.0345h]"},
		{"out then out is unchanged",
			kgqa.Fact{Head: france, Path: []string{adjoinS, adjoins}, Dir: kgqa.Out, Dir2: kgqa.Out, Mediator: "m.0cvt", Tail: germany},
			"France [m.0f8l9c] -[location: adjoin s / adjoining relationship: adjoins]-> Germany [m.0345h]"},
		{"an unset second direction reads as out",
			kgqa.Fact{Head: france, Path: []string{adjoinS, adjoins}, Dir: kgqa.Out, Mediator: "m.0cvt", Tail: germany},
			"France [m.0f8l9c] -[location: adjoin s / adjoining relationship: adjoins]-> Germany [m.0345h]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Fact(d, c.f))
		})
	}
}

// The few-shot planner asks for the same plan as the planner: one schema
// file serves both, and every stage has a schema.
func TestPlanSchemaIsOne(t *testing.T) {
	assert.Equal(t, string(Schema("plan")), string(Schema("plan_fewshot")))
	for _, stage := range Names {
		assert.NotEmpty(t, Schema(stage), stage)
	}
}

// propertyOrder is the order in which a schema lists its top-level
// properties (a map would lose it).
func propertyOrder(t *testing.T, schema []byte) []string {
	t.Helper()
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(schema, &top))
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	_, err := dec.Token() // {
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// TestReasonComesFirst: a model decodes a reply in the order the schema
// and the example give, so the reason is written before the verdict it
// justifies, not made up after it.
func TestReasonComesFirst(t *testing.T) {
	data := sampleData()
	withReason := 0
	for _, stage := range Names {
		keys := propertyOrder(t, Schema(stage))
		if !slices.Contains(keys, "reason") {
			continue
		}
		withReason++
		t.Run(stage, func(t *testing.T) {
			assert.Equal(t, "reason", keys[0], "the schema lists reason first: %v", keys)
			msgs, err := Builtin.Render(stage, data[stage])
			require.NoError(t, err)
			assert.Contains(t, msgs[0].Content, `{"reason":"...",`, "the reply example starts with the reason")
		})
	}
	assert.GreaterOrEqual(t, withReason, 5, "refine, sufficiency, final, relations and select replies carry a reason")
}

// TestRefineWorkedExamples: the refine prompt shows both sides of
// asymmetric trust, as replies that satisfy its own schema: aligned facts
// that contradict the tentative answer replace it, misaligned facts leave
// it standing. Without the first, a small model reads "contradicts my
// answer" as "misaligned" and keeps a wrong guess.
func TestRefineWorkedExamples(t *testing.T) {
	for _, fused := range []bool{false, true} {
		t.Run(map[bool]string{false: "separate", true: "fused"}[fused], func(t *testing.T) {
			msgs, err := Builtin.Render(Refine, RefineData{Plan: samplePlan(), Subgoal: "Find the countries.", Tentative: "Netherlands", Fused: fused})
			require.NoError(t, err)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema(Refine)))
			require.NoError(t, err)
			c := jsonschema.NewCompiler()
			require.NoError(t, c.AddResource("refine.json", doc))
			schema, err := c.Compile("refine.json")
			require.NoError(t, err)

			type example struct {
				tentative string
				reply     map[string]any
			}
			var examples []example
			tentative := ""
			for _, line := range strings.Split(msgs[0].Content, "\n") {
				if s, ok := strings.CutPrefix(line, "Tentative: "); ok {
					tentative = s
				}
				s, ok := strings.CutPrefix(line, "Reply: ")
				if !ok {
					continue
				}
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
				require.NoError(t, err, "an example reply is JSON: %s", s)
				require.NoError(t, schema.Validate(inst), "an example reply satisfies the schema: %s", s)
				var rep map[string]any
				require.NoError(t, json.Unmarshal([]byte(s), &rep))
				_, hasSufficient := rep["sufficient"]
				assert.Equal(t, fused, hasSufficient, "the example carries the sufficiency fields exactly when the call is fused")
				examples = append(examples, example{tentative: tentative, reply: rep})
			}
			require.Len(t, examples, 2)
			take, keep := examples[0], examples[1]
			assert.Equal(t, true, take.reply["aligned"], "contradicting but aligned evidence is aligned")
			assert.NotEqual(t, take.tentative, take.reply["answer"], "and it replaces the tentative answer")
			assert.NotEmpty(t, take.reply["entities"])
			assert.Equal(t, false, keep.reply["aligned"])
			assert.Equal(t, keep.tentative, keep.reply["answer"], "misaligned evidence leaves the tentative answer standing")
			assert.NotContains(t, msgs[0].Content, "Current subgoal:", "the examples do not use the task's own headings")
			assert.NotContains(t, msgs[0].Content, "Tentative answer:")
		})
	}
}

func TestExpandRefs(t *testing.T) {
	texts := []string{"Find the airports that serve Nijmegen.", "Find the countries that contain #1.", "Which of #2 border #2?", "Find #9 and #4."}
	assert.Equal(t, "Find the airports that serve Nijmegen.", ExpandRefs(texts, 0))
	assert.Equal(t, "Find the countries that contain #1 [Find the airports that serve Nijmegen.].", ExpandRefs(texts, 1))
	assert.Equal(t, "Which of #2 [Find the countries that contain #1 [Find the airports that serve Nijmegen.].] border #2 [Find the countries that contain #1 [Find the airports that serve Nijmegen.].]?", ExpandRefs(texts, 2))
	assert.Equal(t, "Find #9 and #4.", ExpandRefs(texts, 3), "out of range and self references stay as written")
	cyclic := []string{"Use #2.", "Use #1."}
	assert.Equal(t, "Use #2 [Use #1.].", ExpandRefs(cyclic, 0), "a cycle of references stops at the depth of the list")
}

// The offered relations a relations prompt renders read back as they went
// in, typed (Freebase) and untyped (Wikidata) groups, in both directions;
// a prompt with none reads back empty.
func TestReadRelationGroupsRoundTrip(t *testing.T) {
	data := sampleData()[Relations].(RelationsData)
	data.Out = append(data.Out, RelationGroup{Type: "people.person", Names: []string{"place_of_birth"}})
	req, err := Builtin.Request("reasoner", Relations, data)
	require.NoError(t, err)
	user := req.Messages[len(req.Messages)-1].Content
	out, in := ReadRelationGroups(user)
	assert.Equal(t, data.Out, out)
	assert.Equal(t, data.In, in)

	data.Out, data.In = nil, nil
	req, err = Builtin.Request("reasoner", Relations, data)
	require.NoError(t, err)
	out, in = ReadRelationGroups(req.Messages[len(req.Messages)-1].Content)
	assert.Empty(t, out)
	assert.Empty(t, in)
}

// A short first page says how many relations it leaves unshown, and that
// keeping none brings them; ReadMore reads the number back, and the
// relations still read back as they went in. A whole offer says neither.
func TestShortPageReadsBack(t *testing.T) {
	data := sampleData()[Relations].(RelationsData)
	req, err := Builtin.Request("reasoner", Relations, data)
	require.NoError(t, err)
	user := req.Messages[len(req.Messages)-1].Content
	assert.Zero(t, ReadMore(user))
	assert.NotContains(t, user, "keep none")

	data.More = 470
	req, err = Builtin.Request("reasoner", Relations, data)
	require.NoError(t, err)
	user = req.Messages[len(req.Messages)-1].Content
	assert.Equal(t, 470, ReadMore(user))
	assert.Contains(t, user, "keep none")
	out, in := ReadRelationGroups(user)
	assert.Equal(t, data.Out, out)
	assert.Equal(t, data.In, in)
}

// BenchmarkRender renders the stages every subgoal runs.
func BenchmarkRender(b *testing.B) {
	data := sampleData()
	for _, stage := range []string{Tentative, Relations, Refine, Prune, Sufficiency} {
		b.Run(stage, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Builtin.Render(stage, data[stage]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
