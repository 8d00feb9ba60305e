package main

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/pogrule"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa/config"
)

// TestPaperRecipes runs every command of docs/reproduce.md end to end on
// the FB15k-237 slice in place of full Freebase, with the oracle model in
// place of GPT-3.5, GPT-4 and the SFT planner, on a clone with no data: the
// page's data get from the test mirror of testdata/, each row's eval (its
// two configs merged into one file whose KG is the imported slice), and
// each table's eval report as written. Every results file must be read by
// the report and, row by row, as PoG's eval.py reads it.
func TestPaperRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nine evals; skipped with -short")
	}
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	page, err := os.ReadFile(filepath.Join(repo, "docs", "reproduce.md"))
	require.NoError(t, err)
	mirror := testMirror(t)
	work := filepath.Join(t.TempDir(), "main")
	require.NoError(t, os.Mkdir(work, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(repo, "configs"), filepath.Join(work, "configs")))
	t.Chdir(work)
	require.NoError(t, os.MkdirAll("out/paper", 0o755))

	var runs, reports [][]string
	for _, args := range readmeLines(t, string(page)) {
		switch {
		case args[0] != "parog":
		case args[1] == "data" && len(args) > 3:
			code, _, stderr := runParog(t, nil, append([]string{"data", "get", "--from", mirror}, args[3:]...)...)
			require.Equal(t, 0, code, stderr)
		case len(args) < 4: // a command named in prose
		case args[1] == "eval" && args[2] == "report":
			reports = append(reports, args)
		case args[1] == "eval":
			runs = append(runs, args)
		}
	}
	require.Len(t, runs, 9, "one run per row: 3 benchmarks x 3 models")
	require.Len(t, reports, 3, "one table per benchmark")

	// The slice, in place of full Freebase.
	code, _, stderr := runParog(t, nil, "data", "get", "--from", mirror, "fb15k237")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runParog(t, nil, "kg", "import", "fb15k237", "--in", "data/fb15k237/FB15k-237.tar.gz",
		"--names", "data/fb15k237/FB15k_mid2name.txt", "--out", "out/fb15k237.nt.gz")
	require.Equal(t, 0, code, stderr)
	slice, err := filepath.Abs("out/fb15k237.nt.gz")
	require.NoError(t, err)

	models := map[string]bool{}
	for _, args := range runs {
		name := flagValue(args, "--out")
		t.Run(filepath.Base(name), func(t *testing.T) {
			configs := flagValues(args, "--config")
			require.Len(t, configs, 2, "a row layers the KG config and a model config")
			require.Equal(t, "configs/paper/freebase.yaml", configs[0])
			models[configs[1]] = true
			format, err := dataset.ParseFormat(flagValue(args, "--dataset"))
			require.NoError(t, err)
			input := flagValue(args, "--input")
			merged := mergedConfig(t, configs, slice)
			srv := oracleFor(t, input, format)
			env := map[string]string{"PAROG_LLM_REASONER_BASE_URL": srv.URL + "/v1", "PAROG_LLM_REASONER_MODEL": oracle.ModelID, "OPENAI_API_KEY": "test-key"}
			if strings.Contains(configs[1], "planner") {
				env["PAROG_LLM_PLANNER_BASE_URL"], env["PAROG_LLM_PLANNER_MODEL"] = srv.URL+"/v1", oracle.ModelID
			}
			run := []string{"eval", "--config", merged}
			for i := 2; i < len(args); i++ {
				if args[i] == "--config" {
					i++
					continue
				}
				run = append(run, args[i])
			}
			run = append(run, "--limit", "8", "--no-progress")
			code, stdout, stderr := runParog(t, env, run...)
			require.Equal(t, 0, code, "%s\nstderr: %s", strings.Join(args, " "), stderr)
			assert.Contains(t, stdout, "ran 8")
			assertPoGReads(t, name, input, format)
		})
	}
	assert.Len(t, models, 3, "GPT-3.5, GPT-4 and the SFT planner")
	for _, args := range reports {
		code, _, stderr := runParog(t, nil, args[1:]...)
		require.Equal(t, 0, code, "%s\nstderr: %s", strings.Join(args, " "), stderr)
		md, err := os.ReadFile(flagValue(args, "--md"))
		require.NoError(t, err)
		for _, f := range args[3:] {
			if strings.HasSuffix(f, ".jsonl") {
				assert.Contains(t, string(md), filepath.Base(f), "the table has a row for %s", f)
			}
		}
	}
}

// TestPaperConfigs checks the layering of configs/paper: freebase.yaml
// holds the KG and search settings and no model, each model file holds
// model settings only, and each loads layered on freebase.yaml with
// PARoG's own calls: a tentative call per subgoal and a relation choice
// in every first round (the defaults fold the one into the plan and skip
// the other on a clear ranking).
func TestPaperConfigs(t *testing.T) {
	files, err := filepath.Glob("../../configs/paper/*.yaml")
	require.NoError(t, err)
	require.Len(t, files, 4)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, yaml.Unmarshal(b, &m))
		keys := slices.Sorted(maps.Keys(m))
		if filepath.Base(f) == "freebase.yaml" {
			assert.Equal(t, []string{"engine", "kg"}, keys, f)
		} else {
			assert.Equal(t, []string{"llm"}, keys, "%s holds model settings only", f)
		}
		layered := mergedConfig(t, []string{"../../configs/paper/freebase.yaml", f}, "")
		cfg, err := config.Load(layered, func(string) (string, bool) { return "", false }, nil)
		require.NoError(t, err, f)
		assert.False(t, cfg.Engine.PlanTentatives, "%s: a tentative call per subgoal", f)
		assert.False(t, cfg.Engine.ClearTopFacts, "%s: a relation choice in every first round", f)
	}
}

func flagValues(args []string, name string) []string {
	var out []string
	for i, a := range args[:len(args)-1] {
		if a == name {
			out = append(out, args[i+1])
		}
	}
	return out
}

func flagValue(args []string, name string) string {
	v := flagValues(args, name)
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// mergedConfig writes one file holding the row's configs merged in order,
// key by key, with the KG replaced by the embedded slice unless slice is
// empty.
func mergedConfig(t *testing.T, files []string, slice string) string {
	t.Helper()
	merged := map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, yaml.Unmarshal(b, &m))
		mergeInto(merged, m)
	}
	if slice != "" {
		merged["kg"] = map[string]any{"backend": "embedded", "dialect": "freebase", "files": []string{slice}, "language": "en"}
	}
	b, err := yaml.Marshal(merged)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "merged.yaml")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeInto(dm, sm)
				continue
			}
			cp := map[string]any{}
			maps.Copy(cp, sm)
			dst[k] = cp
			continue
		}
		dst[k] = v
	}
}

// oracleFor serves the oracle model for the questions of input.
func oracleFor(t *testing.T, input string, format dataset.Format) *httptest.Server {
	t.Helper()
	loaded, err := dataset.LoadFile(context.Background(), input, format)
	require.NoError(t, err)
	m, _ := oracle.New(loaded.Questions)
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// assertPoGReads reads a results file as PoG's eval.py does: each row's
// question under the dataset's key ("RawQuestion" for WebQSP, "question"
// otherwise) has a gold record in the input, and its "results" text is
// scored by PoG's rule without the script stopping.
func assertPoGReads(t *testing.T, results, input string, format dataset.Format) {
	t.Helper()
	data, err := os.ReadFile(input)
	require.NoError(t, err)
	gold, err := pogrule.LoadPoGGold(data, format, nil)
	require.NoError(t, err)
	rule := &pogrule.PoGRule{Gold: gold}
	key := "question"
	if format == dataset.WebQSP {
		key = "RawQuestion"
	}
	f, err := os.Open(results)
	require.NoError(t, err)
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var row map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &row))
		q, ok := row[key].(string)
		require.Truef(t, ok, "row %d of %s has no %q, which PoG's eval.py reads", rows+1, results, key)
		text, ok := row["results"].(string)
		require.True(t, ok, "row %d has no results text", rows+1)
		_, err := rule.ScoreResults(q, text)
		require.NoErrorf(t, err, "PoG's eval.py would stop on row %d of %s", rows+1, results)
		rows++
	}
	require.NoError(t, sc.Err())
	assert.Positive(t, rows)
	assert.True(t, slices.Contains([]dataset.Format{dataset.WebQSP, dataset.CWQ, dataset.GrailQA}, format))
}
