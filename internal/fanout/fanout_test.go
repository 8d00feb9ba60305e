package fanout

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sync/errgroup"
)

func TestRun(t *testing.T) {
	boom := errors.New("boom")
	for name, tc := range map[string]struct {
		n       int
		failAt  int
		wantErr error
	}{
		"none":        {n: 0, failAt: -1},
		"one":         {n: 1, failAt: -1},
		"one fails":   {n: 1, failAt: 0, wantErr: boom},
		"many":        {n: 5, failAt: -1},
		"many, fails": {n: 5, failAt: 3, wantErr: boom},
	} {
		t.Run(name, func(t *testing.T) {
			g, ctx := errgroup.WithContext(context.Background())
			var ran atomic.Int32
			tasks := make([]func() error, tc.n)
			for i := range tasks {
				tasks[i] = func() error {
					ran.Add(1)
					if i == tc.failAt {
						return boom
					}
					return nil
				}
			}
			err := Run(g, tasks)
			assert.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				assert.NoError(t, err)
			}
			assert.EqualValues(t, tc.n, ran.Load())
			// g is done: its context is cancelled either way.
			assert.Error(t, ctx.Err())
		})
	}
}
