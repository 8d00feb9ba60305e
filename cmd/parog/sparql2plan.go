package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
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
	opts := sparql2plan.RunOptions{Input: *input, Format: f, Out: *out, Concurrency: *concurrency, Rate: *rateFlag,
		ValidationPercent: *valPct, UseBackTranslation: *backTrans, SourceSplit: *split, MinConsistency: *minCons}
	if *valPct == 0 {
		opts.ValidationPercent = -1 // no validation split
	}
	if *teacher {
		cfg, err := cf.load(env)
		if err != nil {
			return err
		}
		a, err := openApp(ctx, cfg, env, modelsOnly())
		if err != nil {
			return fmt.Errorf("sparql2plan: teacher: %w", err)
		}
		defer func() { _ = a.Close() }()
		if !a.LLM.Has(kgqa.Teacher) {
			return usageError("--teacher needs llm.teacher.base_url in the config (or PAROG_LLM_TEACHER_BASE_URL)")
		}
		opts.Teacher = &sparql2plan.Teacher{Chat: a.LLM}
	}
	bar := &barProgress{env: env}
	opts.Progress = bar
	opts.OnSkip = func(s dataset.Skipped) { fmt.Fprintf(env.Stderr, "parog: skipped %v\n", s.Error()) }
	stats, err := sparql2plan.Run(ctx, opts)
	bar.finish()
	if err != nil {
		return err
	}
	if opts.Teacher != nil {
		fmt.Fprintf(env.Stdout, "back-translation: %d records below consistency %.2f dropped, mean consistency %.3f\n", stats.Inconsistent, *minCons, stats.MeanConsistency)
	}
	fmt.Fprintf(env.Stdout, "converted %d of %d questions (%.2f%%), wrote %d records (%d in %s, %d resumed), duplicates %d, malformed %d; label agreement %d of %d (%.2f%%) by containment, %d of %d (%.2f%%) by primary type\n",
		stats.Converted, stats.Input, 100*sparql2plan.Rate(stats.Converted, stats.Input), stats.Written, stats.Records, *out, stats.Resumed,
		stats.Duplicates, stats.Malformed, stats.LabelAgreed, stats.LabelChecked, 100*sparql2plan.Rate(stats.LabelAgreed, stats.LabelChecked),
		stats.PrimaryAgreed, stats.PrimaryChecked, 100*sparql2plan.Rate(stats.PrimaryAgreed, stats.PrimaryChecked))
	if *verify {
		if err := runVerify(ctx, env, cf, *input, f); err != nil {
			return err
		}
	}
	if *report != "" {
		b, err := json.MarshalIndent(stats, "", "  ")
		if err != nil {
			return fmt.Errorf("sparql2plan: report: %w", err)
		}
		if err := writeOutBytes("--report", *report, false, append(b, '\n')); err != nil {
			return fmt.Errorf("sparql2plan: report: %w", err)
		}
		md := strings.TrimSuffix(*report, ".json") + ".md"
		if err := writeOutBytes("--report (.md)", md, false, []byte(stats.Markdown())); err != nil {
			return fmt.Errorf("sparql2plan: report: %w", err)
		}
	}
	return nil
}

// barProgress draws a progress bar on stderr.
type barProgress struct {
	env *Env
	bar *progressbar.ProgressBar
}

func (b *barProgress) Start(total int) {
	b.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(b.env.Stderr), progressbar.OptionSetDescription("sparql2plan"),
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
		fmt.Fprintln(b.env.Stderr)
	}
}

// runVerify runs sparql2plan.Verify on input and prints its figures; a
// --config names the KG both queries run on.
func runVerify(ctx context.Context, env *Env, cf *configFlags, input string, f dataset.Format) error {
	opts := sparql2plan.VerifyOptions{Input: input, Format: f}
	if cf.path != "" {
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
