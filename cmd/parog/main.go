// Command parog is PARoG-Go's one binary: question answering over knowledge
// graphs with the Plan-Answer-Refine loop, and the tools around it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], NewEnv())
	stop()
	os.Exit(code)
}
