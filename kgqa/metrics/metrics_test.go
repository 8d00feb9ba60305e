package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa"
)

// A call's duration and its wait for a slot are separate series; a call
// that never reached the endpoint counts as unsent, with no request and
// no duration.
func TestObserveLLM(t *testing.T) {
	m := New()
	m.ObserveLLM(kgqa.Call{Role: kgqa.Reasoner, Stage: "refine", Requests: 2, Latency: 2 * time.Second, Wait: 10 * time.Second,
		PromptTokens: 100, CompletionTokens: 7})
	m.ObserveLLM(kgqa.Call{Role: kgqa.Reasoner, Stage: "refine", Wait: 30 * time.Second, Err: "cancelled"})

	mfs, err := m.Registry().Gather()
	require.NoError(t, err)
	got := map[string][2]float64{}
	for _, mf := range mfs {
		for _, mm := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range mm.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case mm.GetHistogram() != nil:
				got[key] = [2]float64{float64(mm.GetHistogram().GetSampleCount()), mm.GetHistogram().GetSampleSum()}
			case mm.GetCounter() != nil:
				got[key] = [2]float64{mm.GetCounter().GetValue()}
			}
		}
	}
	assert.Equal(t, 1.0, got["parog_llm_calls_total,outcome=ok,role=reasoner,stage=refine"][0])
	assert.Equal(t, 1.0, got["parog_llm_calls_total,outcome=unsent,role=reasoner,stage=refine"][0])
	assert.Equal(t, 2.0, got["parog_llm_requests_total,role=reasoner,stage=refine"][0])
	assert.Equal(t, 100.0, got["parog_llm_tokens_total,kind=prompt,role=reasoner,stage=refine"][0])
	assert.Equal(t, [2]float64{1, 2}, got["parog_llm_call_duration_seconds,role=reasoner,stage=refine"], "the sent call's own 2 s")
	assert.Equal(t, [2]float64{2, 40}, got["parog_llm_slot_wait_seconds,role=reasoner"], "both calls' waits")
}

// Each query of an answer's KG usage is one sample of its kind.
func TestObserveKGQueries(t *testing.T) {
	m := New()
	m.ObserveAnswer(&kgqa.Answer{Stop: kgqa.StopPlanComplete, Usage: kgqa.Usage{SPARQLQueries: 3, KG: &kgqa.KGUsage{Queries: []kgqa.KGQueryCost{
		{Kind: "relations", MS: 500}, {Kind: "relations", MS: 1500}, {Kind: "names", MS: 20},
	}}}})
	m.ObserveKGQueries(nil)
	mfs, err := m.Registry().Gather()
	require.NoError(t, err)
	got := map[string][2]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "parog_sparql_query_duration_seconds" {
			continue
		}
		for _, mm := range mf.GetMetric() {
			got[mm.GetLabel()[0].GetValue()] = [2]float64{float64(mm.GetHistogram().GetSampleCount()), mm.GetHistogram().GetSampleSum()}
		}
	}
	assert.Equal(t, map[string][2]float64{"relations": {2, 2}, "names": {1, 0.02}}, got)
}

// BenchmarkObserveLLM is one model call's recording, as the engine's
// calls make it.
func BenchmarkObserveLLM(b *testing.B) {
	m := New()
	c := kgqa.Call{Role: kgqa.Reasoner, Stage: "refine", Requests: 1, PromptTokens: 900, CompletionTokens: 60,
		Latency: 50 * time.Millisecond, Wait: time.Millisecond}
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveLLM(c)
	}
}
