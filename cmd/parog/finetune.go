package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/parog/parog-go/finetune"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/sft"
)

const finetuneUsage = `Usage: parog finetune <command> [flags]

Commands:
  export        write sparql2plan SFT records as LLaMA-Factory, OpenAI or HF datasets files
  eval-planner  ask a served planner for the plans of held-out questions and score them
  compare       put two eval-planner reports side by side

Training and serving configs: configs/finetune/ (see docs/fine-tuning.md).
Run "parog finetune <command> --help" for a command's flags.
`

func runFinetune(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, finetuneUsage)
		return usageError("missing command (export, eval-planner or compare)")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(env.Stdout, finetuneUsage)
		return flag.ErrHelp
	case "export":
		return runFinetuneExport(ctx, env, args[1:])
	case "eval-planner":
		return runEvalPlanner(ctx, env, args[1:])
	case "compare":
		return runComparePlanners(env, args[1:])
	}
	fmt.Fprint(env.Stderr, finetuneUsage)
	return usageError("unknown command %q", args[0])
}

func runFinetuneExport(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "finetune export", "--in sft.jsonl --format llamafactory|openai|hf --out DIR [--skip-invalid] [--allow-eval-splits]")
	in := fs.String("in", "", "SFT `FILE` written by parog sparql2plan (JSONL)")
	format := fs.String("format", "", "output format: llamafactory, openai or hf")
	out := fs.String("out", "", "output `DIR` (created when missing; its files are replaced)")
	skip := fs.Bool("skip-invalid", false, "drop invalid records (listed in manifest.json) instead of failing")
	allowEval := fs.Bool("allow-eval-splits", false, "export records from a benchmark's dev or test split (or of no recorded split) for training")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *in == "" || *format == "" || *out == "" {
		return usageError("--in, --format and --out are required")
	}
	f, err := finetune.ParseFormat(*format)
	if err != nil {
		return usageError("%v", err)
	}
	m, err := finetune.Export(ctx, *in, finetune.ExportOptions{Format: f, OutDir: *out, SkipInvalid: *skip, AllowEvalSplits: *allowEval})
	if err != nil {
		return err
	}
	for _, bad := range m.Input.Invalid {
		fmt.Fprintf(env.Stderr, "skipped %s: %s\n", *in, bad.Error())
	}
	fmt.Fprintf(env.Stdout, "%s: %d train, %d validation records (%d skipped)\n", f,
		m.Splits[sft.SplitTrain], m.Splits[sft.SplitValidation], len(m.Input.Invalid))
	for _, fi := range m.Files {
		fmt.Fprintf(env.Stdout, "  %s/%s  %d bytes  sha256 %s\n", strings.TrimSuffix(*out, "/"), fi.Name, fi.Bytes, fi.SHA256)
	}
	fmt.Fprintf(env.Stdout, "  %s/%s\n", strings.TrimSuffix(*out, "/"), finetune.ManifestFile)
	return nil
}

// evalFlags are the flags of eval-planner.
type evalFlags struct {
	url, model, data, out, compare, split, apiKeyEnv string
	concurrency, maxTokens                           int
	timeout                                          time.Duration
	noSchema, quiet, skipInvalid                     bool
	cf                                               *configFlags
}

func parseEvalFlags(env *Env, args []string) (*evalFlags, error) {
	fs := newFlags(env, "finetune eval-planner", "--planner-url URL --model NAME --data val.jsonl [--out PREFIX] [--compare other.json]")
	e := &evalFlags{cf: addConfigFlags(fs)}
	fs.StringVar(&e.url, "planner-url", "", "OpenAI-compatible base `URL` of the planner, e.g. http://127.0.0.1:8000/v1 (default: llm.planner.base_url of --config)")
	fs.StringVar(&e.model, "model", "", "model `NAME` sent to the planner (default: llm.planner.model of --config)")
	fs.StringVar(&e.data, "data", "", "held-out SFT records (`FILE`, sparql2plan JSONL or the hf export's validation.jsonl)")
	fs.StringVar(&e.split, "split", sft.SplitValidation, "records to evaluate: validation, train or all")
	fs.StringVar(&e.out, "out", "planner-report", "report `PREFIX`: writes PREFIX.json and PREFIX.md")
	fs.StringVar(&e.compare, "compare", "", "another report (`FILE`.json) to compare with; writes PREFIX.compare.md")
	fs.IntVar(&e.concurrency, "concurrency", 8, "questions in flight at once")
	fs.DurationVar(&e.timeout, "timeout", 0, "deadline of one planner call, retries included (default: the config's, 60s)")
	fs.IntVar(&e.maxTokens, "max-tokens", 0, "largest plan in tokens (default: the config's, 1024)")
	fs.StringVar(&e.apiKeyEnv, "api-key-env", "", "environment variable holding the planner's API key, e.g. VLLM_API_KEY")
	fs.BoolVar(&e.noSchema, "no-schema", false, "do not send the Plan JSON schema as response_format (servers without structured output)")
	fs.BoolVar(&e.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&e.skipInvalid, "skip-invalid", false, "skip invalid gold records instead of failing")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if e.data == "" {
		return nil, usageError("--data FILE is required")
	}
	if e.concurrency < 1 {
		return nil, usageError("--concurrency must be at least 1")
	}
	switch e.split {
	case sft.SplitValidation, sft.SplitTrain, "all":
	default:
		return nil, usageError("--split %q is not validation, train or all", e.split)
	}
	return e, nil
}

// endpoint builds the planner endpoint: the config's (or the defaults),
// then the flags.
func (e *evalFlags) endpoint(env *Env) (config.Endpoint, error) {
	ep := config.Default().LLM.Planner
	if e.cf.given() || len(e.cf.sets) > 0 {
		cfg, err := e.cf.load(env)
		if err != nil {
			return ep, err
		}
		ep = cfg.LLM.Planner
	}
	if e.url != "" {
		ep.BaseURL = e.url
	}
	if e.model != "" {
		ep.Model = e.model
	}
	if ep.BaseURL == "" || ep.Model == "" {
		return ep, usageError("--planner-url and --model are required (or llm.planner in --config)")
	}
	if e.timeout > 0 {
		ep.Timeout = e.timeout
	}
	if e.maxTokens > 0 {
		ep.MaxTokens = e.maxTokens
	}
	if e.apiKeyEnv != "" {
		ep.APIKeyEnv = e.apiKeyEnv
	}
	if e.noSchema {
		ep.JSONSchema = false
	}
	ep.Concurrency = e.concurrency
	return ep, nil
}

func runEvalPlanner(ctx context.Context, env *Env, args []string) error {
	e, err := parseEvalFlags(env, args)
	if err != nil {
		return err
	}
	ep, err := e.endpoint(env)
	if err != nil {
		return err
	}
	recs, sum, err := loadEvalRecords(e.data, e.split, e.skipInvalid, env.Stderr)
	if err != nil {
		return err
	}
	a, err := openApp(ctx, config.Config{LLM: config.LLM{Planner: ep}}, env, modelsOnly())
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	client := a.LLM
	if err := client.Ping(ctx, kgqa.Planner); err != nil {
		return fmt.Errorf("finetune: eval-planner: %w", err)
	}
	opts := finetune.EvalOptions{Model: ep.Model, PlannerURL: ep.BaseURL, Data: e.data, DataSHA256: sum, Concurrency: e.concurrency}
	if !e.quiet {
		bar := newProgress(env, int64(len(recs)),
			progressbar.OptionSetDescription("planning"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(env.Stderr) }),
		)
		opts.Progress = func(done, _ int) { _ = bar.Set(done) }
	}
	rep, err := finetune.EvaluatePlanner(ctx, client, recs, opts)
	if err != nil {
		return err
	}
	prefix := strings.TrimSuffix(strings.TrimSuffix(e.out, ".json"), ".md")
	jsonPath, mdPath := prefix+".json", prefix+".md"
	err = writeOut("--out (.json)", jsonPath, false, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
	if err != nil {
		return err
	}
	err = writeOut("--out (.md)", mdPath, false, func(w io.Writer) error {
		rep.Markdown(w)
		return nil
	})
	if err != nil {
		return err
	}
	o := rep.Overall
	fmt.Fprintf(env.Stdout, "%s on %d questions: valid %.1f%% (first reply %.1f%%), exact subgoal count %.1f%%, op-kind F1 %.3f, graph match %.1f%%\n",
		ep.Model, o.N, 100*o.ValidRate, 100*o.ValidFirstRate, 100*o.CountExactRate, o.OpF1, 100*o.GraphMatchRate)
	fmt.Fprintf(env.Stdout, "report: %s, %s\n", jsonPath, mdPath)
	if e.compare == "" {
		return nil
	}
	other, err := finetune.LoadReport(e.compare)
	if err != nil {
		return err
	}
	cmpPath := strings.TrimSuffix(jsonPath, ".json") + ".compare.md"
	return writeComparison(env.Stdout, cmpPath, other, rep)
}

// loadEvalRecords reads the gold records of split and the file's hash.
func loadEvalRecords(path, split string, skipInvalid bool, warn io.Writer) ([]*sft.Record, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("finetune: eval-planner: %w", err)
	}
	res, err := finetune.ReadRecords(strings.NewReader(string(b)))
	if err != nil {
		return nil, "", err
	}
	if len(res.Invalid) > 0 {
		if !skipInvalid {
			return nil, "", fmt.Errorf("finetune: eval-planner: %s: %d invalid gold record(s), first: %s (use --skip-invalid)", path, len(res.Invalid), res.Invalid[0].Error())
		}
		fmt.Fprintf(warn, "skipping %d invalid gold record(s) in %s\n", len(res.Invalid), path)
	}
	var recs []*sft.Record
	for _, r := range res.Records {
		if split == "all" || r.Split == split {
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return nil, "", fmt.Errorf("finetune: eval-planner: %s has no %s records (try --split all)", path, split)
	}
	h := sha256.Sum256(b)
	return recs, hex.EncodeToString(h[:]), nil
}

func runComparePlanners(env *Env, args []string) error {
	fs := newFlags(env, "finetune compare", "A.json B.json [--out FILE.md]")
	out := fs.String("out", "", "also write the comparison to `FILE`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageError("want two reports, got %d", fs.NArg())
	}
	a, err := finetune.LoadReport(fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := finetune.LoadReport(fs.Arg(1))
	if err != nil {
		return err
	}
	return writeComparison(env.Stdout, *out, a, b)
}

// writeComparison prints the comparison of a and b, and writes it to path
// when path is set.
func writeComparison(stdout io.Writer, path string, a, b *finetune.Report) error {
	var md strings.Builder
	finetune.CompareMarkdown(&md, a, b)
	if path != "" {
		if err := writeOutBytes("--out", path, false, []byte(md.String())); err != nil {
			return fmt.Errorf("finetune: compare: %w", err)
		}
	}
	_, err := io.WriteString(stdout, md.String())
	return err
}
