package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeAskConfig(t *testing.T, url string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ask.yaml")
	cfg := "kg:\n  backend: embedded\n  dialect: freebase\n  files: [builtin:demo-freebase]\nllm:\n  reasoner:\n    base_url: " + url + "\n    model: scripted\n  planner:\n    base_url: " + url + "\n    model: scripted\n"
	require.NoError(t, os.WriteFile(p, []byte(cfg), 0o600))
	return p
}

func TestAsk(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel(kgqatest.Believe("mascot", "Lou Seal"))))
	cfgPath := writeAskConfig(t, srv.URL())
	env := func() (*Env, *bytes.Buffer, *bytes.Buffer) {
		var out, errb bytes.Buffer
		return &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) (string, bool) { return "", false }}, &out, &errb
	}
	t.Run("readable trace", func(t *testing.T) {
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--topic", "m.0713r", "Who is the mascot of the San Francisco Giants?"}, e)
		require.Equal(t, 0, code, errb.String())
		assert.Contains(t, out.String(), "Answer: Lou Seal")
		assert.Contains(t, out.String(), "refinement: aligned=true")
		assert.Contains(t, out.String(), "Stopped: plan_complete")
		assert.Contains(t, out.String(), "Route: kg (topic_entities_linked)")
		assert.Contains(t, out.String(), "pack: width 3, depth 2")
	})
	t.Run("direct", func(t *testing.T) {
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "What is 6 * 7?"}, e)
		require.Equal(t, 0, code, errb.String())
		assert.Contains(t, out.String(), "Answer: 42")
		assert.Contains(t, out.String(), "Route: direct (arithmetic)")
		assert.Contains(t, out.String(), "Cost: 0 LLM calls")
	})
	t.Run("a relation cut is shown", func(t *testing.T) {
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--set", "engine.max_offered_relations=2", "--topic", "m.0713r", "Who is the mascot of the San Francisco Giants?"}, e)
		require.Equal(t, 0, code, errb.String())
		assert.Regexp(t, `2 relations offered \(the 2 most relevant of \d+, ranked by lexical\)`, out.String())
	})
	t.Run("json", func(t *testing.T) {
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--json", "--topic", "m.0713r", "Who is the mascot of the San Francisco Giants?"}, e)
		require.Equal(t, 0, code, errb.String())
		var ans struct {
			Answer   string `json:"answer"`
			Entities []struct {
				ID string `json:"id"`
			} `json:"entities"`
			StopReason string `json:"stop_reason"`
			PlanInfo   struct {
				Source string `json:"source"`
			} `json:"plan_info"`
			RetrievalPlan struct {
				Route   string            `json:"route"`
				Reasons map[string]string `json:"reasons"`
			} `json:"retrieval_plan"`
			Certificate struct {
				SPARQL   string `json:"sparql"`
				Verified bool   `json:"verified"`
				Covers   string `json:"covers"`
			} `json:"certificate"`
			Subgoals []struct {
				Retrieval struct {
					Depth   int               `json:"depth"`
					Reasons map[string]string `json:"reasons"`
				} `json:"retrieval"`
			} `json:"subgoals"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &ans))
		assert.Equal(t, "Lou Seal", ans.Answer)
		require.Len(t, ans.Entities, 1)
		assert.Equal(t, "m.03_dwn", ans.Entities[0].ID)
		assert.Equal(t, "planner", ans.PlanInfo.Source, "which planner ran")
		assert.Equal(t, "kg", ans.RetrievalPlan.Route, "which retrieval plan ran")
		assert.Equal(t, "topic_entities_linked", ans.RetrievalPlan.Reasons["route"])
		require.NotEmpty(t, ans.Subgoals)
		assert.Equal(t, 2, ans.Subgoals[0].Retrieval.Depth)
		assert.Equal(t, "engine_budget", ans.Subgoals[0].Retrieval.Reasons["depth"])
		assert.True(t, ans.Certificate.Verified, "the certificate's query returns the answer")
		assert.Equal(t, "all", ans.Certificate.Covers)
		assert.Contains(t, ans.Certificate.SPARQL, "ns:m.0713r ns:sports.sports_team.team_mascot ?answer .")

		e, out, errb = env()
		code = Main(context.Background(), []string{"ask", "--config", cfgPath, "--sparql", "--topic", "m.0713r", "Who is the mascot of the San Francisco Giants?"}, e)
		require.Equal(t, 0, code, errb.String())
		assert.Equal(t, ans.Certificate.SPARQL, out.String(), "--sparql prints just the query")
	})
	t.Run("no query for an answer the KG did not give", func(t *testing.T) {
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--sparql", "What is 6 * 7?"}, e)
		assert.Equal(t, 1, code)
		assert.Empty(t, out.String())
		assert.Contains(t, errb.String(), "the answer has no certificate query")
	})
	t.Run("sets beyond the prompt budget and the KG limit", func(t *testing.T) {
		const q = "How many World Series have the New York Yankees won?"
		e, out, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--topic", "m.0wmd1c", q}, e)
		require.Equal(t, 0, code, errb.String())
		assert.Contains(t, out.String(), "Answer: 27")
		assert.Contains(t, out.String(), "Certificate: verified, covers all")
		assert.Contains(t, out.String(), "completed with 7 member(s) the prompt had no room for, along sports.sports_championship_event.champion (in)")
		assert.NotContains(t, out.String(), "may be incomplete")

		capped := filepath.Join(t.TempDir(), "capped.yaml")
		raw, err := os.ReadFile(cfgPath)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(capped, bytes.Replace(raw, []byte("kg:\n"), []byte("kg:\n  neighbor_limit: 10\n"), 1), 0o600))
		e, out, errb = env()
		code = Main(context.Background(), []string{"ask", "--config", capped, "--topic", "m.0wmd1c", q}, e)
		require.Equal(t, 0, code, errb.String())
		assert.Contains(t, out.String(), "Answer: 10")
		assert.Contains(t, out.String(), "Certificate: not verified, covers all (--sparql prints the query): the query's result differs from the answer: 1 of the answer's 1 missing (10), 1 more (27)",
			"the capped count is not what the uncapped query counts, and the answer stands")
		assert.Contains(t, out.String(), "1 queries hit their limit of 10 facts: the KG may hold more")
		assert.Contains(t, out.String(), "[may be incomplete: capped by the KG's neighbour limit]")
	})
	t.Run("bad topic id", func(t *testing.T) {
		e, _, errb := env()
		code := Main(context.Background(), []string{"ask", "--config", cfgPath, "--topic", "m.0713r> ; DROP", "Who?"}, e)
		assert.Equal(t, 1, code)
		assert.Contains(t, errb.String(), "malformed topic entity id")
	})
	t.Run("no question", func(t *testing.T) {
		e, _, _ := env()
		assert.Equal(t, 2, Main(context.Background(), []string{"ask", "--config", cfgPath}, e))
	})
}

// The README's model command, as written: only the base URL and the model
// in the environment, demo.yaml naming OPENAI_API_KEY, which is not set.
// An endpoint such as Ollama wants no key, so none is sent.
func TestAskKeylessEndpoint(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel(kgqatest.Believe("mascot", "Lou Seal"))))
	env := map[string]string{"PAROG_LLM_REASONER_BASE_URL": srv.URL(), "PAROG_LLM_REASONER_MODEL": "llama3.1:8b"}
	code, stdout, stderr := runParog(t, env, "ask", "--config", "../../configs/demo.yaml", "--topic", "m.0713r",
		"Who is the mascot of the San Francisco Giants?")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Answer: Lou Seal")
	assert.Contains(t, stderr, "sending no API key")
	require.NotEmpty(t, srv.Requests())
	for _, r := range srv.Requests() {
		assert.Empty(t, r.Header.Get("Authorization"))
	}
}
