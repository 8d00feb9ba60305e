package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if parogBinary.path != "" {
		os.RemoveAll(filepath.Dir(parogBinary.path))
	}
	os.Exit(code)
}

// A command blocked where its context does not reach (an open() of a
// named pipe, here a channel that never delivers) ignored SIGTERM. The
// first signal cancels the context; the command is ended grace later, or
// at once by a second signal.
func TestStopOnSignal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		signals []os.Signal
		code    int
	}{
		{"grace passes", []os.Signal{syscall.SIGTERM}, 143},
		{"second signal", []os.Signal{os.Interrupt, os.Interrupt}, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sig := make(chan os.Signal, 2)
			exited := make(chan int, 1)
			grace := time.Hour
			if len(tc.signals) == 1 {
				grace = 10 * time.Millisecond
			}
			go stopOnSignal(sig, cancel, grace, func(code int) { exited <- code })
			for _, s := range tc.signals {
				sig <- s
			}
			select {
			case code := <-exited:
				assert.Equal(t, tc.code, code)
			case <-time.After(10 * time.Second):
				t.Fatal("the command was not stopped")
			}
			assert.Error(t, ctx.Err(), "the context was cancelled first")
		})
	}
}
