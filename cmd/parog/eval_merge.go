package main

import (
	"context"
	"fmt"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
)

const evalMergeSynopsis = `--out merged.jsonl shard1.jsonl shard2.jsonl ... [--dataset D [--input FILE] [--limit N] [--seeds 1,2,3]] [--allow-gaps]

Merges the results files of a sharded run (parog eval --shard i/n on n
machines) into one results file. A (question, seed) pair found in two files
is an overlap and fails the merge. With --dataset (and --input, or the demo
questions), the merge also checks for gaps: every question of the input
(after --limit) must be present once per seed; give the same --limit and
--seeds as the shards. The output is written atomically, in input order.`

func runEvalMerge(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "eval merge", evalMergeSynopsis)
	out := fs.String("out", "", "merged results `FILE` (replaced atomically)")
	ds := fs.String("dataset", "", "benchmark of the run, to check for gaps (cwq, webqsp, grailqa, demo)")
	input := fs.String("input", "", "benchmark question `FILE` the shards ran (optional for demo)")
	limit := new(int)
	countVar(fs, limit, "limit", "the shards' --limit `N`")
	seedList := fs.String("seeds", "", "the shards' --seeds")
	allowGaps := fs.Bool("allow-gaps", false, "write the merge even when expected results are missing")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return usageError("--out FILE is required")
	}
	if len(files) == 0 {
		return usageError("give the shards' results files")
	}
	seeds, err := eval.ParseSeeds(*seedList)
	if err != nil {
		return usageError("--seeds: %v", err)
	}
	opts := eval.MergeOptions{Seeds: seeds, AllowGaps: *allowGaps}
	if *ds != "" || *input != "" {
		format, err := dataset.ParseFormat(*ds)
		if err != nil {
			return usageError("--dataset: %v", err)
		}
		qs, err := loadQuestions(ctx, env, format, *input)
		if err != nil {
			return err
		}
		opts.Expected, _ = eval.Select(qs, *limit, eval.Shard{})
	}
	inputs := make([]eval.MergeInput, 0, len(files))
	for _, path := range files {
		if path == *out {
			return usageError("--out %s is also an input", path)
		}
		rf, err := eval.ReadResults(path)
		if err != nil {
			return err
		}
		inputs = append(inputs, eval.MergeInput{Path: path, File: rf})
	}
	merged, rep, err := eval.Merge(inputs, opts)
	for _, torn := range rep.Torn {
		fmt.Fprintf(env.Stderr, "parog eval merge: torn last line ignored: %s\n", torn)
	}
	if err != nil {
		return err
	}
	if len(rep.Gaps) > 0 {
		fmt.Fprintf(env.Stderr, "parog eval merge: %d expected results missing (first %s); written anyway (--allow-gaps)\n", len(rep.Gaps), rep.Gaps[0])
	}
	if err := eval.WriteResultsFile(*out, merged); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s into %s\n", rep.Summary(), *out)
	return nil
}
