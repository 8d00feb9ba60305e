package refine

import (
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
)

func TestResolve(t *testing.T) {
	france := kgqa.Term{ID: "m.0f8l9c", Name: "France"}
	germany := kgqa.Term{ID: "m.0345h", Name: "Germany"}
	date := kgqa.Term{Name: "2014-10-29", Datatype: "http://www.w3.org/2001/XMLSchema#date"}
	facts := []kgqa.Fact{
		{Head: france, Path: []string{"location.location.adjoin_s"}, Dir: kgqa.Out, Tail: germany},
		{Head: france, Path: []string{"time.event.end_date"}, Dir: kgqa.Out, Tail: date},
	}
	cases := []struct {
		name     string
		refs     []string
		want     []kgqa.Term
		rejected []string
	}{
		{"bare id", []string{"m.0345h"}, []kgqa.Term{germany}, nil},
		{"rendered term", []string{"Germany [m.0345h]"}, []kgqa.Term{germany}, nil},
		{"bracketed id", []string{"[m.0345h]"}, []kgqa.Term{germany}, nil},
		{"unique name", []string{"germany"}, []kgqa.Term{germany}, nil},
		{"quoted literal as rendered", []string{`"2014-10-29" (date)`}, []kgqa.Term{date}, nil},
		{"plain literal", []string{"2014-10-29"}, []kgqa.Term{date}, nil},
		{"duplicates collapse", []string{"m.0345h", "Germany"}, []kgqa.Term{germany}, nil},
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
	ivory := kgqa.Term{ID: "m.0fv4v", Name: "Côte d’Ivoire"}
	got, rej := Resolve([]kgqa.Fact{{Head: kgqa.Term{ID: "m.0f8l9c", Name: "France"}, Path: []string{"location.location.adjoin_s"}, Dir: kgqa.Out, Tail: ivory}},
		[]string{"Côte d'Ivoire"})
	assert.Equal(t, []kgqa.Term{ivory}, got, "the ASCII apostrophe names the entity")
	assert.Empty(t, rej)
}
