package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/sparql2plan"
	"github.com/schollz/progressbar/v3"
)

func runSPARQL2Plan(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "sparql2plan", "--format cwq|grailqa|webqsp|demo --input FILE [--split train|dev|test] --out FILE.jsonl [--report FILE.json] [--teacher --config FILE] [--verify [--config FILE]]")
	format := fs.String("format", "", "input format: cwq, grailqa, webqsp or demo")
	input := fs.String("input", "", "benchmark `FILE` (JSON)")
	out := fs.String("out", "", "SFT records `FILE` (JSONL); appended to, ids already in it are skipped (resume)")
	report := fs.String("report", "", "write stats as JSON to `FILE` and as markdown beside it (.md)")
	teacher := fs.Bool("teacher", false, "render subgoals with the teacher LLM (llm.teacher in --config) and back-translate them")
	backTrans := fs.Bool("back-translated", true, "with --teacher: train on the back-translated question (as the paper does); =false keeps the original")
	minCons := fs.Float64("min-consistency", 0.5, "with --teacher: drop records whose back-translation consistency (token F1 with the question) is below this")
	split := fs.String("split", "", "benchmark split of --input: train, dev or test (default: from the file name)")
	concurrency := fs.Int("concurrency", 4, "teacher questions in flight")
	rateFlag := fs.Float64("rate", 0, "teacher questions started per second (0: unlimited)")
	valPct := fs.Int("validation-percent", 5, "percent of ids (by hash) in the validation split")
	verify := fs.Bool("verify", false, "compile each plan back to SPARQL and check it against the gold query: the same algebra after normalising and, with --config, the same answers on its KG (--out is then optional)")
	cf := addConfigFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f, err := dataset.ParseFormat(*format)
	if err != nil {
		return usageError("--format: %v", err)
	}
	if *verify && *input != "" && *out == "" && !*teacher {
		return runVerify(ctx, env, cf, *input, f)
	}
	if *input == "" || *out == "" {
		return usageError("--input FILE and --out FILE.jsonl are required")
	}
	// --out is appended to (resume), so it is checked, not replaced; the
	// reports are written through the checked writer.
	if err := checkOut("--out", *out, false, false); err != nil {
		return err
	}
	if *report != "" {
		if err := checkOut("--report", *report, false, false); err != nil {
			return err
		}
	}
	if *concurrency < 1 || *valPct < 0 || *valPct > 100 || *rateFlag < 0 || *minCons < 0 || *minCons > 1 {
		return usageError("--concurrency must be >= 1, --rate >= 0, --validation-percent 0..100, --min-consistency 0..1")
	}
	if *split == "" {
		*split = sparql2plan.SourceSplitOf(*input)
		if *split == "" {
			return usageError("the name of %s does not say its benchmark split: give --split train, dev or test", *input)
		}
	}
	if _, err := sparql2plan.ParseSourceSplit(*split); err != nil {
		return usageError("--split: %v", err)
	}
	opts := sparql2plan.RunOptions{Out: *out, Concurrency: *concurrency, Rate: *rateFlag,
		ValidationPercent: *valPct, UseBackTranslation: *backTrans, SourceSplit: *split, MinConsistency: *minCons}
	if *valPct == 0 {
		opts.ValidationPercent = -1 // no validation split
	}
	if *teacher {
		a, err := teacherApp(ctx, env, cf)
		if err != nil {
			return err
		}
		defer func() { _ = a.Close() }()
		opts.Teacher = &sparql2plan.Teacher{Chat: a.LLM}
	}
	opts.Questions = func(ctx context.Context) ([]sparql2plan.Pair, int, error) {
		pairs, skipped, err := loadPairs(ctx, *input, f)
		if err != nil {
			return nil, 0, err
		}
		for _, s := range skipped {
			fmt.Fprintf(env.Stderr, "parog: skipped %v\n", s.Error())
		}
		if len(pairs) == 0 {
			return nil, 0, fmt.Errorf("sparql2plan: %s: no question parses as %s (%d malformed records): is it a %s file?", *input, f, len(skipped), f)
		}
		return pairs, len(skipped), nil
	}
	bar := &barProgress{env: env}
	opts.Progress = bar
	stats, err := sparql2plan.Run(ctx, opts)
	bar.finish()
	if err != nil {
		return err
	}
	printRunStats(env, stats, opts.Teacher != nil, *minCons, *out)
	if *verify {
		if err := runVerify(ctx, env, cf, *input, f); err != nil {
			return err
		}
	}
	if *report != "" {
		return writeRunReport(*report, stats)
	}
	return nil
}

// loadPairs loads a benchmark file and hands its questions over as
// sparql2plan takes them, with the records the loader left out.
func loadPairs(ctx context.Context, input string, f dataset.Format) ([]sparql2plan.Pair, []dataset.Skipped, error) {
	loaded, err := dataset.LoadFile(ctx, input, f)
	if err != nil {
		return nil, nil, err
	}
	pairs := make([]sparql2plan.Pair, len(loaded.Questions))
	for i, q := range loaded.Questions {
		pairs[i] = oracle.GoldPair(q)
	}
	return pairs, loaded.Skipped, nil
}

// teacherApp opens the model clients of --config for --teacher, which
// needs llm.teacher.
func teacherApp(ctx context.Context, env *Env, cf *configFlags) (*app, error) {
	cfg, err := cf.load(env)
	if err != nil {
		return nil, err
	}
	a, err := openApp(ctx, cfg, env, modelsOnly())
	if err != nil {
		return nil, fmt.Errorf("sparql2plan: teacher: %w", err)
	}
	if !a.LLM.Has(kgqa.Teacher) {
		_ = a.Close()
		return nil, usageError("--teacher needs llm.teacher.base_url in the config (or PAROG_LLM_TEACHER_BASE_URL)")
	}
	return a, nil
}

// printRunStats prints the one-paragraph summary of a sparql2plan run.
func printRunStats(env *Env, stats *sparql2plan.Stats, teacher bool, minCons float64, out string) {
	if teacher {
		fmt.Fprintf(env.Stdout, "back-translation: %d records below consistency %.2f dropped, mean consistency %.3f\n", stats.Inconsistent, minCons, stats.MeanConsistency)
	}
	fmt.Fprintf(env.Stdout, "converted %d of %d questions (%.2f%%), wrote %d records (%d in %s, %d resumed), duplicates %d, malformed %d; label agreement %d of %d (%.2f%%) by containment, %d of %d (%.2f%%) by primary type\n",
		stats.Converted, stats.Input, 100*sparql2plan.Rate(stats.Converted, stats.Input), stats.Written, stats.Records, out, stats.Resumed,
		stats.Duplicates, stats.Malformed, stats.LabelAgreed, stats.LabelChecked, 100*sparql2plan.Rate(stats.LabelAgreed, stats.LabelChecked),
		stats.PrimaryAgreed, stats.PrimaryChecked, 100*sparql2plan.Rate(stats.PrimaryAgreed, stats.PrimaryChecked))
}

// writeRunReport writes a run's stats as JSON to path and as Markdown
// beside it (.md).
func writeRunReport(path string, stats *sparql2plan.Stats) error {
	b, err := json.MarshalIndent(stats, "", "  ")
	if err != nil {
		return fmt.Errorf("sparql2plan: report: %w", err)
	}
	if err := writeOutBytes("--report", path, false, append(b, '\n')); err != nil {
		return fmt.Errorf("sparql2plan: report: %w", err)
	}
	md := strings.TrimSuffix(path, ".json") + ".md"
	if err := writeOutBytes("--report (.md)", md, false, []byte(stats.Markdown())); err != nil {
		return fmt.Errorf("sparql2plan: report: %w", err)
	}
	return nil
}

// barProgress draws a progress bar on stderr.
type barProgress struct {
	env *Env
	bar *progressbar.ProgressBar
}

func (b *barProgress) Start(total int) {
	b.bar = newProgress(b.env, int64(total), progressbar.OptionSetDescription("sparql2plan"),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100_000_000))
}

func (b *barProgress) Done() {
	if b.bar != nil {
		_ = b.bar.Add(1)
	}
}

func (b *barProgress) finish() {
	if b.bar != nil {
		_ = b.bar.Finish()
		if isTerminal(b.env.Stderr) {
			fmt.Fprintln(b.env.Stderr)
		}
	}
}

// runVerify runs sparql2plan.Verify on input and prints its figures; a
// --config names the KG both queries run on.
func runVerify(ctx context.Context, env *Env, cf *configFlags, input string, f dataset.Format) error {
	pairs, _, err := loadPairs(ctx, input, f)
	if err != nil {
		return err
	}
	if len(pairs) == 0 {
		return fmt.Errorf("sparql2plan: verify: %s: no question read as %s", input, f)
	}
	opts := sparql2plan.VerifyOptions{Questions: pairs, Format: string(f)}
	if cf.given() {
		cfg, err := cf.load(env)
		if err != nil {
			return err
		}
		a, err := openApp(ctx, cfg, env, graphOnly())
		if err != nil {
			return fmt.Errorf("sparql2plan: verify: %w", err)
		}
		defer func() { _ = a.Close() }()
		opts.Exec = func(ctx context.Context, query string) (map[string]bool, error) {
			res, err := a.Graph.Select(ctx, query)
			if err != nil {
				return nil, err
			}
			return firstVarKeys(res), nil
		}
	}
	bar := &barProgress{env: env}
	opts.Progress = bar
	st, err := sparql2plan.Verify(ctx, opts)
	bar.finish()
	if err != nil {
		return err
	}
	fmt.Fprint(env.Stdout, st.Markdown())
	return nil
}

// firstVarKeys keys the values of a result's first variable as the eval
// compares answers.
func firstVarKeys(r *kg.Results) map[string]bool {
	if len(r.Vars) == 0 {
		return map[string]bool{}
	}
	return eval.AnswerSet(r, r.Vars[0])
}
