package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// gcPercent reads the collector's target without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestSetGCPercent(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	noEnv := func(string) (string, bool) { return "", false }
	withGOGC := func(k string) (string, bool) { return "150", k == "GOGC" }
	start := gcPercent()
	for _, tc := range []struct {
		name    string
		percent int
		getenv  func(string) (string, bool)
		want    int
	}{
		{"applied", 400, noEnv, 400},
		{"zero keeps the runtime's", 0, noEnv, start},
		{"GOGC in the environment wins", 400, withGOGC, start},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := setGCPercent(log, tc.percent, tc.getenv)
			assert.Equal(t, tc.want, gcPercent())
			restore()
			assert.Equal(t, start, gcPercent(), "restored")
		})
	}
}
