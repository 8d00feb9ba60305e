package compile

import (
	"testing"

	"github.com/parog/parog-go/kgqa"
	"github.com/stretchr/testify/assert"
)

// A round that goes back to the subgoal's start (depth 0: a retry along
// untried relations, or the relation choice a skipped one brought) starts
// paths, as the first round does: its facts' heads are the start, which
// no earlier fact reached.
func TestKeptPathsOfARoundBackAtTheStart(t *testing.T) {
	weeze := kgqa.Term{ID: "m.01785m", Name: "Weeze Airport"}
	nrw := kgqa.Term{ID: "m.00fhyp", Name: "North Rhine-Westphalia"}
	germany := kgqa.Term{ID: "m.0345h", Name: "Germany"}
	rounds := []*kgqa.Round{
		{Depth: 0, Facts: []kgqa.Fact{{Head: weeze, Path: []string{"base.locations.region"}, Dir: kgqa.Out, Tail: nrw}}},
		{Depth: 0, Facts: []kgqa.Fact{{Head: weeze, Path: []string{"location.location.contains"}, Dir: kgqa.In, Tail: germany}}},
	}
	assert.Equal(t, []Path{{{Relation: "location.location.contains", Dir: kgqa.In}}}, keptPaths(rounds, []kgqa.Term{germany}))
	// One hop on from the first round's tail, the facts extend its path.
	rounds[1] = &kgqa.Round{Depth: 1, Facts: []kgqa.Fact{{Head: nrw, Path: []string{"location.location.contains"}, Dir: kgqa.In, Tail: germany}}}
	assert.Equal(t, []Path{{{Relation: "base.locations.region", Dir: kgqa.Out}, {Relation: "location.location.contains", Dir: kgqa.In}}}, keptPaths(rounds, []kgqa.Term{germany}))
}
