package main

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/harvest"
	"github.com/parog/parog-go/sparql2plan"
)

// runHarvest is `parog dataset harvest`: eval results in, <question,
// certificate SPARQL> pairs out.
func runHarvest(_ context.Context, env *Env, args []string) error {
	fs := newFlags(env, "dataset harvest", "--results FILE.jsonl --format webqsp|cwq --out FILE.json [--split train] [--match exact|hit] [--partial]")
	results := fs.String("results", "", "eval results `FILE` (JSON lines)")
	format := fs.String("format", "", "output format: webqsp or cwq")
	out := fs.String("out", "", "output `FILE`, read back by parog sparql2plan")
	split := fs.String("split", "", "benchmark split the results were run on (default: from the results file's name); only train is harvested")
	match := fs.String("match", string(harvest.MatchExact), "when an answer matches the gold: exact (the answer set is the gold set) or hit (Hits@1)")
	partial := fs.Bool("partial", false, "also keep certificates that cover the answer partially (some sets are the model's stated entities)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *results == "" || *format == "" || *out == "" || fs.NArg() > 0 {
		return usageError("--results, --format and --out are required, and nothing else")
	}
	f, err := dataset.ParseFormat(*format)
	if err != nil || (f != dataset.WebQSP && f != dataset.CWQ) {
		return usageError("--format: want webqsp or cwq")
	}
	if *split == "" {
		*split = sparql2plan.SourceSplitOf(*results)
		if *split == "" {
			return usageError("the name of %s does not say its benchmark split: give --split train (dev and test are never harvested)", *results)
		}
	}
	if _, err := sparql2plan.ParseSourceSplit(*split); err != nil {
		return usageError("--split: %v", err)
	}
	if err := harvest.CheckSplit(*split); err != nil {
		return err
	}
	rf, err := eval.ReadResults(*results)
	if err != nil {
		return err
	}
	if len(rf.Results) == 0 {
		return fmt.Errorf("dataset harvest: %s holds no results", *results)
	}
	var b bytes.Buffer
	st, err := harvest.Harvest(&b, rf.Latest(), harvest.Options{Split: *split, Format: f, Match: harvest.Match(*match), Partial: *partial})
	if err != nil {
		return err
	}
	if err := writeOutBytes("--out", *out, false, b.Bytes()); err != nil {
		return fmt.Errorf("dataset harvest: %w", err)
	}
	fmt.Fprintf(env.Stdout, "harvested %d of %d rows into %s\n", st.Kept, st.Rows, *out)
	reasons := make([]string, 0, len(st.Dropped))
	for r := range st.Dropped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(env.Stdout, "  dropped %d: %s\n", st.Dropped[r], r)
	}
	return nil
}
