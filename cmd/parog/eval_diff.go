package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/parog/parog-go/dataset/eval/report"
)

const evalDiffSynopsis = `A.jsonl B.jsonl [--dataset D --input FILE] [--flips N] [--md FILE] [--json FILE]

Compares two results files question by question (paired by question id and
seed): Hits@1 of each run per question type with the difference (B minus A)
and McNemar's exact test, then the questions that flipped each way (fixed:
A missed and B hit; broken: A hit and B missed), each with the engine's
trace from both runs. With --input both runs are rescored against the gold
answers first. Without --md or --json the markdown goes to standard output.`

func runEvalDiff(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "eval diff", evalDiffSynopsis)
	ds := fs.String("dataset", "", "benchmark of the runs, for --input (guessed from file names when empty)")
	input := fs.String("input", "", "benchmark question `FILE`: rescore both runs against its gold answers")
	flips := fs.Int("flips", 50, "list at most `N` flipped questions each way in the markdown (0: all)")
	mdPath := fs.String("md", "", "write the markdown comparison to `FILE`")
	jsonPath := fs.String("json", "", "write the JSON comparison (every flip with its traces) to `FILE`")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		return usageError("give exactly two results files, A and B")
	}
	if *ds == "" {
		*ds = datasetFromNames(append([]string{*input}, files...))
	}
	gold, err := loadReportGold(ctx, env, *ds, *input, "")
	if err != nil {
		return err
	}
	var runs [2]report.ResultSet
	for i, path := range files {
		if runs[i], err = report.LoadRun(path, gold); err != nil {
			return err
		}
		if len(gold.Questions) > 0 {
			runs[i] = report.Rescore(runs[i], gold)
		}
	}
	d := report.CompareRuns(runs[0], runs[1])
	if *mdPath == "" && *jsonPath == "" {
		return d.WriteMarkdown(env.Stdout, *flips)
	}
	if *mdPath != "" {
		if err := writeFileWith("--md", *mdPath, func(w io.Writer) error { return d.WriteMarkdown(w, *flips) }); err != nil {
			return err
		}
	}
	if *jsonPath != "" {
		return writeFileWith("--json", *jsonPath, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(d)
		})
	}
	return nil
}
