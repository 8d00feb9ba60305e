package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/oracle"
)

// parog ask --set planner.mode=lqt plans with the logical query tree,
// and both the readable trace and --json say which planner ran.
func TestAskWithTheLQTPlanner(t *testing.T) {
	l, err := dataset.LoadFile(context.Background(), "../../kgqa/kg/demokg/questions.json", dataset.Demo)
	require.NoError(t, err)
	m, _ := oracle.New(l.Questions)
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	cfgPath := writeAskConfig(t, srv.URL+"/v1")
	const q = "What country bordering France contains an airport that serves Nijmegen?"
	args := []string{"ask", "--config", cfgPath, "--set", "planner.mode=lqt", "--topic", "m.0f8l9c", "--topic", "m.0yql28"}

	code, out, errb := runParog(t, nil, append(args, q)...)
	require.Equal(t, 0, code, errb)
	assert.Contains(t, out, "Plan (lqt; logical query tree by dp: 4 atomic queries, 6 of 6 pairs asked, 0 known unrelated")
	assert.Contains(t, out, "Answer: Germany")

	code, out, errb = runParog(t, nil, append(args, "--json", q)...)
	require.Equal(t, 0, code, errb)
	var ans struct {
		PlanInfo struct {
			Source string `json:"source"`
			Tree   struct {
				Method    string         `json:"method"`
				PairCalls int            `json:"pair_calls"`
				Labels    map[string]int `json:"labels"`
			} `json:"tree"`
		} `json:"plan_info"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ans))
	assert.Equal(t, "lqt", ans.PlanInfo.Source)
	assert.Equal(t, "dp", ans.PlanInfo.Tree.Method)
	assert.Equal(t, map[string]int{"unrelated": 2, "sibling": 1, "parent_child": 3}, ans.PlanInfo.Tree.Labels)
}
