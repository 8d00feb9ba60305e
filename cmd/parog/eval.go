package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/pogrule"
	"github.com/parog/parog-go/dataset/eval/report"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/demokg"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/sparql2plan"
)

const evalSynopsis = `--config FILE --dataset cwq|webqsp|grailqa|demo [--input FILE] --out results.jsonl [flags]
       parog eval merge --out merged.jsonl shard*.jsonl [--dataset D --input FILE]
       parog eval report results.jsonl [more.jsonl ...] [--dataset D --input FILE] [--md FILE] [--json FILE]
       parog eval diff A.jsonl B.jsonl [--dataset D --input FILE] [--md FILE] [--json FILE]

Runs every selected question through the engine and appends one JSON line per
(question, seed) to --out as it finishes. Re-running the same command resumes:
finished (id, seed) pairs are skipped, and a line torn by a crash is dropped
and its question run again. All seeds go to the one file; each line has a
"seed" field (null without --seeds).

Seeds vary the sampling only when the models sample: each call of a seeded
run sends the seed and, for every role whose llm.<role>.seed_temperature is
set (or all roles with --seed-temperature T), samples at that temperature
instead of the greedy temperature 0. The paper reports the mean of three
runs: --seeds 1,2,3 --seed-temperature 0.7.

--limit N takes the first N questions of the input, then --shard i/n (1-based)
keeps those whose id hashes to shard i, so n machines given the same input and
limit split it without overlap. --dataset demo without --input uses the demo
questions shipped with the demo KG.

--rate limits requests per second to the LLM endpoints over the whole run
(retries included). Each role's own llm.<role>.concurrency setting also caps
calls in flight; raise it with --set when --concurrency is larger.

--llm-cache DIR records every model request and reply (a resumed run reuses
them, the interrupted question's included); --llm-replay DIR answers every
request from such a recording without the network, so a published results
file and its cache reproduce the run exactly at no cost.`

type evalRunFlags struct {
	cfg         *configFlags
	dataset     string
	input       string
	out         string
	force       bool
	concurrency int
	rate        float64
	burst       int
	limit       int
	shard       string
	shardBase   int
	seeds       string
	seedTemp    float64
	alias       string
	timeout     time.Duration
	retryFailed bool
	noProgress  bool
	noSync      bool
	cache       *llmCacheFlags
}

func runEval(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 && args[0] == "report" {
		return runEvalReport(ctx, env, args[1:])
	}
	if len(args) > 0 && args[0] == "diff" {
		return runEvalDiff(ctx, env, args[1:])
	}
	if len(args) > 0 && args[0] == "merge" {
		return runEvalMerge(ctx, env, args[1:])
	}
	fs := newFlags(env, "eval", evalSynopsis)
	f := evalRunFlags{cfg: addConfigFlags(fs)}
	f.cfg.addTraceFlags(fs)
	fs.StringVar(&f.dataset, "dataset", "", "input format: cwq, webqsp, grailqa, demo, webquestions, simplequestions or qald")
	fs.StringVar(&f.input, "input", "", "benchmark question `FILE` (optional for demo)")
	fs.StringVar(&f.out, "out", "", "results `FILE` (JSONL, appended to; resumed when it exists)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "questions answered at once")
	fs.Float64Var(&f.rate, "rate", 0, "LLM requests per second over the run (0: unlimited)")
	fs.IntVar(&f.burst, "burst", 1, "LLM requests allowed in a burst above --rate")
	countVar(fs, &f.limit, "limit", "use only the first `N` questions of the input (0: all)")
	fs.StringVar(&f.shard, "shard", "", "run shard `i/n` of the questions (i from 1, or from --shard-base)")
	fs.IntVar(&f.shardBase, "shard-base", 1, "what the first shard's i is: 1, or 0 for a 0-based task index such as Kubernetes' JOB_COMPLETION_INDEX")
	fs.StringVar(&f.seeds, "seeds", "", "comma-separated sampling `seeds`, e.g. 1,2,3 (each question runs once per seed)")
	fs.Float64Var(&f.seedTemp, "seed-temperature", 0, "sampling temperature `T` of every role under --seeds (0: each role's llm.<role>.seed_temperature)")
	fs.StringVar(&f.alias, "alias", "", "alias `FILE`: JSON object of question id, answer id or answer name -> aliases")
	fs.DurationVar(&f.timeout, "timeout", 0, "deadline of one question (0: the engine's engine.deadline)")
	fs.BoolVar(&f.retryFailed, "retry-failed", false, "on resume, run again the questions whose last result is an error")
	fs.BoolVar(&f.noProgress, "no-progress", false, "no progress bar")
	fs.BoolVar(&f.noSync, "no-fsync", false, "do not fsync each result line (faster; a power loss may lose lines)")
	fs.BoolVar(&f.force, "force", false, "write --out even when it is a symbolic link or not a regular file")
	f.cache = addLLMCacheFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q (did you mean `parog eval report`?)", fs.Arg(0))
	}
	return f.run(ctx, env)
}

func (f *evalRunFlags) run(ctx context.Context, env *Env) error {
	if f.out == "" {
		return usageError("--out FILE is required")
	}
	if err := checkOut("--out", f.out, false, f.force); err != nil {
		return err
	}
	if f.concurrency < 1 {
		return usageError("--concurrency must be at least 1")
	}
	format, err := dataset.ParseFormat(f.dataset)
	if err != nil {
		return usageError("--dataset: %v", err)
	}
	shard, err := eval.ParseShardBase(f.shard, f.shardBase)
	if err != nil {
		return usageError("--shard: %v", err)
	}
	seeds, err := eval.ParseSeeds(f.seeds)
	if err != nil {
		return usageError("--seeds: %v", err)
	}
	var scorer score.Scorer
	if f.alias != "" {
		if scorer.Aliases, err = score.LoadAliases(f.alias); err != nil {
			return err
		}
	}
	cfg, err := f.cfg.load(env)
	if err != nil {
		return err
	}
	qs, err := loadQuestions(ctx, env, format, f.input)
	if err != nil {
		return err
	}
	qs, dups := eval.Select(qs, f.limit, shard)
	if len(dups) > 0 {
		fmt.Fprintf(env.Stderr, "parog eval: %d questions with a repeated id left out (first: %s)\n", len(dups), dups[0])
	}
	if cfg.LLM.Reasoner.BaseURL == "" {
		return errNoReasoner
	}
	if f.seedTemp < 0 || f.seedTemp > 2 {
		return usageError("--seed-temperature must be between 0 and 2")
	}
	if f.seedTemp > 0 {
		cfg.LLM.Planner.SeedTemperature, cfg.LLM.Reasoner.SeedTemperature = f.seedTemp, f.seedTemp
	}
	warnConcurrency(env.Stderr, cfg, f.concurrency)
	warnGreedySeeds(env.Stderr, cfg, len(seeds))
	cache, err := f.cache.open()
	if err != nil {
		return err
	}
	defer func() { _ = closeCache(cache, env.Stderr) }()
	httpc := cachedHTTP(cache, newRateLimitedHTTP(f.rate, f.burst, f.concurrency))
	a, err := openApp(ctx, cfg, env, withLLM(llm.WithHTTPClient(httpc)))
	if err != nil {
		return err
	}
	defer a.Close()
	a.shareCalls(cache)
	if err := a.preflight(ctx); err != nil {
		return fmt.Errorf("eval: nothing written: %w", err)
	}
	done, prior, note, err := eval.PrepareResume(f.out, f.retryFailed)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintf(env.Stderr, "parog eval: %s\n", note)
	}
	ans := eval.NewAnswerer(a.Engine, eval.WithGoldRewrite(func(q string) string { s, _ := sparql2plan.Normalize(q); return s }))
	w, err := eval.CreateResultWriter(f.out, !f.noSync)
	if err != nil {
		return err
	}
	opts := eval.RunOptions{
		Concurrency: f.concurrency, Seeds: seeds, Scorer: scorer, Done: done, Timeout: f.timeout,
		Logf: func(format string, a ...any) { fmt.Fprintf(env.Stderr, "parog eval: "+format+"\n", a...) },
	}
	return f.answer(ctx, env, ans, qs, w, opts, len(prior))
}

// answer runs the selected questions with a progress bar, closes w and
// prints the run's summary; prior counts the results kept from earlier runs.
func (f *evalRunFlags) answer(ctx context.Context, env *Env, ans eval.Answerer, qs []dataset.Question, w *eval.ResultWriter, opts eval.RunOptions, prior int) error {
	bar := f.progress(env, eval.Pending(qs, opts.Seeds, opts.Done))
	if bar != nil {
		opts.OnResult = func(_ eval.Result, p eval.Progress) {
			bar.Describe(fmt.Sprintf("Hits@1 %5.1f%% errors %d", 100*float64(p.Hits)/float64(p.Done), p.Errors))
			_ = bar.Add(1)
		}
	}
	sum, runErr := eval.Run(ctx, ans, qs, w, opts)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(env.Stderr)
	}
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	fmt.Fprintf(env.Stdout, "ran %d, skipped %d already done, %d errors (%d panics) in %s; this run Hits@1 %.1f%% (%d/%d); %d earlier results kept in %s\n",
		sum.Ran, sum.Skipped, sum.Errors, sum.Panics, sum.Elapsed.Round(time.Millisecond),
		100*ratioOf(sum.Hits, sum.Ran), sum.Hits, sum.Ran, prior, f.out)
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("eval: interrupted after %d questions; run the same command again to resume", sum.Ran)
		}
		return fmt.Errorf("eval: %w", runErr)
	}
	return nil
}

func ratioOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (f *evalRunFlags) progress(env *Env, total int) *progressbar.ProgressBar {
	if f.noProgress || total <= 0 {
		return nil
	}
	return newProgress(env, int64(total),
		progressbar.OptionSetDescription("Hits@1     -"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(30),
	)
}

func warnConcurrency(w io.Writer, cfg config.Config, n int) {
	for name, ep := range map[string]config.Endpoint{"planner": cfg.LLM.Planner, "reasoner": cfg.LLM.Reasoner} {
		if ep.BaseURL != "" && ep.Concurrency > 0 && ep.Concurrency < n {
			fmt.Fprintf(w, "parog eval: llm.%s.concurrency is %d, below --concurrency %d: at most %d %s calls run at once (raise it with --set llm.%s.concurrency=%d)\n",
				name, ep.Concurrency, n, ep.Concurrency, name, name, n)
		}
	}
}

// warnGreedySeeds says when several seeds cannot differ: every configured
// role decodes greedily.
func warnGreedySeeds(w io.Writer, cfg config.Config, seeds int) {
	if seeds < 2 {
		return
	}
	for _, ep := range []config.Endpoint{cfg.LLM.Planner, cfg.LLM.Reasoner} {
		if ep.BaseURL != "" && (ep.Temperature > 0 || ep.SeedTemperature > 0) {
			return
		}
	}
	fmt.Fprintf(w, "parog eval: every model decodes at temperature 0, so the %d seeds give the same run; set --seed-temperature (e.g. 0.7)\n", seeds)
}

// loadQuestions reads the benchmark file, or the shipped demo questions.
func loadQuestions(ctx context.Context, env *Env, format dataset.Format, path string) ([]dataset.Question, error) {
	var loaded dataset.Loaded
	var err error
	switch {
	case path != "":
		loaded, err = dataset.LoadFile(ctx, path, format)
	case format == dataset.Demo:
		data, merr := json.Marshal(demokg.FreebaseQuestions())
		if merr != nil {
			return nil, fmt.Errorf("eval: demo questions: %w", merr)
		}
		loaded.Questions, loaded.Skipped, err = decodeDemo(ctx, data)
	default:
		return nil, usageError("--input FILE is required for --dataset %s", format)
	}
	if err != nil {
		return nil, err
	}
	for i, s := range loaded.Skipped {
		if i == 5 {
			fmt.Fprintf(env.Stderr, "parog eval: ... %d more malformed records skipped\n", len(loaded.Skipped)-5)
			break
		}
		fmt.Fprintf(env.Stderr, "parog eval: skipped %v\n", s)
	}
	if len(loaded.Questions) == 0 {
		return nil, fmt.Errorf("eval: no questions in %s", orDemo(path))
	}
	return loaded.Questions, nil
}

func decodeDemo(ctx context.Context, data []byte) ([]dataset.Question, []dataset.Skipped, error) {
	var qs []dataset.Question
	var skipped []dataset.Skipped
	err := dataset.Decode(ctx, bytes.NewReader(data), dataset.Demo,
		func(q dataset.Question) error { qs = append(qs, q); return nil },
		func(s dataset.Skipped) { skipped = append(skipped, s) })
	return qs, skipped, err
}

func orDemo(path string) string {
	if path == "" {
		return "the demo questions"
	}
	return path
}

// newRateLimitedHTTP returns the HTTP client the LLM roles share: a pooled
// transport sized for the run, behind the run's rate limit.
func newRateLimitedHTTP(rate float64, burst, concurrency int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = max(2*concurrency, 16)
	return &http.Client{Transport: llm.RateLimitedTransport(tr, rate, burst)}
}

const evalReportSynopsis = `results.jsonl [more.jsonl ...] [--dataset D] [--input FILE] [--alias FILE] [--scoring strict|pog] [--allow-mixed] [--md FILE] [--json FILE]

Summarises results files: Hits@1 and F1 per seed with 95% intervals (a
t-interval over seeds and a bootstrap over questions), results per question
type, self-refinement statistics, cost (mean, median, p90) beside PoG's, and
failures by reason. Several files are shown side by side. A PoG result file
(PoG's fields only) is read too; give --input so its answers can be scored
against the gold answers (without it its Hits@1 is n/a). With --input,
questions missing from a run count as misses and our results are rescored
(with --alias if given). The dataset is taken from --dataset, else from the
file names (PoG_cwq_..., grailqa_gold.json).

Two scoring rules are reported side by side: strict (ours, the default) and
pog (PoG's evaluation script, defects included); --scoring picks the one
behind the headline figures. Without --md or --json the markdown goes to
standard output.`

func runEvalReport(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "eval report", evalReportSynopsis)
	ds := fs.String("dataset", "", "benchmark of the runs (cwq, webqsp, grailqa, demo, webquestions, simplequestions, qald); guessed from file names and ids when empty")
	input := fs.String("input", "", "benchmark question `FILE`: the expected questions and their gold answers")
	alias := fs.String("alias", "", "alias `FILE` used when rescoring (needs --input); keys may also be question texts, for the pog rule")
	scoring := fs.String("scoring", report.RuleStrict, "rule behind the headline figures: strict or pog")
	mdPath := fs.String("md", "", "write the markdown report to `FILE`")
	jsonPath := fs.String("json", "", "write the JSON report to `FILE`")
	htmlPath := fs.String("html", "", "write the report as one self-contained web page to `FILE` (failed questions open their trace)")
	rounds := fs.Int("bootstrap", 2000, "bootstrap resamples")
	allowMixed := fs.Bool("allow-mixed", false, "report runs of different datasets together (each labelled with its own); refused otherwise")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageError("give at least one results file")
	}
	if *scoring != report.RuleStrict && *scoring != report.RulePoG {
		return usageError("--scoring: want strict or pog, not %q", *scoring)
	}
	if *alias != "" && *input == "" {
		return usageError("--alias needs --input (the gold answers to rescore against)")
	}
	if *ds == "" {
		*ds = datasetFromNames(append([]string{*input}, files...))
	}
	opts := report.ReportOptions{Dataset: *ds, BootstrapRounds: *rounds, Scoring: *scoring}
	gold, err := loadReportGold(ctx, env, *ds, *input, *alias)
	if err != nil {
		return err
	}
	opts.Questions, opts.Scorer, opts.PoG = gold.Questions, gold.Scorer, gold.PoG
	if *scoring == report.RulePoG && gold.PoG == nil {
		return usageError("--scoring pog needs --input (PoG's rule scores against the gold file)")
	}
	var runs []report.ResultSet
	for _, path := range files {
		run, err := report.LoadRun(path, gold)
		if err != nil {
			return err
		}
		runs = append(runs, run)
	}
	if err := report.CheckMixed(runs, *allowMixed); err != nil {
		return usageError("%v", err)
	}
	rep := report.BuildReport(runs, opts)
	if *mdPath == "" && *jsonPath == "" && *htmlPath == "" {
		return rep.WriteMarkdown(env.Stdout)
	}
	if *htmlPath != "" {
		if err := writeFileWith("--html", *htmlPath, report.NewHTMLReport(rep, runs).WriteHTML); err != nil {
			return err
		}
	}
	if *mdPath != "" {
		if err := writeFileWith("--md", *mdPath, rep.WriteMarkdown); err != nil {
			return err
		}
	}
	if *jsonPath != "" {
		return writeFileWith("--json", *jsonPath, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		})
	}
	return nil
}

// datasetFromNames is the one dataset the file names agree on, or "".
func datasetFromNames(paths []string) string {
	found := ""
	for _, p := range paths {
		d := report.DatasetFromName(p)
		switch {
		case d == "":
		case found == "":
			found = d
		case found != d:
			return ""
		}
	}
	return found
}

// loadReportGold reads the gold answers a report scores against: the
// questions for the strict rule and PoG's gold names for the pog rule.
func loadReportGold(ctx context.Context, env *Env, ds, input, alias string) (report.Gold, error) {
	var g report.Gold
	if input == "" {
		return g, nil
	}
	format, err := dataset.ParseFormat(ds)
	if err != nil {
		return g, usageError("--input needs --dataset naming its format (or a file name that says it): %v", err)
	}
	if alias != "" {
		if g.Scorer.Aliases, err = score.LoadAliases(alias); err != nil {
			return g, err
		}
	}
	if g.Questions, err = loadQuestions(ctx, env, format, input); err != nil {
		return g, err
	}
	if format == dataset.Demo || score.ToGRuleFormats[format] {
		return g, nil // PoG's rule has no gold of its own for these
	}
	data, err := os.ReadFile(input)
	if err != nil {
		return g, fmt.Errorf("eval report: %w", err)
	}
	if g.PoG, err = pogrule.LoadPoGGold(data, format, g.Scorer.Aliases); err != nil {
		return g, fmt.Errorf("%w (file %s)", err, input)
	}
	return g, nil
}

// writeFileWith writes a report through the checked writer; flag names
// the option that gave path.
func writeFileWith(flag, path string, write func(io.Writer) error) error {
	if err := writeOut(flag, path, false, write); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}
