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
		{"applied", 250, noEnv, 250},
		{"GOGC in the environment wins", 250, withGOGC, start},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := setGCPercent(log, tc.percent, tc.getenv)
			assert.Equal(t, tc.want, gcPercent())
			restore()
			assert.Equal(t, start, gcPercent(), "restored")
		})
	}
}

func TestAutoGCPercent(t *testing.T) {
	for _, tc := range []struct {
		name string
		live uint64
		want int
	}{
		{"unknown", 0, 400},
		{"small graph", 20 << 20, 400},
		{"256 MB of growth", 128 << 20, 200},
		{"large graph", 2 << 30, 100},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, autoGCPercent(tc.live)) })
	}
	t.Run("zero applies it to this process's live heap", func(t *testing.T) {
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		restore := setGCPercent(log, 0, func(string) (string, bool) { return "", false })
		defer restore()
		p := gcPercent()
		assert.GreaterOrEqual(t, p, 100)
		assert.Less(t, debug.SetMemoryLimit(-1), int64(1<<30), "a soft memory limit keeps a target of 400 from letting a small heap grow fivefold")
		assert.LessOrEqual(t, p, 400)
	})
}
