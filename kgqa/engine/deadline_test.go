package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kgqatest"
)

// expiringCtx is a parent context whose deadline passes exactly when the
// test calls expire, so no timer decides what the engine sees.
type expiringCtx struct {
	context.Context
	once sync.Once
	done chan struct{}
}

func newExpiringCtx() *expiringCtx {
	return &expiringCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *expiringCtx) Done() <-chan struct{} { return c.done }

func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (c *expiringCtx) expire() { c.once.Do(func() { close(c.done) }) }

// A deadline (or a cancellation) that comes after the run finished leaves
// the answer standing; one that cuts the run short is an error.
func TestDeadlineAfterTheRunKeepsTheAnswer(t *testing.T) {
	q := demoQuestion(t, "demo-01")
	for _, tc := range []struct {
		name string
		// arm returns the parent context of Ask, the hook run after the
		// run ends (given the run's context), and the event hook.
		arm      func() (context.Context, func(context.Context), func(kgqa.Event))
		wantStop kgqa.StopReason
		wantErr  error
	}{
		{
			name: "deadline passes after the last step",
			arm: func() (context.Context, func(context.Context), func(kgqa.Event)) {
				ctx := newExpiringCtx()
				return ctx, func(run context.Context) { ctx.expire(); <-run.Done() }, nil
			},
			wantStop: kgqa.StopPlanComplete,
		},
		{
			name: "caller cancels after the last step",
			arm: func() (context.Context, func(context.Context), func(kgqa.Event)) {
				ctx, cancel := context.WithCancel(context.Background())
				return ctx, func(run context.Context) { cancel(); <-run.Done() }, nil
			},
			wantStop: kgqa.StopPlanComplete,
		},
		{
			name: "deadline passes after the first subgoal",
			arm: func() (context.Context, func(context.Context), func(kgqa.Event)) {
				ctx := newExpiringCtx()
				return ctx, nil, func(ev kgqa.Event) {
					if ev.Type == kgqa.EventSubgoalDone {
						ctx.expire()
					}
				}
			},
			wantStop: kgqa.StopDeadline,
			wantErr:  context.DeadlineExceeded,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, kgqatest.NewDemoModel(), config.Default().Engine)
			parent, afterRun, onEvent := tc.arm()
			h.engine.afterRun = afterRun
			done := make(chan struct{})
			var ans *kgqa.Answer
			var err error
			go func() {
				defer close(done)
				ans, err = h.engine.Ask(parent, Request{Question: q.Question, TopicEntities: topicIDs(q), OnEvent: onEvent})
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("Ask did not return")
			}
			require.NotNil(t, ans)
			assert.Equal(t, tc.wantStop, ans.Stop)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.NotEmpty(t, ans.Error)
				return
			}
			require.NoError(t, err)
			assert.Empty(t, ans.Error)
			assert.Equal(t, []string{"m.0345h"}, entityIDs(ans.Entities))
			require.NotNil(t, parent.Err(), "the deadline or cancellation did happen")
		})
	}
}
