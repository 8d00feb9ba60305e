// Command oracle-llm is a measuring instrument, not a model: an
// OpenAI-compatible chat server that answers the PARoG engine's prompts
// as a perfect model would, from the gold SPARQL of a question file, and
// then, on request, with the errors real models make. Point the engine's
// planner and reasoner at it to measure the engine itself on real data
// (parog bench oracle does this in one command).
//
//	oracle-llm --format webqsp|cwq|grailqa --input FILE [--addr HOST:PORT]
//	oracle-llm --format demo [--input FILE] [--addr HOST:PORT]
//	           ... [--tentative gold|wrong|none|mixed:P] [--noise P --seed S --noise-kinds K,...]
//	           ... [--wording gold|question]
//	           ... [--latency vllm-llama3.1-8b|gpt-4o-mini|prefill=TOKENS_PER_S,decode=TOKENS_PER_S,overhead=MS]
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, os.Args[1:], os.Stderr, nil)
	stop()
	os.Exit(exitCode(err))
}
