package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMcNemar(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1}, {5, 5, 1}, {0, 10, 2.0 / 1024}, {10, 0, 2.0 / 1024}, {1, 9, 22.0 / 1024},
		{3, 4, 1}, {0, 1, 1},
	} {
		assert.InDelta(t, tc.want, McNemar(tc.b, tc.c), 1e-12, "b=%d c=%d", tc.b, tc.c)
	}
	// Large counts stay finite and small.
	assert.Less(t, McNemar(100, 300), 1e-20)
}

func TestCompareRuns(t *testing.T) {
	res := func(id, typ string, hit bool, pred string) eval.Result {
		return eval.Result{ID: id, Type: typ, Hit: hit, Prediction: pred, Question: "q " + id, Trace: json.RawMessage(`{"steps":["` + pred + `"]}`)}
	}
	a := ResultSet{Name: "a.jsonl", Results: []eval.Result{
		res("1", "composition", false, "Paris"), res("2", "composition", true, "Rome"),
		res("3", "conjunction", true, "Oslo"), res("4", "conjunction", false, "x"), res("5", "count", true, "3"),
	}}
	b := ResultSet{Name: "b.jsonl", Results: []eval.Result{
		res("1", "composition", true, "Berlin"), res("2", "composition", true, "Rome"),
		res("3", "conjunction", false, "Bergen"), res("4", "conjunction", true, "Madrid"), res("6", "count", true, "4"),
	}}
	d := CompareRuns(a, b)
	assert.Equal(t, 4, d.Paired)
	assert.Equal(t, 1, d.OnlyA)
	assert.Equal(t, 1, d.OnlyB)
	assert.Equal(t, DiffRow{Type: "all", N: 4, HitsA: 2, HitsB: 3, Hits1A: 0.5, Hits1B: 0.75, Delta: 0.25, Fixed: 2, Broken: 1, PValue: 1}, d.Overall)
	require.Len(t, d.ByType, 2)
	assert.Equal(t, DiffRow{Type: "composition", N: 2, HitsA: 1, HitsB: 2, Hits1A: 0.5, Hits1B: 1, Delta: 0.5, Fixed: 1, PValue: 1}, d.ByType[0])
	require.Len(t, d.Fixed, 2)
	assert.Equal(t, "1", d.Fixed[0].ID)
	assert.Equal(t, "Paris", d.Fixed[0].PredictionA)
	assert.Equal(t, "Berlin", d.Fixed[0].PredictionB)
	assert.JSONEq(t, `{"steps":["Berlin"]}`, string(d.Fixed[0].TraceB))
	require.Len(t, d.Broken, 1)
	assert.Equal(t, "3", d.Broken[0].ID)

	var md bytes.Buffer
	require.NoError(t, d.WriteMarkdown(&md, 1))
	for _, want := range []string{
		"| composition | 2 | 50.0% | 100.0% | +50.0 | 1 | 0 | 1 |",
		"| all | 4 | 50.0% | 75.0% | +25.0 | 2 | 1 | 1 |",
		"## Fixed in B (A missed, B hit): 2", "... and 1 more", `A "Paris"; B "Berlin"`,
		"## Broken in B (A hit, B missed): 1", `{"steps":["Bergen"]}`,
	} {
		assert.Contains(t, md.String(), want)
	}
}
