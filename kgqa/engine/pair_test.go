package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBoth(t *testing.T) {
	errA, errB := errors.New("a failed"), errors.New("b failed")
	// waitCancel returns the context's cause once it is cancelled, or
	// fails the test after a while: the other side must be cancelled.
	waitCancel := func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(5 * time.Second):
			t.Error("not cancelled")
			return nil
		}
	}
	for _, tc := range []struct {
		name string
		a, b func(context.Context) error
		want error
	}{
		{"both succeed", func(context.Context) error { return nil }, func(context.Context) error { return nil }, nil},
		{"goroutine fails first, inline side cancelled", func(context.Context) error { return errA }, waitCancel, errA},
		{"inline side fails first, goroutine cancelled", waitCancel, func(context.Context) error { return errB }, errB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- both(context.Background(), tc.a, tc.b) }()
			select {
			case err := <-done:
				assert.Equal(t, tc.want, err)
			case <-time.After(10 * time.Second):
				t.Fatal("both did not return")
			}
		})
	}
}
