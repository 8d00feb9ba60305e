package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/oracle/generate"
	"github.com/parog/parog-go/kgqa/kgdata/densify"
)

func runGenerate(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "dataset generate", "--config FILE --format cwq|grailqa --out FILE [--shapes LIST] [--per-shape N] [--seed N] [--schema DIR]")
	cf := addConfigFlags(fs)
	format := fs.String("format", "", "output format: cwq or grailqa")
	out := fs.String("out", "", "output `FILE` of the questions")
	shapes := fs.String("shapes", "", "comma-separated `LIST` of shapes (conjunction, composition, comparative, superlative, count, time, text; default all of these) "+
		"and benchmark forms, made only when named (chain2, chain3, mediator-chain2, mediator-chain3, set-chain, middle-filter, end-filter, conjunction3; forms names them all)")
	perShape := fs.Int("per-shape", 200, "questions per shape")
	seed := fs.Uint64("seed", 1, "the run's seed: the same KG and seed give the same questions")
	maxAnswers := fs.Int("max-answers", 10, "largest answer set kept")
	schema := fs.String("schema", "", "the Freebase schema `DIR` (its fb_roles names what relations' values are in the text); optional")
	report := fs.String("report", "", "also write the counts as JSON to `FILE`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format == "" || *out == "" || fs.NArg() > 0 {
		return usageError("--format and --out are required, and nothing else")
	}
	f, err := dataset.ParseFormat(*format)
	if err != nil || (f != dataset.CWQ && f != dataset.GrailQA) {
		return usageError("--format: want cwq or grailqa, not %q", *format)
	}
	sh, err := generate.ParseShapes(*shapes)
	if err != nil {
		return usageError("--shapes: %v", err)
	}
	if *perShape <= 0 || *maxAnswers <= 0 {
		return usageError("--per-shape and --max-answers must be positive")
	}
	o := generate.Options{Shapes: sh, PerShape: *perShape, Seed: *seed, MaxAnswers: *maxAnswers}
	if *schema != "" {
		s, err := densify.LoadSchema(*schema)
		if err != nil {
			return err
		}
		o.Ranges = map[string]string{}
		for id, p := range s.Props {
			o.Ranges[id] = p.Range
		}
	}
	a, err := cf.openGraph(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	o.Progress = func(s generate.Shape, n int) {
		fmt.Fprintf(env.Stderr, "\rgenerate: %-11s %d of %d", s, n, *perShape)
	}
	qs, rep, err := generate.Generate(ctx, a.Graph, o)
	fmt.Fprintln(env.Stderr)
	if err != nil {
		return err
	}
	if err := writeOut("--out", *out, false, func(w io.Writer) error { return generate.Write(w, f, qs) }); err != nil {
		return fmt.Errorf("dataset generate: %w", err)
	}
	var counts []string
	for _, s := range sh {
		counts = append(counts, fmt.Sprintf("%s %d (%d tries)", s, rep.Made[s], rep.Tried[s]))
	}
	fmt.Fprintf(env.Stdout, "%d questions written to %s: %s; %d KG queries\n", len(qs), *out, strings.Join(counts, ", "), rep.Queries)
	return writeJSONReport(*report, rep)
}
