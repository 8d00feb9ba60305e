package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSVGAxisSpansTheRatesMeasured: a sweep to 0.2 puts its last rate at
// the right end of the axis (the axis was fixed to 0.4, leaving half the
// plot empty).
func TestSVGAxisSpansTheRatesMeasured(t *testing.T) {
	rep := &Report{Name: "demo", Robustness: []Noisy{{Noise: 0, Seed: 1, Hits1: 0.9}, {Noise: 0.1, Seed: 1, Hits1: 0.8}, {Noise: 0.2, Seed: 1, Hits1: 0.7}}}
	svg := rep.SVG()
	// w - right = 480 - 20: the last rate's dot sits at the right end.
	assert.Contains(t, svg, `<circle cx="460.0"`)
	assert.Contains(t, svg, `<circle cx="258.0"`, "0.1 halfway")
	assert.Contains(t, svg, `<circle cx="56.0"`, "0 at the left end")
}
