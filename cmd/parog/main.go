// Command parog is PARoG-Go's one binary: question answering over knowledge
// graphs with the Plan-Answer-Refine loop, and the tools around it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go stopOnSignal(sig, cancel, stopGrace(os.Args[1:]), os.Exit)
	code := Main(ctx, os.Args[1:], NewEnv())
	signal.Stop(sig)
	os.Exit(code)
}

// stopGrace is how long a command has to return once SIGTERM or SIGINT
// has cancelled its context: serve drains its requests within
// server.shutdown_grace (30 s by default); any other command stops at
// its next check of the context.
func stopGrace(args []string) time.Duration {
	if len(args) > 0 && args[0] == "serve" {
		return 60 * time.Second
	}
	return 5 * time.Second
}

// stopOnSignal cancels the command's context at the first signal, and
// exits when the command has not returned grace later, or at a second
// signal: a command blocked where no context reaches (an open() of a
// named pipe given as input, a template that expands without end) still
// stops.
func stopOnSignal(sig <-chan os.Signal, cancel context.CancelFunc, grace time.Duration, exit func(int)) {
	s := <-sig
	cancel()
	code := 130 // 128 + SIGINT
	if s == syscall.SIGTERM {
		code = 143
	}
	select {
	case <-sig:
	case <-time.After(grace):
		os.Stderr.WriteString("parog: still running " + grace.String() + " after the signal: exiting\n")
	}
	exit(code)
}
