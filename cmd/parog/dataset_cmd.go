package main

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/answerable"
	"github.com/parog/parog-go/sparql2plan"
)

const datasetHelp = `Usage: parog dataset <command> [flags]

Commands:
  answerable   run each question's gold SPARQL on the configured KG and keep the
               questions whose gold answers come back, in the input's own format
  harvest      keep the eval rows answered right with a verified certificate and
               write them as <question, certificate SPARQL> pairs (webqsp or cwq)
               for sparql2plan; train splits only
  generate     make questions of every shape (conjunction, composition, comparative,
               superlative, count, time) over the configured KG, with gold SPARQL
               and the answers it returns there, in the CWQ or GrailQA format

Example (the FB15k-237 slice, see docs/freebase.md):
  parog dataset answerable --config configs/fb15k237.yaml --format webqsp \
    --input WebQSP.train.json --out out/webqsp-train-fb15k237.json --report out/answerable.json
  parog dataset harvest --results out/results-webqsp-train.jsonl --format webqsp \
    --out out/harvest-webqsp-train.json
  parog dataset generate --config configs/dense-virtuoso.yaml --format cwq \
    --schema ../shared/data/freebase-schema --per-shape 200 --out out/generated.json
`

func runDataset(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, datasetHelp)
		return usageError("missing command (answerable, harvest or generate)")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(env.Stdout, datasetHelp)
		return flag.ErrHelp
	case "answerable":
		return runAnswerable(ctx, env, args[1:])
	case "harvest":
		return runHarvest(ctx, env, args[1:])
	case "generate":
		return runGenerate(ctx, env, args[1:])
	}
	fmt.Fprint(env.Stderr, datasetHelp)
	return usageError("unknown command %q (want answerable, harvest or generate)", args[0])
}

func runAnswerable(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "dataset answerable", "--config FILE --format webqsp|cwq|grailqa|webquestions|simplequestions|qald --input FILE --out FILE [--report FILE]")
	cf := addConfigFlags(fs)
	format := fs.String("format", "", "input format: webqsp, cwq, grailqa, webquestions, simplequestions or qald")
	input := fs.String("input", "", "benchmark `FILE` with gold SPARQL")
	out := fs.String("out", "", "output `FILE`: the questions kept, in the input's format")
	report := fs.String("report", "", "write the counts and each question's outcome as JSON to `FILE`")
	keep := fs.String("keep", string(answerable.Superset), "worst outcome kept: exact, superset (every gold answer comes back) or partial")
	parallel := fs.Int("parallel", 4, "queries run at once")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format == "" || *input == "" || *out == "" || fs.NArg() > 0 {
		return usageError("--format, --input and --out are required, and nothing else")
	}
	f, err := dataset.ParseFormat(*format)
	if err != nil || f == dataset.Demo {
		return usageError("--format: want webqsp, cwq, grailqa, webquestions, simplequestions or qald, not %q", *format)
	}
	k, err := answerable.ParseCoverage(*keep)
	if err != nil || !k.AtLeast(answerable.Partial) {
		return usageError("--keep: want exact, superset or partial, not %q", *keep)
	}
	a, err := cf.openGraph(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	rep, err := answerable.File(ctx, a.Graph, *input, *out, answerable.Options{
		Format: f, Keep: k, Parallel: *parallel,
		// Benchmark queries are written for Virtuoso; the embedded store
		// reads only standard SPARQL, which Virtuoso reads as well.
		Rewrite: func(q string) string { s, _ := sparql2plan.Normalize(q); return s },
	})
	if err != nil {
		return err
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(env.Stderr, "skipped %s\n", s.Error())
	}
	var counts []string
	for _, c := range answerable.Coverages {
		counts = append(counts, fmt.Sprintf("%s %d", c, rep.Counts[c]))
	}
	fmt.Fprintf(env.Stdout, "%d questions: %s; %d written to %s (%s or better)\n",
		rep.Questions, strings.Join(counts, ", "), rep.Written, *out, rep.Keep)
	reasons := make([]string, 0, len(rep.Failures))
	for r := range rep.Failures {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool { return rep.Failures[reasons[i]] > rep.Failures[reasons[j]] })
	for _, r := range reasons {
		fmt.Fprintf(env.Stdout, "  failed %d: %s\n", rep.Failures[r], r)
	}
	return writeJSONReport(*report, rep)
}
