package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/lqt"
)

// demoQuestions are the demo graph's questions, gold SPARQL included.
const demoQuestions = "../../../kgqa/kg/demokg/questions.json"

// benchEngine opens the KG of cfg and returns it with an engine builder
// over it, wired as the program wires one (budgets, neighbour limit,
// planner mode); the KG closes when the test ends.
func benchEngine(t testing.TB, cfg config.Config) (kg.Graph, func(context.Context, config.LLM) (*engine.Engine, func() error, error)) {
	t.Helper()
	g, err := kg.Open(context.Background(), cfg.KG, "", adapters.Open)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	return g, func(_ context.Context, models config.LLM) (*engine.Engine, func() error, error) {
		client, err := llm.New(models)
		if err != nil {
			return nil, nil, err
		}
		eng, err := engine.New(g, client, cfg.Engine, engine.WithNeighborLimit(cfg.KG.NeighborLimit),
			lqt.FromConfig(cfg.Planner, client, nil, nil))
		if err != nil {
			_ = client.Close()
			return nil, nil, err
		}
		return eng, client.Close, nil
	}
}

// demoSetup loads the demo configuration with the overrides, the demo
// questions and an engine builder over the demo graph: what every
// demo-graph benchmark test starts from.
func demoSetup(t *testing.T, overrides ...string) (config.Config, []dataset.Question, kg.Graph, func(context.Context, config.LLM) (*engine.Engine, func() error, error)) {
	t.Helper()
	cfg, err := config.Load("../../../configs/demo.yaml", func(string) (string, bool) { return "", false }, overrides)
	require.NoError(t, err)
	l, err := dataset.LoadFile(context.Background(), demoQuestions, dataset.Demo)
	require.NoError(t, err)
	g, build := benchEngine(t, cfg)
	return cfg, l.Questions, g, build
}

// TestDemoBench runs the measures on the demo graph: the engine with the
// perfect oracle, then under noise, then with wrong tentative answers.
func TestDemoBench(t *testing.T) {
	cfg, questions, g, build := demoSetup(t)
	dir := t.TempDir()
	rep, err := Bench(context.Background(), BenchOptions{Name: "demo", Config: cfg, Graph: g, Engine: build, Questions: questions,
		Noise: []float64{0, 0.1}, Seeds: []int{1}, Concurrency: 4, Dir: dir})
	require.NoError(t, err)

	assert.Equal(t, 22, rep.Ceiling.Total)
	assertDocDemoFigures(t, rep)
	// 18 of 22 with strict sufficiency: the two comparative or superlative
	// questions that start a subgoal from the year 2019, and the two
	// counts of World Series, miss at a step the lax judge used to skip.
	assert.GreaterOrEqual(t, rep.Ceiling.Hits1, 0.80, "misses: %+v", rep.Ceiling.Misses)
	for _, m := range rep.Ceiling.Misses {
		assert.NotEmpty(t, m.Kind, "every miss is classified")
	}
	require.NotEmpty(t, rep.Cost)
	assert.Equal(t, "all", rep.Cost[0].Type)
	assert.Equal(t, 22, rep.Cost[0].Questions)
	assert.Positive(t, rep.Cost[0].Calls)
	assert.Positive(t, rep.Cost[0].Facts)
	assert.Positive(t, rep.Cost[0].RelationsTokens, "relations prompts are counted from the traces")
	assert.Less(t, rep.Cost[0].RelationsTokens, rep.Cost[0].PromptTokens)
	// The KG cost's query log and the engine's query counter agree.
	assert.Equal(t, 22, rep.KG.Questions)
	assert.InDelta(t, rep.Cost[0].SPARQL*22, float64(rep.KG.Queries), 0.01)
	assert.Zero(t, rep.KG.Dropped)
	kinds := map[string]KGKind{}
	for _, k := range rep.KG.ByKind {
		kinds[k.Kind] = k
	}
	assert.Positive(t, kinds["relations"].Queries, "relation listings are logged")
	assert.Positive(t, kinds["neighbors"].Queries, "neighbour queries are logged")
	assert.Equal(t, kinds["relations"].Queries, kinds["relations"].Hub.N+kinds["relations"].Ordinary.N, "every listing has an anchor")
	require.NotEmpty(t, rep.KG.Cache)
	assert.Equal(t, "all", rep.KG.Cache[0].Primitive)
	assert.Positive(t, rep.KG.Cache[0].Misses)

	rows := readRows(t, filepath.Join(dir, "evidence.jsonl"))
	river := rows["demo-04"]
	require.NotNil(t, river, "the river question was answered")
	assert.NotEqual(t, kgqa.StopSufficient, river.Stop, "s1's rivers hold the Rhine among others: the run goes on")
	for _, s := range river.Subgoals {
		assert.Equal(t, "done", s.Status, "%s of %q ran", s.ID, river.Question)
	}

	require.Len(t, rep.Robustness, 2)
	for _, n := range rep.Robustness {
		assert.Equal(t, n.Expected, n.Rows, "no question loses its results row at noise %g", n.Noise)
		assert.Zero(t, n.Crashes, "no question crashes the engine at noise %g", n.Noise)
	}
	assert.NotEmpty(t, rep.Robustness[1].Injected, "noise 0.1 injected errors")
	assert.Positive(t, rep.Refinement.WrongJudged)

	md := rep.Markdown()
	for _, s := range []string{"## Ceiling (perfect oracle", "## Ceiling from evidence alone", "## Cost per question", "## KG cost", "## Robustness", "## Refinement"} {
		assert.Contains(t, md, s)
	}
	svg := rep.SVG()
	assert.True(t, strings.HasPrefix(svg, "<svg") && strings.Contains(svg, "<polyline"), svg)
}

// TestNoiseOnlyBench runs the noise runs alone and writes, beside each
// run's results, the noise kinds each question met: the sum over
// questions is the run's count of errors injected.
func TestNoiseOnlyBench(t *testing.T) {
	cfg, questions, g, build := demoSetup(t)
	dir := t.TempDir()
	rep, err := Bench(context.Background(), BenchOptions{Name: "demo", Config: cfg, Graph: g, Engine: build, Questions: questions,
		Noise: []float64{0.3}, Seeds: []int{1}, NoiseKinds: oracle.SemanticKinds, NoiseOnly: true, Concurrency: 4, Dir: dir})
	require.NoError(t, err)
	assert.Zero(t, rep.Ceiling.Total, "no ceiling run")
	for _, f := range []string{"ceiling.jsonl", "evidence.jsonl", "tentative-wrong.jsonl"} {
		assert.NoFileExists(t, filepath.Join(dir, f))
	}
	require.Len(t, rep.Robustness, 1)
	data, err := os.ReadFile(filepath.Join(dir, "noise-0.3-seed-1.noise.json"))
	require.NoError(t, err)
	var per map[string]map[string]int
	require.NoError(t, json.Unmarshal(data, &per))
	sum := map[string]int{}
	for id, kinds := range per {
		assert.True(t, strings.HasPrefix(id, "demo-"), id)
		for k, n := range kinds {
			sum[k] += n
		}
	}
	require.NotEmpty(t, sum, "noise 0.3 corrupted some replies")
	assert.Equal(t, rep.Robustness[0].Injected, sum)
	// The failures by kind count each question a kind touched once.
	touched := map[string]int{}
	for _, kinds := range per {
		for k := range kinds {
			touched[k]++
		}
	}
	got := map[string]int{}
	for _, k := range rep.Robustness[0].Kinds {
		got[k.Kind] = k.Touched
		assert.LessOrEqual(t, k.Failed, k.Touched)
	}
	assert.Equal(t, touched, got)
	assert.Contains(t, rep.Markdown(), "| noise kind | touched | failed | share failed | 95% CI |")
}

// readRows reads a results file's traces by question id.
func readRows(t *testing.T, path string) map[string]*kgqa.Answer {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]*kgqa.Answer{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r eval.Result
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		var a kgqa.Answer
		require.NoError(t, json.Unmarshal(r.Trace, &a), r.ID)
		out[r.ID] = &a
	}
	return out
}

// TestEngineKnowsNothingOfTheOracle: the engine's packages never link the
// oracle.
func TestEngineKnowsNothingOfTheOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", "../../../kgqa/...").Output()
	require.NoError(t, err)
	assert.NotContains(t, strings.Fields(string(out)), "github.com/parog/parog-go/dataset/oracle")
	assert.NotContains(t, strings.Fields(string(out)), "github.com/parog/parog-go/dataset/oracle/bench")
	assert.Contains(t, strings.Fields(string(out)), "github.com/parog/parog-go/kgqa", "the list is the engine's")
}

// demoFigureRE is the sentence in which docs/oracle.md and docs/asking.md
// state the demo graph's ceiling; TestDemoBench measures it.
var demoFigureRE = regexp.MustCompile(`demo graph today: Hits@1 ([\d.]+)% \((\d+)/(\d+)\) with the perfect oracle, ([\d.]+)% \((\d+)/(\d+)\) from evidence alone`)

// assertDocDemoFigures checks every statement of the demo graph's ceiling
// in the docs against the measured report, so that the pages agree with
// each other and with the code.
func assertDocDemoFigures(t *testing.T, rep *Report) {
	t.Helper()
	want := fmt.Sprintf("demo graph today: Hits@1 %.1f%% (%d/%d) with the perfect oracle, %.1f%% (%d/%d) from evidence alone",
		100*rep.Ceiling.Hits1, rep.Ceiling.Hits, rep.Ceiling.Total, 100*rep.Evidence.Hits1, rep.Evidence.Hits, rep.Evidence.Total)
	for _, page := range []string{"oracle.md", "asking.md"} {
		data, err := os.ReadFile(filepath.Join("../../../docs", page))
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(data)), " ")
		found := demoFigureRE.FindAllString(text, -1)
		require.NotEmpty(t, found, "docs/%s states the demo graph's ceiling as %q", page, want)
		for _, f := range found {
			assert.Equal(t, want, f, "docs/%s", page)
		}
	}
}
