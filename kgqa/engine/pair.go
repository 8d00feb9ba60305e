package engine

import (
	"context"
	"sync"
)

// both runs a in a new goroutine and b on the caller's, as an errgroup of
// the two would: the first error cancels the context both run under (with
// that error as its cause) and is returned once both are done. Running b
// on the caller's goroutine saves, per pair, a goroutine start: a stack
// grown again from its smallest size, and the wake-up of another thread.
func both(ctx context.Context, a, b func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var once sync.Once
	var first error
	record := func(err error) {
		if err != nil {
			once.Do(func() {
				first = err
				cancel(err)
			})
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		record(a(ctx))
	}()
	record(b(ctx))
	<-done
	return first
}
