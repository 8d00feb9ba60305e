package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa/config"
)

// Env is what a subcommand may touch of the outside world, so tests can run
// the real program with buffers and a fake environment.
type Env struct {
	// Stdout receives results.
	Stdout io.Writer
	// Stderr receives progress, logs and errors.
	Stderr io.Writer
	// Getenv reads the environment.
	Getenv func(string) (string, bool)
}

// NewEnv returns the process's own environment.
func NewEnv() *Env {
	return &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.LookupEnv}
}

// command is one subcommand; its Run lives in a file of its own.
type command struct {
	// Name is the word after "parog".
	Name string
	// Summary is one line for `parog --help`.
	Summary string
	// Run executes the subcommand with the arguments after its name.
	Run func(ctx context.Context, env *Env, args []string) error
}

// commandTable is every subcommand, in the order `parog --help` lists
// them. It is a function rather than a variable so that a command's Run
// may itself print the help without an initialization cycle.
func commandTable() []command {
	return []command{
		{Name: "ask", Summary: "answer one question and print the answer with its reasoning trace", Run: runAsk},
		{Name: "bench", Summary: "`bench oracle`: measure the engine against a perfect, then noisy, model (ceiling, cost, robustness, refinement)", Run: runBench},
		{Name: "config", Summary: "list every setting: key, environment variable, value, description", Run: runConfig},
		{Name: "data", Summary: "`data get NAME...`: download benchmarks and KGs (webqsp, cwq, grailqa, fb15k237, freebase, ...) into data/, resumable and checksummed", Run: runData},
		{Name: "dataset", Summary: "benchmark files against a KG: which questions can it answer", Run: runDataset},
		{Name: "eval", Summary: "run the engine over a benchmark (resumable) and report Hits@1; `eval report` summarises results, `eval diff` compares two runs", Run: runEval},
		{Name: "finetune", Summary: "export planner SFT data, evaluate a served planner, compare planners", Run: runFinetune},
		{Name: "kg", Summary: "query the knowledge graph: relations, neighbors, name, search, query", Run: runKG},
		{Name: "llm-cache", Summary: "inspect a recorded model-call cache: llm-cache dump DIR lists it as JSONL (key, request, reply)", Run: runLLMCache},
		{Name: "prompts", Summary: "prompts dump DIR writes the built-in prompt templates, a starting point for prompts.dir", Run: runPrompts},
		{Name: "relprior", Summary: "relprior build learns the relation prior (engine.relation_prior) from sparql2plan SFT records of train splits", Run: runRelprior},
		{Name: "serve", Summary: "serve the HTTP API (ask, plan, stream, OpenAI-compatible chat, SPARQL, metrics) and the trace viewer at /", Run: runServe},
		{Name: "sparql2plan", Summary: "turn benchmark <question, SPARQL> pairs into planner SFT records", Run: runSPARQL2Plan},
	}
}

// findCommand returns the subcommand called name.
func findCommand(name string) (command, bool) {
	for _, c := range commandTable() {
		if c.Name == name {
			return c, true
		}
	}
	return command{}, false
}

// errUsage marks an error caused by how the command was called; it exits
// with status 2.
var errUsage = errors.New("usage")

// usageError returns an error that prints as msg and exits with status 2.
func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// Main runs parog with args and returns the exit code: 0 on success, 1 on
// failure, 2 on a usage error.
func Main(ctx context.Context, args []string, env *Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printHelp(env.Stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		fmt.Fprintln(env.Stdout, versionLine(debug.ReadBuildInfo()))
		return 0
	}
	c, ok := findCommand(args[0])
	if !ok {
		fmt.Fprintf(env.Stderr, "parog: unknown command %q (see parog --help)\n", args[0])
		return 2
	}
	err := c.Run(ctx, env, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(env.Stderr, "parog %s: %s\n", c.Name, strings.TrimPrefix(err.Error(), "usage: "))
		return 2
	default:
		fmt.Fprintf(env.Stderr, "parog %s: %s\n", c.Name, oneLine(err.Error()))
		return 1
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `parog - question answering over knowledge graphs (Plan-Answer-Refine-on-Graph)

Usage: parog <command> [flags] [args]
       parog --version

Commands:
`)
	for _, c := range commandTable() {
		fmt.Fprintf(w, "  %-12s %s\n", c.Name, c.Summary)
	}
	fmt.Fprint(w, `
Run "parog <command> --help" for a command's flags.
Configuration: --config FILE (YAML, see configs/), then PAROG_* environment
variables, then --set key=value flags, in that order of precedence.
Run "parog config" to list every setting with its description.
`)
}

// newFlags returns a FlagSet that reports errors instead of exiting and
// prints usage to env.Stderr with the given synopsis.
func newFlags(env *Env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("parog "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: parog %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning flag errors into usage errors (the
// FlagSet has already printed what was wrong) and -h into flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError("%v", err)
	}
	return nil
}

// countFlag is an int flag that takes 0 or more (a count, a limit): a
// negative value is a usage error, not "all".
type countFlag int

func (c *countFlag) String() string { return strconv.Itoa(int(*c)) }

func (c *countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	if n < 0 {
		return errors.New("must be 0 or more")
	}
	*c = countFlag(n)
	return nil
}

// countVar defines a countFlag stored in p, whose default is its value.
func countVar(fs *flag.FlagSet, p *int, name, usage string) {
	fs.Var((*countFlag)(p), name, usage)
}

// configFlags are the flags every command that needs a configuration takes.
type configFlags struct {
	paths multiFlag
	sets  multiFlag
}

func addConfigFlags(fs *flag.FlagSet) *configFlags {
	cf := &configFlags{}
	fs.Var(&cf.paths, "config", "YAML configuration `FILE` (see configs/); repeatable: the files merge in order, a later one winning key by key")
	fs.Var(&cf.sets, "set", "override a setting, `key=value` (repeatable; see parog config)")
	return cf
}

// addTraceFlags adds --trace-prompts and --prompts-dir (ask, eval, serve),
// each a shorthand for its setting.
func (cf *configFlags) addTraceFlags(fs *flag.FlagSet) {
	fs.BoolFunc("trace-prompts", "put every model call's messages and raw reply, and every SPARQL query, into the trace (engine.trace_prompts=true)", func(v string) error {
		cf.sets = append(cf.sets, "engine.trace_prompts="+v)
		return nil
	})
	fs.Func("prompts-dir", "load the prompt templates from `DIR` (prompts.dir; see parog prompts dump)", func(v string) error {
		cf.sets = append(cf.sets, "prompts.dir="+v)
		return nil
	})
}

// openGraph loads the configuration and opens its KG alone, for the
// commands that ask no model.
func (cf *configFlags) openGraph(ctx context.Context, env *Env) (*app, error) {
	cfg, err := cf.load(env)
	if err != nil {
		return nil, err
	}
	return openApp(ctx, cfg, env, graphOnly())
}

func (cf *configFlags) load(env *Env) (config.Config, error) {
	cfg, _, err := cf.loadSources(env)
	return cfg, err
}

// given reports whether the command line names a config file.
func (cf *configFlags) given() bool { return len(cf.paths) > 0 }

// loadSources loads the layered configuration (the --config files in
// order, or PAROG_CONFIG, a comma-separated list, when none is given) and
// says where each value came from.
func (cf *configFlags) loadSources(env *Env) (config.Config, config.Sources, error) {
	if len(cf.paths) == 0 {
		if p, ok := env.Getenv("PAROG_CONFIG"); ok && p != "" {
			for _, f := range strings.Split(p, ",") {
				if f = strings.TrimSpace(f); f != "" {
					cf.paths = append(cf.paths, f)
				}
			}
		}
	}
	if len(cf.paths) == 0 {
		return config.Config{}, nil, usageError("--config FILE is required (or set PAROG_CONFIG), e.g. --config configs/demo.yaml")
	}
	return config.LoadFiles(cf.paths, env.Getenv, cf.sets)
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }

func (m *multiFlag) Set(v string) error {
	*m = append(*m, v)
	return nil
}
