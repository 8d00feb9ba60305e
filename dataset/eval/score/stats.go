package score

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Interval is a point estimate with a 95% confidence interval.
type Interval struct {
	// Mean is the point estimate.
	Mean float64 `json:"mean"`
	// Low and High bound the 95% interval; equal to Mean when it cannot be
	// estimated (one seed, no questions).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// N is the number of values (seeds or questions) it rests on.
	N int `json:"n"`
}

// tQuantile975 holds the 0.975 quantile of Student's t for 1..30 degrees of
// freedom (standard tables); larger df use the normal 1.96.
var tQuantile975 = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// TQuantile975 returns the 0.975 quantile of Student's t with df degrees
// of freedom (df >= 1).
func TQuantile975(df int) float64 {
	switch {
	case df < 1:
		return math.NaN()
	case df <= len(tQuantile975):
		return tQuantile975[df-1]
	case df <= 60:
		return 2.000 + (2.042-2.000)*float64(60-df)/30 // linear between 30 and 60
	case df <= 120:
		return 1.980 + (2.000-1.980)*float64(120-df)/60
	}
	return 1.960
}

// TInterval is the mean of xs with the 95% t-interval mean ± t(n-1)·s/√n,
// s the sample standard deviation. With one value the interval is the
// point.
func TInterval(xs []float64) Interval {
	n := len(xs)
	if n == 0 {
		return Interval{}
	}
	m := Mean(xs)
	iv := Interval{Mean: m, Low: m, High: m, N: n}
	if n < 2 {
		return iv
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	half := TQuantile975(n-1) * math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	iv.Low, iv.High = m-half, m+half
	return iv
}

// BootstrapSeed is the fixed RNG seed of Bootstrap, so reports are
// reproducible.
const BootstrapSeed = 20260101

// Bootstrap is the mean of perQuestion with a 95% percentile bootstrap
// interval: resamples questions with replacement (rounds times, from a
// PCG generator seeded with BootstrapSeed) and takes the 2.5th and 97.5th
// percentiles of the resampled means. perQuestion holds one value per
// question (its Hits@1 averaged over seeds).
func Bootstrap(perQuestion []float64, rounds int) Interval {
	n := len(perQuestion)
	if n == 0 {
		return Interval{}
	}
	m := Mean(perQuestion)
	iv := Interval{Mean: m, Low: m, High: m, N: n}
	if n < 2 || rounds < 1 {
		return iv
	}
	rng := rand.New(rand.NewPCG(BootstrapSeed, uint64(n)))
	means := make([]float64, rounds)
	for r := range means {
		var s float64
		for range n {
			s += perQuestion[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	sort.Float64s(means)
	iv.Low = Percentile(means, 0.025)
	iv.High = Percentile(means, 0.975)
	return iv
}

// Percentile of sorted xs by linear interpolation between ranks.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := p * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// Mean is the arithmetic mean of xs (0 for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// wilsonZ is the normal quantile of a two-sided 95% interval.
const wilsonZ = 1.959963984540054

// Wilson is the share k/n with its Wilson 95% score interval, which,
// unlike the normal approximation, stays inside [0, 1] and does not
// collapse to a point at 0 or n successes: 30 of 30 is [88.6%, 100%],
// not 100% ± 0. Pooling seeds counts each (question, seed) row as one
// trial. With n = 0 the share is 0 and the interval [0, 1].
func Wilson(k, n int) Interval {
	if n <= 0 {
		return Interval{High: 1}
	}
	k = min(max(k, 0), n)
	p, fn, z2 := float64(k)/float64(n), float64(n), wilsonZ*wilsonZ
	centre := (p + z2/(2*fn)) / (1 + z2/fn)
	half := wilsonZ / (1 + z2/fn) * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn))
	return Interval{Mean: p, Low: max(0, centre-half), High: min(1, centre+half), N: n}
}
