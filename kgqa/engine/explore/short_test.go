package explore

import (
	"fmt"
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
)

// rankedOffer is n relations ranked by score, most first, of which the
// first top score 3 (contenders for the top) and the others 0.
func rankedOffer(n, top int) ([]kgqa.Relation, map[kgqa.Relation]float64) {
	ranked := make([]kgqa.Relation, n)
	score := map[kgqa.Relation]float64{}
	for i := range ranked {
		ranked[i] = kgqa.Relation{ID: fmt.Sprintf("measurement_unit.measurement_system.unit_%d", i), Dir: kgqa.Out}
		if i < top {
			score[ranked[i]] = 3
		} else {
			score[ranked[i]] = 0
		}
	}
	return ranked, score
}

// The short first page is the clear top when the page holds every
// contender; when more contend than it holds but at most half the offer,
// the contenders alone (a hub's dozens of "... units" against its
// hundreds of relations); an offer of which more than half contend is
// shown whole.
func TestShortPage(t *testing.T) {
	for name, c := range map[string]struct {
		n, top, page int
		want         int // relations on the short page; 0: none, the offer is shown whole
		clearWant    int
	}{
		"clear top":                  {n: 400, top: 10, page: 30, want: 30, clearWant: 30},
		"contenders, a tenth":        {n: 400, top: 40, page: 30, want: 40},
		"contenders, half":           {n: 400, top: 200, page: 30, want: 200},
		"contenders, more than half": {n: 400, top: 201, page: 30},
		"offer within the page":      {n: 30, top: 3, page: 30},
	} {
		t.Run(name, func(t *testing.T) {
			ranked, score := rankedOffer(c.n, c.top)
			assert.Len(t, shortPage(ranked, score, c.page), c.want)
			assert.Len(t, clearTop(ranked, score, c.page), c.clearWant, "clearTop alone")
		})
	}
}
