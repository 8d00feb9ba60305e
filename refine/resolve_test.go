package refine

import (
	"testing"

	"github.com/parog/parog-go/kgqa/kg"
	"github.com/stretchr/testify/assert"
)

func TestResolve(t *testing.T) {
	france := kg.Term{ID: "m.0f8l9c", Name: "France"}
	germany := kg.Term{ID: "m.0345h", Name: "Germany"}
	date := kg.Term{Name: "2014-10-29", Datatype: "http://www.w3.org/2001/XMLSchema#date"}
	facts := []kg.Fact{
		{Head: france, Path: []string{"location.location.adjoin_s"}, Dir: kg.Out, Tail: germany},
		{Head: france, Path: []string{"time.event.end_date"}, Dir: kg.Out, Tail: date},
	}
	cases := []struct {
		name     string
		refs     []string
		want     []kg.Term
		rejected []string
	}{
		{"bare id", []string{"m.0345h"}, []kg.Term{germany}, nil},
		{"rendered term", []string{"Germany [m.0345h]"}, []kg.Term{germany}, nil},
		{"bracketed id", []string{"[m.0345h]"}, []kg.Term{germany}, nil},
		{"unique name", []string{"germany"}, []kg.Term{germany}, nil},
		{"quoted literal as rendered", []string{`"2014-10-29" (date)`}, []kg.Term{date}, nil},
		{"plain literal", []string{"2014-10-29"}, []kg.Term{date}, nil},
		{"duplicates collapse", []string{"m.0345h", "Germany"}, []kg.Term{germany}, nil},
		{"entity not in evidence", []string{"m.059j2", "Netherlands"}, nil, []string{"m.059j2", "Netherlands"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, rej := Resolve(facts, c.refs)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.rejected, rej)
		})
	}
}

// A KG name with a typographic apostrophe resolves from the ASCII spelling
// a model writes (naming.Fold).
func TestResolveFoldsPunctuation(t *testing.T) {
	ivory := kg.Term{ID: "m.0fv4v", Name: "Côte d’Ivoire"}
	got, rej := Resolve([]kg.Fact{{Head: kg.Term{ID: "m.0f8l9c", Name: "France"}, Path: []string{"location.location.adjoin_s"}, Dir: kg.Out, Tail: ivory}},
		[]string{"Côte d'Ivoire"})
	assert.Equal(t, []kg.Term{ivory}, got, "the ASCII apostrophe names the entity")
	assert.Empty(t, rej)
}
