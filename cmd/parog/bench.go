package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/dataset/oracle/bench"
	"github.com/parog/parog-go/kgqa/config"
)

const benchSynopsis = `oracle --config FILE --format webqsp|cwq|grailqa|demo --input FILE [flags]

Runs the engine over the questions of --input (those whose gold query returns
their gold answers on the configured KG: see parog dataset answerable) with
the oracle model (cmd/oracle-llm) in place of the LLM, and measures
  (a) Hits@1 with the perfect oracle, every miss classified,
  (b) LLM calls, tokens, SPARQL queries and facts shown per question, by type,
  (c) Hits@1 at each --noise rate, once per seed,
  (d) the share of wrong tentative answers corrected from evidence and, with
      --missing-from, the share of right ones kept on questions whose
      evidence the KG lacks,
then (e) the same on the demo graph and its questions (unless --demo=false).
Writes report.md, report.json, robustness.svg and the results files of
--input in --out, and those of the demo graph in --out/demo, and prints the
reports.`

type benchFlags struct {
	cfg          *configFlags
	format       string
	input        string
	missingFrom  string
	missingLimit int
	limit        int
	noise        string
	seeds        string
	noiseKinds   string
	sufficiency  string
	wording      string
	concurrency  int
	timeout      time.Duration
	hubRelations int
	out          string
	demo         bool
	noiseOnly    bool
}

func runBench(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 && args[0] == "kg" {
		return runBenchKG(ctx, env, args[1:])
	}
	if len(args) == 0 || args[0] != "oracle" {
		return usageError("want `parog bench oracle ...` or `parog bench kg ...` (see their --help)")
	}
	fs := newFlags(env, "bench", benchSynopsis)
	f := benchFlags{cfg: addConfigFlags(fs)}
	fs.StringVar(&f.format, "format", "", "question file format: webqsp, cwq, grailqa or demo")
	fs.StringVar(&f.input, "input", "", "question `FILE` whose gold answers the KG holds")
	fs.StringVar(&f.missingFrom, "missing-from", "", "question `FILE` (same format) from which questions not in --input, with their topic entities in the KG, measure keeping right tentative answers")
	f.missingLimit = 100
	countVar(fs, &f.missingLimit, "missing-limit", "at most `N` questions from --missing-from")
	countVar(fs, &f.limit, "limit", "use only the first `N` questions of --input (0: all)")
	fs.StringVar(&f.noise, "noise", "0,0.05,0.1,0.2,0.4", "comma-separated noise `rates`")
	fs.StringVar(&f.seeds, "seeds", "1,2,3", "comma-separated noise `seeds`")
	fs.StringVar(&f.noiseKinds, "noise-kinds", "", "comma-separated noise `kinds` or families (format, semantic, all; default format)")
	fs.StringVar(&f.sufficiency, "sufficiency", oracle.SufficiencyStrict, "the oracle's early `stop`: strict (only when the evidence shown determines the answer) or never (every step of every plan runs)")
	fs.StringVar(&f.wording, "wording", oracle.WordingGold, "how the oracle words its plans' subgoals: gold (the gold plan's texts, naming its relations) or question (the question's own words only: no relation id or relation name the question does not use)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "questions answered at once")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "deadline of one question")
	fs.StringVar(&f.out, "out", "bench-oracle", "output `DIR` of the reports and results files of --input (the demo graph's go in DIR/demo)")
	f.hubRelations = bench.DefaultHubRelations
	countVar(fs, &f.hubRelations, "hub-relations", "in the KG cost, an entity listing at least `N` relations is a hub")
	fs.BoolVar(&f.demo, "demo", true, "also run the demo graph's questions")
	fs.BoolVar(&f.noiseOnly, "noise-only", false, "run only the noise runs (no ceiling, evidence-only or tentative runs): a cheaper sweep over noise kinds")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	return f.run(ctx, env)
}

func (f *benchFlags) run(ctx context.Context, env *Env) error {
	format, err := dataset.ParseFormat(f.format)
	if err != nil {
		return usageError("--format: %v", err)
	}
	rates, err := parseFloats(f.noise)
	if err != nil {
		return usageError("--noise: %v", err)
	}
	seeds, err := eval.ParseSeeds(f.seeds)
	if err != nil {
		return usageError("--seeds: %v", err)
	}
	kinds, err := oracle.ParseNoiseKinds(f.noiseKinds)
	if err != nil {
		return usageError("--noise-kinds: %v", err)
	}
	suf, err := oracle.ParseSufficiency(f.sufficiency)
	if err != nil {
		return usageError("--sufficiency: %v", err)
	}
	wording, err := oracle.ParseWording(f.wording)
	if err != nil {
		return usageError("--wording: %v", err)
	}
	cfg, err := f.cfg.load(env)
	if err != nil {
		return err
	}
	qs, err := loadQuestions(ctx, env, format, f.input)
	if err != nil {
		return err
	}
	qs, _ = eval.Select(qs, f.limit, eval.Shard{})
	logf := func(format string, a ...any) { fmt.Fprintf(env.Stderr, "parog bench: "+format+"\n", a...) }
	o := bench.BenchOptions{Name: strings.TrimSuffix(filepath.Base(f.input), filepath.Ext(f.input)), Config: cfg, Questions: qs,
		Noise: rates, Seeds: seeds, NoiseKinds: kinds, Sufficiency: suf, Wording: wording, Concurrency: f.concurrency, Timeout: f.timeout, HubRelations: f.hubRelations, Logf: logf,
		NoiseOnly: f.noiseOnly}
	if o.Name == "" || o.Name == "." {
		o.Name = string(format)
	}
	o.Dir = f.out
	if err := f.bench(ctx, env, o, format); err != nil {
		return err
	}
	if !f.demo {
		return nil
	}
	demo, err := loadQuestions(ctx, env, dataset.Demo, "")
	if err != nil {
		return err
	}
	o.Name, o.Questions, o.Missing, o.Config = "demo", demo, nil, demoGraphConfig(cfg)
	o.Dir = filepath.Join(f.out, "demo")
	return f.bench(ctx, env, o, dataset.Demo)
}

// demoGraphConfig is cfg with the shipped demo graph as its KG.
func demoGraphConfig(cfg config.Config) config.Config {
	d := config.Default()
	cfg.KG = d.KG
	cfg.KG.Backend, cfg.KG.Dialect, cfg.KG.Files = "embedded", "freebase", []string{"builtin:demo-freebase"}
	return cfg
}

// bench opens the KG once, picks the questions lacking evidence, runs the
// measures and writes the reports in o.Dir.
func (f *benchFlags) bench(ctx context.Context, env *Env, o bench.BenchOptions, format dataset.Format) error {
	a, err := openApp(ctx, o.Config, env, graphOnly())
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	g := a.Graph
	o.Graph, o.Engine = g, a.engineFor
	if f.missingFrom != "" && format != dataset.Demo {
		all, err := loadQuestions(ctx, env, format, f.missingFrom)
		if err != nil {
			return err
		}
		if o.Missing, err = bench.MissingEvidence(ctx, g, all, o.Questions, f.missingLimit); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	start := time.Now()
	rep, err := bench.Bench(ctx, o)
	if err != nil {
		return err
	}
	md := rep.Markdown() + fmt.Sprintf("\nRun in %s.\n", time.Since(start).Round(time.Second))
	for name, data := range map[string][]byte{"report.md": []byte(md), "report.json": rep.JSON(), "robustness.svg": []byte(rep.SVG())} {
		if err := writeOutBytes("--out", filepath.Join(o.Dir, name), false, data); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	fmt.Fprintln(env.Stdout, md)
	fmt.Fprintf(env.Stdout, "written: %s\n\n", filepath.Join(o.Dir, "{report.md,report.json,robustness.svg}"))
	return nil
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || v > 1 {
			return nil, fmt.Errorf("%q is not a rate between 0 and 1", p)
		}
		out = append(out, v)
	}
	return out, nil
}
