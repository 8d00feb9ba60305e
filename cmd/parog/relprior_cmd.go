package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parog/parog-go/kgqa/relprior"
)

const relpriorUsage = `Usage: parog relprior build --sft FILE.jsonl[,FILE.jsonl] --out FILE.json [flags]

Learns the relation prior (engine.relation_prior) from planner SFT records
written by parog sparql2plan from benchmark train splits: which relations
the gold queries use for subgoals with which words. Records from a dev or
test split, or of no recorded split, are refused.
`

func runRelprior(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] != "build" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(env.Stdout, relpriorUsage)
			return flag.ErrHelp
		}
		fmt.Fprint(env.Stderr, relpriorUsage)
		return usageError("missing command build")
	}
	fs := newFlags(env, "relprior build", "--sft FILE.jsonl[,FILE.jsonl] --out FILE.json [--min-count N] [--validation]")
	in := fs.String("sft", "", "comma-separated SFT record `FILES` (JSONL) written by parog sparql2plan from train splits")
	out := fs.String("out", "", "prior `FILE` to write (JSON)")
	minCount := fs.Int("min-count", 2, "drop associations seen fewer than `N` times")
	validation := fs.Bool("validation", true, "learn from the records of the validation split too (false keeps them out, to measure the prior on them)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return usageError("--sft FILE and --out FILE are required")
	}
	if *minCount < 1 {
		return usageError("--min-count must be >= 1")
	}
	b := relprior.NewBuilder()
	var names []string
	for _, path := range strings.Split(*in, ",") {
		path = strings.TrimSpace(path)
		if path == "" {
			continue
		}
		if err := buildFrom(ctx, env, b, path, *validation); err != nil {
			return err
		}
		names = append(names, filepath.Base(path))
	}
	if b.Learned == 0 {
		return fmt.Errorf("relprior: no record of %s has a subgoal with relations: %w", *in, relprior.ErrNoRelations)
	}
	p := b.Prior(*minCount, strings.Join(names, ","))
	if err := writeOut("--out", *out, false, p.Write); err != nil {
		return fmt.Errorf("relprior: %w", err)
	}
	fmt.Fprintf(env.Stdout, "learned from %d subgoals of %d of %d records; %d words; wrote %s\n", p.Subgoals, b.Learned, b.Records, len(p.Words), *out)
	return nil
}

// buildFrom learns one SFT file, with a progress line on stderr.
func buildFrom(ctx context.Context, env *Env, b *relprior.Builder, path string, validation bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("relprior: %w", err)
	}
	defer func() { _ = f.Close() }()
	progress := func(n int) {
		if n%1000 == 0 {
			fmt.Fprintf(env.Stderr, "relprior: %s: %d records\n", path, n)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.ReadRecords(f, path, validation, progress)
}
