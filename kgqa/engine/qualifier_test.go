package engine

import (
	"context"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatedTimes(t *testing.T) {
	cases := []struct {
		name string
		args kgqa.Args
		text string
		want []string
	}{
		{"year in attribute and text", kgqa.Args{Attribute: "population in 2019", Cmp: ">", Value: "50000000"}, "Find which of #1 had a population of more than 50 million in 2019.", []string{"2019"}},
		{"the reference value is compared, not a qualifier", kgqa.Args{Attribute: "start date", Cmp: ">", Value: "2015-12-31"}, "Find which of #1 started after 2015.", nil},
		{"a bare reference year", kgqa.Args{Attribute: "release date", Cmp: "<", Value: "1995"}, "Find which of #1 was released before 1995.", nil},
		{"full date", kgqa.Args{Attribute: "population", Order: "max"}, "Find which of #1 had the most people on 2019-06-30.", []string{"2019-06-30"}},
		{"year-month", kgqa.Args{Attribute: "GDP", Order: "max"}, "Find which of #1 had the largest GDP in 2018-03.", []string{"2018-03"}},
		{"numbers that are not years", kgqa.Args{Attribute: "elevation", Cmp: ">", Value: "4600"}, "Find which of #1 is above 4,600 metres, or 12000 feet, or 4600 m.", nil},
		{"two years", kgqa.Args{Attribute: "population", Cmp: ">", Value: "1000000"}, "Find which of #1 grew between 2010 and 2019.", []string{"2010", "2019"}},
		{"decimals are not years", kgqa.Args{Attribute: "ratio", Order: "max"}, "Find which of #1 has a ratio above 2019.5 or 1.2019.", nil},
		{"no time", kgqa.Args{Attribute: "length", Order: "max"}, "Find which of #1 is the longest.", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, w := range statedTimes(c.args, c.text) {
				got = append(got, w.String())
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// qualify on Germany's population as the demo KG stores it: two
// dated_integer mediators (2010: 81,776,930; 2019: 83,132,799), each with
// a number, a year and a source.
func TestQualifyDatedPopulation(t *testing.T) {
	g := demoGraph(t)
	facts, err := g.Neighbors(context.Background(), "m.0345h", kgqa.Relation{ID: "location.statistical_region.population", Dir: kgqa.Out}, 0)
	require.NoError(t, err)
	require.Len(t, facts, 6, "two mediators of three facts")
	numbers := func(fs []kgqa.Fact) []string {
		var out []string
		for _, f := range fs {
			if v, ok := parseValue(f.Tail); ok {
				out = append(out, v.String())
			}
		}
		return out
	}
	cases := []struct {
		name  string
		args  kgqa.Args
		text  string
		want  []string
		note  string
		facts int
	}{
		{"stated year", kgqa.Args{Attribute: "population in 2010", Cmp: ">", Value: "1"}, "in 2010", []string{"8.177693e+07"}, "those of 2010 (1 of 2 mediators)", 2},
		{"no year: the latest", kgqa.Args{Attribute: "population", Order: "max"}, "the most populous", []string{"8.3132799e+07"}, "the latest", 2},
		{"a year with no value", kgqa.Args{Attribute: "population", Order: "max"}, "in 1990", nil, "those of 1990 (0 of 2 mediators)", 0},
		{"dates compared: unchanged", kgqa.Args{Attribute: "year", Order: "max"}, "the latest year", []string{"8.177693e+07", "2010-01-01", "8.3132799e+07", "2019-01-01"}, "", 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kept, note := qualify(facts, statedTimes(c.args, c.text), c.args)
			assert.ElementsMatch(t, c.want, numbers(kept))
			assert.Len(t, kept, c.facts, "values and sources of the chosen mediators")
			if c.note == "" {
				assert.Empty(t, note)
			} else {
				assert.Contains(t, note, c.note)
			}
		})
	}
}
