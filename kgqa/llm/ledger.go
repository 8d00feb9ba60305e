package llm

import (
	"context"
)

type seedKey struct{}

// WithSeed makes every call made with ctx send seed as the sampling seed,
// in place of the role's configured one, so one run of an evaluation can be
// repeated per seed. Such calls sample at the role's seed_temperature when
// it is set: a seed changes nothing under greedy decoding.
func WithSeed(ctx context.Context, seed int) context.Context {
	return context.WithValue(ctx, seedKey{}, seed)
}

// runSeed reports whether ctx carries a seed set by WithSeed.
func runSeed(ctx context.Context) bool {
	_, ok := ctx.Value(seedKey{}).(int)
	return ok
}

// seedFrom returns the seed set by WithSeed, or fallback.
func seedFrom(ctx context.Context, fallback *int) *int {
	if s, ok := ctx.Value(seedKey{}).(int); ok {
		return &s
	}
	return fallback
}
