package retrieval

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var budgets = Budgets{Width: 3, Depth: 2, Relations: 3, FactsPerPair: 20, FactsPerPrompt: 60, TruncateNeighbors: true}

// TestEachRule checks every rule of the default table on a subgoal that
// has its category: the parameter it sets, the value, the reason tag.
func TestEachRule(t *testing.T) {
	table, err := Parse(nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		s      Subgoal
		check  func(t *testing.T, p Pack)
		param  string
		reason string
	}{
		{"count_needs_full_set", Subgoal{Text: "Find the children of #1", Op: "find", Needs: 1, Feeds: []string{"count"}},
			func(t *testing.T, p Pack) { assert.False(t, p.TruncateNeighbors) }, ParamTruncate, "count_needs_full_set"},
		{"superlative_needs_full_set", Subgoal{Text: "Find the films of Tom Hanks", Op: "find", Feeds: []string{"superlative"}},
			func(t *testing.T, p Pack) { assert.False(t, p.TruncateNeighbors) }, ParamTruncate, "superlative_needs_full_set"},
		{"comparative_needs_full_set", Subgoal{Text: "Find the rivers of France", Op: "find", Feeds: []string{"compare"}},
			func(t *testing.T, p Pack) { assert.False(t, p.TruncateNeighbors) }, ParamTruncate, "comparative_needs_full_set"},
		{"temporal_qualifier truncation", Subgoal{Text: "Find who was president of France in 1990", Op: "find"},
			func(t *testing.T, p Pack) { assert.False(t, p.TruncateNeighbors) }, ParamTruncate, "temporal_qualifier"},
		{"temporal_qualifier facts", Subgoal{Text: "Find when Rome was founded", Op: "find"},
			func(t *testing.T, p Pack) { assert.Equal(t, 40, p.FactsPerPair) }, ParamFactsPerPair, "temporal_qualifier"},
		{"conjunction_needs_full_set", Subgoal{Text: "Find the films of Tom Hanks", Op: "find", Feeds: []string{"intersect"}},
			func(t *testing.T, p Pack) { assert.False(t, p.TruncateNeighbors) }, ParamTruncate, "conjunction_needs_full_set"},
		{"composition_hop_per_subgoal", Subgoal{Text: "Find the capital of #1", Op: "find", Needs: 1},
			func(t *testing.T, p Pack) { assert.Equal(t, 1, p.Depth) }, ParamDepth, "composition_hop_per_subgoal"},
		{"composition_two_relations", Subgoal{Text: "Find the nearby airports of the capital of #1.", Op: "find", Needs: 1},
			func(t *testing.T, p Pack) { assert.Equal(t, 2, p.Depth) }, ParamDepth, "composition_two_relations"},
		{"composition_two_relations merged", Subgoal{Text: "Find the director of Amélie, then find the place where them was born.", Op: "find", Feeds: []string{"find"}},
			func(t *testing.T, p Pack) { assert.Equal(t, 2, p.Depth) }, ParamDepth, "composition_two_relations"},
		{"place of birth is one relation", Subgoal{Text: "Find the place of birth of #1.", Op: "find", Needs: 1},
			func(t *testing.T, p Pack) { assert.Equal(t, 1, p.Depth) }, ParamDepth, "composition_hop_per_subgoal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := table.Pack(budgets, tc.s)
			tc.check(t, p)
			assert.Equal(t, tc.reason, p.Reasons[tc.param])
		})
	}
}

// TestEveryChoiceHasAReason checks that a pack gives a reason tag for each
// of its parameters, including those no rule set.
func TestEveryChoiceHasAReason(t *testing.T) {
	table, err := Parse(nil)
	require.NoError(t, err)
	p := table.Pack(budgets, Subgoal{Text: "Find the author of Dune", Op: "find"})
	assert.Empty(t, p.Categories)
	assert.Equal(t, Pack{
		Width: 3, Depth: 2, Relations: 3, FactsPerPair: 20, FactsPerPrompt: 60, TruncateNeighbors: true, Tentative: true, Prune: "auto",
		HubThreshold: 1000,
		Reasons: map[string]string{
			"width": "engine_budget", "depth": "engine_budget", "relations": "engine_budget", "facts_per_pair": "engine_budget",
			"facts_per_prompt": "engine_budget", "truncate_neighbors": "engine_budget", "tentative": "engine_budget", "prune": "engine_budget",
			"hub_threshold": "hub_entity_threshold",
		},
	}, p)
}

// TestRulePriority checks that the higher-priority category decides a
// parameter two categories set, and that a rule never switches truncation
// on when the engine does not truncate.
func TestRulePriority(t *testing.T) {
	table, err := Parse([]string{"composition.truncate_neighbors=true"})
	require.NoError(t, err)
	s := Subgoal{Text: "Find the children of #1", Op: "find", Needs: 1, Feeds: []string{"count"}}
	p := table.Pack(budgets, s)
	assert.Equal(t, []Category{Count, Composition}, p.Categories)
	assert.False(t, p.TruncateNeighbors)
	assert.Equal(t, "count_needs_full_set", p.Reasons[ParamTruncate])

	p = table.Pack(budgets, Subgoal{Text: "Find the capital of #1", Op: "find", Needs: 1})
	assert.True(t, p.TruncateNeighbors)
	assert.Equal(t, ReasonConfigOverride, p.Reasons[ParamTruncate])
	noCut := budgets
	noCut.TruncateNeighbors = false
	p = table.Pack(noCut, Subgoal{Text: "Find the capital of #1", Op: "find", Needs: 1})
	assert.False(t, p.TruncateNeighbors)
	assert.Equal(t, ReasonEngineBudget, p.Reasons[ParamTruncate])
}

func TestOverrides(t *testing.T) {
	table, err := Parse([]string{"count.depth=3", "temporal.tentative=false", " conjunction.prune = lexical ", "composition.depth=2"})
	require.NoError(t, err)
	p := table.Pack(budgets, Subgoal{Text: "Find the members of #1", Op: "find", Needs: 1, Feeds: []string{"count"}})
	assert.Equal(t, 3, p.Depth)
	assert.Equal(t, ReasonConfigOverride, p.Reasons[ParamDepth])
	p = table.Pack(budgets, Subgoal{Text: "Find when the Eiffel Tower was built", Op: "find"})
	assert.False(t, p.Tentative)
	assert.Equal(t, 40, p.FactsPerPair, "the table's other temporal rule stands")
	p = table.Pack(budgets, Subgoal{Text: "Find the films of Tom Hanks", Op: "find", Feeds: []string{"intersect"}})
	assert.Equal(t, PruneLexical, p.Prune)
	p = table.Pack(budgets, Subgoal{Text: "Find the capital of #1", Op: "find", Needs: 1})
	assert.Equal(t, 2, p.Depth, "the override replaces composition_hop_per_subgoal")

	for _, bad := range []struct{ rule, says string }{
		{"count", "CATEGORY.PARAM=VALUE"},
		{"count.depth", "CATEGORY.PARAM=VALUE"},
		{"linear.depth=2", "unknown category"},
		{"count.speed=2", "unknown parameter"},
		{"count.depth=0", "positive integer"},
		{"count.width=many", "positive integer"},
		{"count.tentative=maybe", "true or false"},
		{"count.prune=random", "auto, lexical or llm"},
	} {
		_, err := Parse([]string{bad.rule})
		require.Error(t, err, bad.rule)
		assert.Contains(t, err.Error(), bad.says, bad.rule)
	}
}

func TestCategories(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Subgoal
		want []Category
	}{
		{"a root find", Subgoal{Text: "Find the author of Dune", Op: "find"}, nil},
		{"a count", Subgoal{Text: "Count #1", Op: "count", Needs: 1}, []Category{Count}},
		{"a find that is counted", Subgoal{Text: "Find the children of Ann", Op: "find", Feeds: []string{"count"}}, []Category{Count}},
		{"a superlative", Subgoal{Text: "Find the tallest of #1", Op: "superlative", Needs: 1}, []Category{Superlative}},
		{"a compare", Subgoal{Text: "Keep those of #1 taller than 8000 m", Op: "compare", Needs: 1}, []Category{Comparative}},
		{"an intersect", Subgoal{Text: "Keep what #1 and #2 share", Op: "intersect", Needs: 2}, []Category{Conjunction}},
		{"a filter", Subgoal{Text: "Keep those of #1 that are rivers", Op: "filter", Needs: 1}, []Category{Conjunction}},
		{"a find from a result", Subgoal{Text: "Find the capital of #1", Op: "find", Needs: 1}, []Category{Composition}},
		{"a find followed further", Subgoal{Text: "Find the country of Rome", Op: "find", Feeds: []string{"find"}}, []Category{Composition}},
		{"a dated find", Subgoal{Text: "Find the team Jordan played for in the 1990s", Op: "find"}, []Category{Temporal}},
		{"several", Subgoal{Text: "Find when each of #1 was released", Op: "find", Needs: 1, Feeds: []string{"superlative"}},
			[]Category{Superlative, Temporal, Composition}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, SubgoalCategories(tc.s))
		})
	}
	assert.Equal(t, []Category{Count, Temporal}, QuestionCategories("How many films did she make before 2000?", []string{"count"}))
	assert.Empty(t, QuestionCategories("Who wrote Dune?", []string{"linear"}))
}

func TestIsTemporal(t *testing.T) {
	for q, want := range map[string]bool{
		"When did the Berlin Wall fall?":               true,
		"Who won the 1998 World Cup?":                  true,
		"Who is the current president of France?":      true,
		"Which team did he play for after the merger?": true,
		"What movies did Tom Hanks star in?":           false,
		"What is the area code of 90210?":              false,
		"Who wrote the Whenever song?":                 false,
	} {
		assert.Equal(t, want, IsTemporal(q), q)
	}
}

// FuzzIsTemporal holds IsTemporal's scans to the two regexps they stand
// for: a year as yearRE reads it anywhere, or a word of time among the
// runs of a-z of the lowered text.
func FuzzIsTemporal(f *testing.F) {
	for _, q := range []string{"When did the Berlin Wall fall?", "the 1990s", "x1998", "19988", "Ünited NOW", "kelvin \u212a", "2000s!", "a1b2c3d4"} {
		f.Add(q)
	}
	words := regexp.MustCompile(`[a-z]+`)
	f.Fuzz(func(t *testing.T, text string) {
		want := yearRE.MatchString(text)
		for _, w := range words.FindAllString(strings.ToLower(text), -1) {
			want = want || temporalWords[w]
		}
		if got := IsTemporal(text); got != want {
			t.Fatalf("IsTemporal(%q) = %v, the regexps say %v", text, got, want)
		}
	})
}

// TestHubCut checks the hub rule against the rules that need the full
// set: a find from a hub is cut, with or without the engine's result
// truncation; a set that is counted or ordered is not, and the pack's
// reason for keeping it whole is the one given; at or under the threshold
// nothing is a hub.
func TestHubCut(t *testing.T) {
	table, err := Parse([]string{"all.hub_threshold=50"})
	require.NoError(t, err)
	noTrunc := budgets
	noTrunc.TruncateNeighbors = false
	find := Subgoal{Text: "Find the people born in the United States", Op: "find"}
	counted := Subgoal{Text: "Find the films of Tom Hanks", Op: "find", Feeds: []string{"count"}}
	ordered := Subgoal{Text: "Find the rivers of France", Op: "superlative"}
	for _, tc := range []struct {
		name   string
		b      Budgets
		s      Subgoal
		n      int
		cut    bool
		reason string
	}{
		{"find from a hub", budgets, find, 51, true, "hub_entity_cap"},
		{"find from a hub, engine keeps lists whole", noTrunc, find, 51, true, "hub_entity_cap"},
		{"at the threshold", noTrunc, find, 50, false, ""},
		{"counted set from a hub", budgets, counted, 5000, false, "count_needs_full_set"},
		{"counted set, engine keeps lists whole", noTrunc, counted, 5000, false, "count_needs_full_set"},
		{"superlative from a hub", budgets, ordered, 5000, false, "superlative_needs_full_set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := table.Pack(tc.b, tc.s)
			assert.Equal(t, 50, p.HubThreshold)
			assert.Equal(t, "config_override", p.Reasons[ParamHubThreshold])
			cut, reason := p.HubCut(tc.n)
			assert.Equal(t, tc.cut, cut)
			assert.Equal(t, tc.reason, reason)
		})
	}
	def, err := Parse(nil)
	require.NoError(t, err)
	p := def.Pack(noTrunc, find)
	cut, _ := p.HubCut(DefaultHubThreshold)
	assert.False(t, cut, "the default threshold itself is no hub")
	cut, reason := p.HubCut(DefaultHubThreshold + 1)
	assert.True(t, cut)
	assert.Equal(t, "hub_entity_cap", reason)
	_, err = Parse([]string{"all.hub_threshold=0"})
	assert.ErrorContains(t, err, "not a positive integer")
	_, err = Parse([]string{"any.hub_threshold=10"})
	assert.ErrorContains(t, err, "unknown category")
}

// TestNamesTwoRelations checks the texts that bundle two hops against
// those that name one relation, from the demo plans and merged plans.
func TestNamesTwoRelations(t *testing.T) {
	for text, want := range map[string]bool{
		"Find the capital of #1.":                                                      false,
		"Find the country that contains Weeze Airport.":                                false,
		"Find the team whose mascot is Mr. Met.":                                       false,
		"Find the place where #1 was born.":                                            false,
		"Find the number of children of #1.":                                           false,
		"Find the place of birth of #1.":                                               false,
		"Find the mascot of the San Francisco Giants.":                                 false,
		"Find the currency of the capital of #1.":                                      true,
		"Find the capital of #1's country.":                                            true,
		"Find the team whose mascot is the brother of #1":                              true,
		"Find the country that contains Weeze Airport, then find the capital of them.": true,
	} {
		assert.Equal(t, want, NamesTwoRelations(text), text)
	}
	// Relation names with "of" in them name one relation.
	for _, text := range []string{"Find the instance of recurring competition of #1.", "Find the days of week of #1.", "Find the place of cremation of #1."} {
		assert.False(t, NamesTwoRelations(text), text)
	}
	// The words of an entity's name are no relation's: with the topic
	// entity named, its "of" does not make a second hop.
	for text, name := range map[string]string{
		"Find the measurement system of Tisch School of the Arts.": "Tisch School of the Arts",
		"Find the combatants of War of the Spanish Succession.":    "war of the spanish succession",
	} {
		assert.True(t, NamesTwoRelations(text), text)
		assert.False(t, NamesTwoRelations(text, "Weeze Airport", name), text)
	}
	assert.True(t, NamesTwoRelations("Find the currency of the capital of Tisch School of the Arts.", "Tisch School of the Arts"), "two relations stay two")
}

// A composition subgoal's pack takes a second hop only when its text
// names two relations once the topic entities' names are set aside.
func TestPackSetsTopicNamesAside(t *testing.T) {
	table, err := Parse(nil)
	require.NoError(t, err)
	base := Budgets{Width: 3, Depth: 2, Relations: 3, FactsPerPair: 5, FactsPerPrompt: 30}
	s := Subgoal{Text: "Find the measurement system of Tisch School of the Arts.", Op: "find", Feeds: []string{"find"}}
	s.Needs = 1
	assert.Equal(t, ReasonCompositionTwoRelations, table.Pack(base, s).Reasons[ParamDepth])
	s.Names = []string{"Tisch School of the Arts"}
	p := table.Pack(base, s)
	assert.Equal(t, ReasonCompositionHop, p.Reasons[ParamDepth])
	assert.Equal(t, 1, p.Depth)
}
