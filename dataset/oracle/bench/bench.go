// Package bench measures the engine against the oracle model of
// dataset/oracle: the ceiling and cost with a perfect model, Hits@1 under
// reproducible noise, and what refinement does with wrong and with right
// tentative answers (parog bench oracle). Each run serves an oracle on a
// loopback port and points the engine's model endpoints at it, so the
// engine meets the oracle as it meets any model.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/sparql2plan"
)

// BenchOptions configures a benchmark of the engine against the oracle.
type BenchOptions struct {
	// Name labels the report ("fb15k237 webqsp-train", "demo").
	Name string
	// Config is the engine's configuration: its KG and budgets. Its LLM
	// endpoints are replaced by the oracle.
	Config config.Config
	// Graph is the KG of Config, opened by the caller: the questions
	// lacking evidence are picked on it, and Engine answers over it.
	Graph kg.Graph
	// Engine builds the engine over Graph with Config's budgets and
	// planner whose models are the endpoints of models (each run points
	// them at an oracle of its own); release closes what it opened. The
	// program passes its one wiring path here.
	Engine func(ctx context.Context, models config.LLM) (eng *engine.Engine, release func() error, err error)
	// Questions are the questions whose gold evidence the KG holds:
	// the ceiling, cost, robustness and correction measures run on them.
	Questions []dataset.Question
	// Missing are questions whose gold evidence the KG lacks: the share of
	// right tentative answers kept runs on them (skipped when empty).
	Missing []dataset.Question
	// Noise are the noise rates of the robustness measure.
	Noise []float64
	// Seeds are the seeds of each noise rate.
	Seeds []int
	// NoiseKinds are the noise kinds of the robustness runs (see
	// ParseNoiseKinds; empty: the format family).
	NoiseKinds []string
	// Sufficiency is the oracle's sufficiency mode (SufficiencyStrict
	// when empty).
	Sufficiency string
	// Wording is how the oracle words its plans' subgoals
	// (oracle.WordingGold when empty; oracle.WordingQuestion keeps to the
	// question's own words).
	Wording string
	// NoiseOnly runs the robustness runs alone, without the ceiling,
	// evidence-only and tentative runs: a cheaper sweep over noise kinds.
	NoiseOnly bool
	// Concurrency is the number of questions in flight.
	Concurrency int
	// HubRelations is the number of relations from which an entity counts
	// as a hub in the KG cost (DefaultHubRelations when <= 0).
	HubRelations int
	// Timeout bounds one question.
	Timeout time.Duration
	// Dir receives the results files, one per run.
	Dir string
	// Logf, when set, reports progress.
	Logf func(format string, args ...any)
}

// Pass is the outcome of one pass over a question set (one policy and noise
// level, every seed).
type Pass struct {
	// Name says what the run measured.
	Name string `json:"name"`
	// Results are the results rows, one per question and seed.
	Results []eval.Result `json:"-"`
	// PerQuestion is what the oracle saw, by question id.
	PerQuestion map[string]oracle.QuestionStats `json:"-"`
	// Oracle counts the requests and the errors injected.
	Oracle oracle.Stats `json:"oracle"`
	// Expected is the number of rows the run should have written.
	Expected int `json:"expected"`
}

// runOnce answers qs once per seed with the engine talking to an oracle of
// the given policy and noise, served on a loopback port.
func runOnce(ctx context.Context, o BenchOptions, name string, qs []dataset.Question, p oracle.Policy, n oracle.Noise, seeds []int) (*Pass, error) {
	suf, err := oracle.ParseSufficiency(o.Sufficiency)
	if err != nil {
		return nil, err
	}
	wording, err := oracle.ParseWording(o.Wording)
	if err != nil {
		return nil, err
	}
	m, _ := oracle.New(qs, oracle.WithTentative(p), oracle.WithNoise(n), oracle.WithSufficiency(suf), oracle.WithWording(wording))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench: run: %w", err)
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = srv.Serve(ln)
	}()
	defer func() {
		_ = srv.Close()
		wg.Wait()
	}()
	cfg := o.Config
	ep := config.Endpoint{BaseURL: "http://" + ln.Addr().String() + "/v1", Model: oracle.ModelID, Timeout: 30 * time.Second,
		Concurrency: 16, Retries: 2, MaxTokens: 1024, JSONSchema: cfg.LLM.Reasoner.JSONSchema}
	cfg.LLM.Planner, cfg.LLM.Reasoner = ep, ep
	if o.Engine == nil {
		return nil, errors.New("bench: run: no engine builder")
	}
	eng, release, err := o.Engine(ctx, cfg.LLM)
	if err != nil {
		return nil, fmt.Errorf("bench: run: %w", err)
	}
	defer func() { _ = release() }()
	ans := eval.NewAnswerer(eng, eval.WithGoldRewrite(func(q string) string { s, _ := sparql2plan.Normalize(q); return s }))
	path := filepath.Join(o.Dir, name+".jsonl")
	_ = os.Remove(path)
	w, err := eval.CreateResultWriter(path, false)
	if err != nil {
		return nil, fmt.Errorf("bench: run: %w", err)
	}
	run := &Pass{Name: name, Expected: len(qs) * max(1, len(seeds))}
	opts := eval.RunOptions{Concurrency: max(1, o.Concurrency), Seeds: seeds, Timeout: o.Timeout,
		OnResult: func(r eval.Result, _ eval.Progress) { run.Results = append(run.Results, r) }}
	_, err = eval.Run(ctx, ans, qs, w, opts)
	err = errors.Join(err, w.Close())
	if err != nil {
		return nil, fmt.Errorf("bench: run: %s: %w", name, err)
	}
	slices.SortFunc(run.Results, func(a, b eval.Result) int {
		if a.ID != b.ID {
			return compareStrings(a.ID, b.ID)
		}
		return seedOf(a) - seedOf(b)
	})
	run.Oracle = m.Stats()
	run.PerQuestion = map[string]oracle.QuestionStats{}
	for _, q := range qs {
		run.PerQuestion[q.ID] = m.Question(q.ID)
	}
	if n.Rate > 0 {
		if err := writeNoisy(filepath.Join(o.Dir, name+".noise.json"), run.PerQuestion); err != nil {
			return nil, err
		}
	}
	if o.Logf != nil {
		o.Logf("%s: %d rows, Hits@1 %.1f%%", name, len(run.Results), 100*hits(run.Results))
	}
	return run, nil
}

// writeNoisy writes, by question id, the noise kinds the oracle applied to
// the replies about it (questions it corrupted nothing of are left out):
// what a question lost under noise met.
func writeNoisy(path string, per map[string]oracle.QuestionStats) error {
	out := map[string]map[string]int{}
	for id, st := range per {
		if len(st.Noisy) > 0 {
			out[id] = st.Noisy
		}
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("oracle: bench: %w", err)
	}
	return nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func seedOf(r eval.Result) int {
	if r.Seed == nil {
		return 0
	}
	return *r.Seed
}

// hits is the share of rows that hit.
func hits(rs []eval.Result) float64 {
	if len(rs) == 0 {
		return 0
	}
	n := 0
	for _, r := range rs {
		if r.Hit {
			n++
		}
	}
	return float64(n) / float64(len(rs))
}

// Labelled returns qs with the primary kind of their gold plan as the
// type label where the dataset gives none (WebQSP), so that results break
// down by question type.
func Labelled(qs []dataset.Question) []dataset.Question {
	out := make([]dataset.Question, len(qs))
	for i, q := range qs {
		if q.Label == "" {
			if c, err := sparql2plan.Convert(oracle.GoldPair(q)); err == nil {
				q.Label = string(sparql2plan.PrimaryKind(c.Plan))
			}
		}
		out[i] = q
	}
	return out
}

// MissingEvidence picks up to limit questions of all that are not among
// answerable (by id) but whose topic entities the KG names: the engine can
// start from them, and the evidence of their answer is missing.
func MissingEvidence(ctx context.Context, g kg.Graph, all, answerable []dataset.Question, limit int) ([]dataset.Question, error) {
	in := map[string]bool{}
	for _, q := range answerable {
		in[q.ID] = true
	}
	var out []dataset.Question
	for _, q := range all {
		if len(out) >= limit {
			break
		}
		if in[q.ID] || len(q.TopicEntities) == 0 || len(q.Answers) == 0 {
			continue
		}
		if _, err := sparql2plan.Convert(oracle.GoldPair(q)); err != nil {
			continue
		}
		known := true
		for _, e := range q.TopicEntities {
			if !g.Dialect().ValidEntity(e.ID) {
				known = false
				break
			}
			name, err := g.Name(ctx, e.ID)
			if err != nil {
				return nil, fmt.Errorf("bench: missing evidence: %w", err)
			}
			known = known && name != ""
		}
		if known {
			out = append(out, q)
		}
	}
	return out, nil
}
