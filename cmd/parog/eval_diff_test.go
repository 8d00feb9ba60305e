package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/report"
)

func TestEvalDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, hits map[string]bool) string {
		var b strings.Builder
		for _, id := range []string{"demo-01", "demo-02", "demo-03"} {
			line, err := json.Marshal(eval.Result{ID: id, Question: "question " + id, Type: "conjunction", Hit: hits[id],
				Prediction: name + "-" + id, Trace: json.RawMessage(`{"run":"` + name + `"}`)})
			require.NoError(t, err)
			b.Write(append(line, '\n'))
		}
		path := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
		return path
	}
	a := write("a", map[string]bool{"demo-01": true})
	b := write("b", map[string]bool{"demo-02": true, "demo-03": true})
	js := filepath.Join(dir, "d.json")
	code, stdout, stderr := runParog(t, nil, "eval", "diff", a, b, "--json", js, "--md", filepath.Join(dir, "d.md"))
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	var d report.Diff
	data, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &d))
	assert.Equal(t, 3, d.Paired)
	assert.Equal(t, 2, d.Overall.Fixed)
	assert.Equal(t, 1, d.Overall.Broken)
	require.Len(t, d.Broken, 1)
	assert.Equal(t, "demo-01", d.Broken[0].ID)
	assert.JSONEq(t, `{"run":"a"}`, string(d.Broken[0].TraceA))
	assert.JSONEq(t, `{"run":"b"}`, string(d.Broken[0].TraceB))

	code, stdout, stderr = runParog(t, nil, "eval", "diff", a, b)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "| conjunction | 3 | 33.3% | 66.7% | +33.3 | 2 | 1 | 1 |")
	assert.Contains(t, stdout, "## Fixed in B (A missed, B hit): 2")

	code, _, stderr = runParog(t, nil, "eval", "diff", a)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "exactly two")
}
