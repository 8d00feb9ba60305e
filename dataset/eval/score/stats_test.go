package score

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The Wilson 95% intervals of a few shares, checked against published
// values (Newcombe 1998, table I: 0/10, 1/29, 81/263; and 30/30, 15/30).
func TestWilson(t *testing.T) {
	for name, c := range map[string]struct {
		k, n      int
		low, high float64
	}{
		"none of ten":  {0, 10, 0, 0.2775},
		"one of 29":    {1, 29, 0.0061, 0.1718},
		"81 of 263":    {81, 263, 0.2553, 0.3662},
		"all of 30":    {30, 30, 0.8865, 1},
		"half of 30":   {15, 30, 0.3315, 0.6685},
		"no questions": {0, 0, 0, 1},
	} {
		t.Run(name, func(t *testing.T) {
			iv := Wilson(c.k, c.n)
			assert.InDelta(t, c.low, iv.Low, 5e-5)
			assert.InDelta(t, c.high, iv.High, 5e-5)
			assert.Equal(t, c.n, iv.N)
			if c.n > 0 {
				assert.InDelta(t, float64(c.k)/float64(c.n), iv.Mean, 1e-12)
			}
		})
	}
}
