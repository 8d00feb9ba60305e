package engine

import (
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseValueOrdersTypedLiterals(t *testing.T) {
	lit := func(v, dt string) kgqa.Term { return kgqa.Term{Name: v, Datatype: dt} }
	cases := []struct {
		name string
		a, b kgqa.Term
		want int
	}{
		{"dates", lit("2014-10-29", xsd+"date"), lit("2012-10-28", xsd+"date"), 1},
		{"gYear before date in that year", lit("2014", xsd+"gYear"), lit("2014-10-29", xsd+"date"), -1},
		{"dateTime", lit("2010-11-01T20:00:00Z", xsd+"dateTime"), lit("2010-11-01", xsd+"date"), 1},
		{"integers as numbers, not text", lit("9", xsd+"integer"), lit("10", xsd+"integer"), -1},
		{"decimal", lit("4634.5", xsd+"decimal"), lit("4634.5", xsd+"double"), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, ok := parseValue(c.a)
			require.True(t, ok)
			b, ok := parseValue(c.b)
			require.True(t, ok)
			got, ok := a.cmp(b)
			require.True(t, ok)
			assert.Equal(t, c.want, got)
		})
	}
	_, ok := parseValue(lit("about forty", ""))
	assert.False(t, ok, "text that is not a value falls back to the model")
	_, ok = parseValue(kgqa.Term{ID: "m.0345h", Name: "1990"})
	assert.False(t, ok, "an entity is not a value")
}

func TestExactSetLogic(t *testing.T) {
	de, fr, nl := kgqa.Term{ID: "m.0345h", Name: "Germany"}, kgqa.Term{ID: "m.0f8l9c", Name: "France"}, kgqa.Term{ID: "m.059j2", Name: "Netherlands"}
	unresolved := kgqa.Term{Name: "germany"} // a kept tentative name without id
	assert.Equal(t, []kgqa.Term{de}, intersect([][]kgqa.Term{{fr, de}, {nl, de}}))
	assert.Equal(t, []kgqa.Term{de}, intersect([][]kgqa.Term{{fr, de}, {unresolved}}), "names match when an id is missing")
	assert.Empty(t, intersect([][]kgqa.Term{{fr}, {nl}}))
	assert.Equal(t, []kgqa.Term{fr, de, nl}, union([][]kgqa.Term{{fr, de}, {de, nl}}))
}
