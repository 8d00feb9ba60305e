package engine

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The questions and plans are those of the generated dense-world
// questions (gen-comparative-7, -24, gen-composition-2, -9, -28,
// gen-superlative-15): each gold plan, and the plan a planner wrote wrong
// while keeping it valid.
func TestLintPlan(t *testing.T) {
	cases := []struct {
		name, question, plan string
		want                 string // "" when the plan fits
	}{
		{"comparison as asked", "Among the ski lifts Male is served by, which has a top elevation more than 385.505?",
			`{"subgoals":[{"id":"s1","text":"Find the ski lifts that Male is served by.","op":"find"},{"id":"s2","text":"Keep those of #1 whose top elevation is greater than 385.505.","needs":["s1"],"op":"compare","args":{"attribute":"top elevation","cmp":">","value":"385.505"}}]}`, ""},
		{"comparison reversed", "Among the ski lifts Male is served by, which has a top elevation more than 385.505?",
			`{"subgoals":[{"id":"s1","text":"Find the ski lifts that Male is served by.","op":"find"},{"id":"s2","text":"Keep those of #1 whose top elevation is smaller than 385.505.","needs":["s1"],"op":"compare","args":{"attribute":"top elevation","cmp":"<","value":"385.505"}}]}`,
			"compares with \"<\""},
		{"constraint dropped", "Among the temperature units of United States of America, which has a kelvins offset less than 0.509?",
			`{"subgoals":[{"id":"s1","text":"Find the temperature units of United States of America.","op":"find"}]}`,
			"no subgoal carries the question's 0.509"},
		{"a decimal is one value", "Which of the parents of Pete Seeger has a weight kg less than 1692.4?",
			`{"subgoals":[{"id":"s1","text":"Find the parents of Pete Seeger.","op":"find"},{"id":"s2","text":"Keep those of #1 whose weight kg is less than 1692.5.","needs":["s1"],"op":"compare","args":{"attribute":"weight kg","cmp":"<","value":"1692.5"}}]}`,
			"no subgoal carries the question's 1692.4"},
		{"date written more fully in the plan", "Among the quotations of Sylvia Sidney, which has a date after 1959-05?",
			`{"subgoals":[{"id":"s1","text":"Find the quotations of Sylvia Sidney.","op":"find"},{"id":"s2","text":"Keep those of #1 whose date is greater than 1959-05-01.","needs":["s1"],"op":"compare","args":{"attribute":"date","cmp":">","value":"1959-05-01"}}]}`, ""},
		{"dependency left out", "What is the currency in the personal income at current prices per capita of the gender of Tomoyuki Tanaka?",
			`{"subgoals":[{"id":"s1","text":"Find the gender of Tomoyuki Tanaka.","op":"find"},{"id":"s2","text":"Find the currency in the personal income at current prices per capita of #1.","op":"find"}]}`,
			"s2 uses #1 but does not need s1"},
		{"hops the wrong way round", "What is the religion in the historically used by religions of the nationality of Tim Armstrong?",
			`{"subgoals":[{"id":"s2","text":"Find the historically used by religions of #1.","op":"find"},{"id":"s1","text":"Find the nationality of Tim Armstrong.","needs":["s2"],"op":"find"}]}`,
			"s2 uses #1 but does not need s1"},
		{"hops as asked", "What is the religion in the historically used by religions of the nationality of Tim Armstrong?",
			`{"subgoals":[{"id":"s1","text":"Find the nationality of Tim Armstrong.","op":"find"},{"id":"s2","text":"Find the historically used by religions of #1.","needs":["s1"],"op":"find"}]}`, ""},
		{"two steps in one find", "What is the location in the places lived of the music of I Love You, Man?",
			`{"subgoals":[{"id":"s1","text":"Find the music of I Love You, Man, then find the location in the places lived of them.","op":"find"}]}`,
			"s1 bundles two steps"},
		{"superlative reversed", "Which of the serial installments of English Language has the largest installment number?",
			`{"subgoals":[{"id":"s1","text":"Find the serial installments of English Language.","op":"find"},{"id":"s2","text":"Which of #1 has the smallest installment number?","needs":["s1"],"op":"superlative","args":{"attribute":"installment number","order":"min"}}]}`,
			"takes the min"},
		{"superlative as asked", "Which of the serial installments of English Language has the largest installment number?",
			`{"subgoals":[{"id":"s1","text":"Find the serial installments of English Language.","op":"find"},{"id":"s2","text":"Which of #1 has the largest installment number?","needs":["s1"],"op":"superlative","args":{"attribute":"installment number","order":"max"}}]}`, ""},
		{"superlative dropped", "Which of the parents of George Burns has the smallest weight kg?",
			`{"subgoals":[{"id":"s1","text":"Find the parents of George Burns.","op":"find"}]}`,
			"asks for the smallest of something but no subgoal is a superlative"},
		{"an attribute named with an extreme", "What is the film rating system of each of Frost/Nixon's rating that has a minimum unaccompanied age that is less than 409522?",
			`{"subgoals":[{"id":"s1","text":"Find the rating of Frost/Nixon.","op":"find"},{"id":"s2","text":"Keep those of #1 whose minimum unaccompanied age is less than 409522.","needs":["s1"],"op":"compare","args":{"attribute":"minimum unaccompanied age","cmp":"<","value":"409522"}},{"id":"s3","text":"Find the film rating system of #2.","needs":["s2"],"op":"find"}]}`, ""},
		{"time in the find's text", "What was the place of worship in the places of worship historical of Male in 1838?",
			`{"subgoals":[{"id":"s1","text":"Find the places of worship historical of Male in 1838.","op":"find"}]}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p kgqa.Plan
			require.NoError(t, json.Unmarshal([]byte(c.plan), &p))
			p.Version = kgqa.PlanVersion
			require.NoError(t, p.Validate(), "the plan is valid: only the question can tell it is wrong")
			err := lintPlan(c.question, &p)
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// A plan the check questions twice is mended from its own words: the
// hops put the wrong way round (gen-composition-99), a comparison
// reversed (gen-comparative-14); a plan whose fault is not of those
// kinds (a superlative dropped) is not.
func TestMendPlan(t *testing.T) {
	cases := []struct {
		name, question, plan string
		want                 string // the mended plan's JSON; "" when it is not mended
	}{
		{"hops the wrong way round", "In the home venue for of the founder of Kryfox Seamupond, what is the team?",
			`{"subgoals":[{"id":"s2","text":"Find the team in the home venue for of #1.","op":"find"},{"id":"s1","text":"Find the founder of Kryfox Seamupond.","needs":["s2"],"op":"find"}]}`,
			`{"version":1,"answer":"s2","subgoals":[{"id":"s1","text":"Find the founder of Kryfox Seamupond.","op":"find"},{"id":"s2","text":"Find the team in the home venue for of #1.","needs":["s1"],"op":"find"}]}`},
		{"comparison reversed", "Among the category of Eva Longoria, which has a date discontinued before 1943-11-27?",
			`{"subgoals":[{"id":"s1","text":"Find the category of Eva Longoria.","op":"find"},{"id":"s2","text":"Keep those of #1 whose date discontinued is more than 1943-11-27.","needs":["s1"],"op":"compare","args":{"attribute":"date discontinued","cmp":">","value":"1943-11-27"}}]}`,
			`{"version":1,"subgoals":[{"id":"s1","text":"Find the category of Eva Longoria.","op":"find"},{"id":"s2","text":"Keep those of #1 whose date discontinued is less than 1943-11-27.","needs":["s1"],"op":"compare","args":{"attribute":"date discontinued","cmp":"<","value":"1943-11-27"}}]}`},
		{"superlative dropped", "Which of the parents of George Burns has the smallest weight kg?",
			`{"subgoals":[{"id":"s1","text":"Find the parents of George Burns.","op":"find"}]}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p kgqa.Plan
			require.NoError(t, json.Unmarshal([]byte(c.plan), &p))
			p.Version = kgqa.PlanVersion
			require.Error(t, lintPlan(c.question, &p))
			m, how := mendPlan(c.question, p)
			if c.want == "" {
				assert.Nil(t, m)
				return
			}
			require.NotNil(t, m, "mended")
			assert.NotEmpty(t, how)
			got, err := json.Marshal(m)
			require.NoError(t, err)
			assert.JSONEq(t, c.want, string(got))
		})
	}
}

// FuzzReadDirection holds the word sets' substring screen to the
// direction regexps written out whole: a screen that dropped a match
// would let a plan going the wrong way through.
func FuzzReadDirection(f *testing.F) {
	for _, q := range []string{"Which is TALLER than the Eiffel Tower?", "born after 1900", "the most recent film",
		"most  recent", "the smallest", "bigger  than", "lower than", "afterwards", "ſhorter than", "the \u212aelvin"} {
		f.Add(q)
	}
	res := [4]*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(more|greater|larger|higher|bigger|later|longer|taller|heavier) than\b|\b(after|above|exceeding|exceeds)\b`),
		regexp.MustCompile(`(?i)\b(less|fewer|smaller|lower|earlier|shorter|lighter) than\b|\b(before|below)\b`),
		regexp.MustCompile(`(?i)\b(largest|highest|greatest|biggest|latest|longest|tallest|heaviest|maximum|most recent)\b`),
		regexp.MustCompile(`(?i)\b(smallest|lowest|fewest|earliest|shortest|lightest|minimum)\b`),
	}
	f.Fuzz(func(t *testing.T, q string) {
		want := direction{res[0].MatchString(q), res[1].MatchString(q), res[2].MatchString(q), res[3].MatchString(q)}
		if got := readDirection(q); got != want {
			t.Fatalf("readDirection(%q) = %+v, the regexps say %+v", q, got, want)
		}
	})
}
