package sparql2plan

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The benchmark files: the whole samples in the real data directory (the
// test skips without them), or their excerpts in the repository's testdata.
const (
	cwqFile     = "cwq_sample.json"
	grailQAFile = "grailqa_sample.json"
	webQSPFile  = "webqsp/WebQSP.train.json"
)

func planSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(engine.PlanSchema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("plan.schema.json", doc))
	s, err := c.Compile("plan.schema.json")
	require.NoError(t, err)
	return s
}

// TestAcceptanceOnSharedSamples is the acceptance: >= 98% of CWQ
// and 100% of GrailQA convert; CWQ's label is among the plan kinds on >=
// 95% of all CWQ questions; GrailQA's function matches on 100%; every plan
// validates against the Plan JSON schema.
func TestAcceptanceOnSharedSamples(t *testing.T) {
	schema := planSchema(t)
	tests := []struct {
		file               string
		format             dataset.Format
		minConvert, minLab float64
	}{
		{cwqFile, dataset.CWQ, 0.98, 0.95},
		{grailQAFile, dataset.GrailQA, 1.0, 1.0},
	}
	for _, tc := range tests {
		t.Run(string(tc.format), func(t *testing.T) {
			l, err := dataset.LoadFile(context.Background(), realdata.Path(t, tc.file), tc.format)
			require.NoError(t, err)
			converted, agreed := 0, 0
			failures := map[string]int{}
			for _, q := range l.Questions {
				c, err := Convert(pairOf(q))
				if err != nil {
					failures[FailureReason(err)]++
					continue
				}
				converted++
				if ok, checked := LabelAgrees(string(q.Source), q.Label, c.Plan); ok && checked {
					agreed++
				}
				b, err := json.Marshal(c.Plan)
				require.NoError(t, err)
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
				require.NoError(t, err)
				require.NoError(t, schema.Validate(inst), "%s: %s", q.ID, b)
				_, err = kgqa.ParsePlan(b)
				require.NoError(t, err, q.ID)
			}
			n := float64(len(l.Questions))
			t.Logf("%s: converted %d/%d (%.2f%%), label agrees %d/%d (%.2f%%), failures %v",
				tc.format, converted, len(l.Questions), 100*float64(converted)/n, agreed, len(l.Questions), 100*float64(agreed)/n, failures)
			assert.GreaterOrEqual(t, float64(converted)/n, tc.minConvert)
			assert.GreaterOrEqual(t, float64(agreed)/n, tc.minLab)
		})
	}
}

// TestAcceptanceOnExcerpts holds the excerpts of testdata to the same
// bar, so that a fresh clone converts real questions too. Every question
// of the three excerpts converts to a plan that validates (none of them is
// among the whole samples' failures), and every CWQ label and GrailQA
// function agrees with its plan (WebQSP questions carry no label).
func TestAcceptanceOnExcerpts(t *testing.T) {
	schema := planSchema(t)
	for _, tc := range []struct {
		file   string
		format dataset.Format
	}{{cwqFile, dataset.CWQ}, {grailQAFile, dataset.GrailQA}, {webQSPFile, dataset.WebQSP}} {
		t.Run(string(tc.format), func(t *testing.T) {
			l, err := dataset.LoadFile(t.Context(), realdata.Excerpt(t, tc.file), tc.format)
			require.NoError(t, err)
			require.Len(t, l.Questions, 30)
			converted, agreed := 0, 0
			for _, q := range l.Questions {
				c, err := Convert(pairOf(q))
				if err != nil {
					t.Logf("%s: %v", q.ID, err)
					continue
				}
				converted++
				if ok, checked := LabelAgrees(string(q.Source), q.Label, c.Plan); ok && checked {
					agreed++
				}
				b, err := json.Marshal(c.Plan)
				require.NoError(t, err)
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
				require.NoError(t, err)
				require.NoError(t, schema.Validate(inst), "%s: %s", q.ID, b)
			}
			t.Logf("%s excerpt: converted %d/30, label agrees %d/30", tc.format, converted, agreed)
			assert.Equal(t, 30, converted)
			if tc.format != dataset.WebQSP {
				assert.Equal(t, 30, agreed)
			}
		})
	}
}

// TestLabelAgreesDetectsMismatch shows the label check can fail.
func TestLabelAgreesDetectsMismatch(t *testing.T) {
	c, err := ConvertQuery("PREFIX : <http://rdf.freebase.com/ns/> SELECT (COUNT(?x0) AS ?value) WHERE { VALUES ?x1 { :m.0abc } ?x1 :a.b.c ?x0 . }", nil)
	require.NoError(t, err)
	ok, checked := LabelAgrees(string(dataset.GrailQA), "none", c.Plan)
	assert.True(t, checked)
	assert.False(t, ok)
	ok, _ = LabelAgrees(string(dataset.GrailQA), "count", c.Plan)
	assert.True(t, ok)
	ok, _ = LabelAgrees(string(dataset.CWQ), "superlative", c.Plan)
	assert.False(t, ok)
	_, checked = LabelAgrees(string(dataset.WebQSP), "", c.Plan)
	assert.False(t, checked)
}

func TestConvertFailures(t *testing.T) {
	tests := []struct{ name, query, reason string }{
		{"not SPARQL", "SELEKT ?x", "parse"},
		{"ask", "ASK { ?x <http://rdf.freebase.com/ns/a.b> ?y }", "unsupported: ASK query"},
		{"disconnected", "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ns:m.01 ns:a.b ?x . ?z ns:c.d ns:m.02 . }", "shape: triple not connected to the answer"},
		// A difference of two variables' values compared with zero says
		// "before" or "after" another variable's date, which a plan
		// cannot; with a constant on one side it is a plain comparison.
		{"arithmetic filter", "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ns:m.01 ns:a.b ?x . ?x ns:c.d ?n . ?x ns:e.f ?m . FILTER(?n - ?m < 0) }", "unsupported: FILTER comparison without a variable"},
		{"arithmetic filter other than a difference with zero", "PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE { ns:m.01 ns:a.b ?x . ?x ns:c.d ?n . FILTER(?n - 3 < 1) }", "unsupported: FILTER comparison without a variable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ConvertQuery(tc.query, nil)
			require.Error(t, err)
			assert.Equal(t, tc.reason, FailureReason(err))
		})
	}
	_, err := Convert(Pair{ID: "x"})
	assert.Equal(t, "no-sparql", FailureReason(err))
}

// TestDuringEitherWay: an event's span bounds a position's dates the same
// whichever side of the FILTER names it; bounded from one side only it is
// "before" or "after", which the plan cannot state.
func TestDuringEitherWay(t *testing.T) {
	const head = `PREFIX ns: <http://rdf.freebase.com/ns/> SELECT ?x WHERE {
		ns:m.0war ns:time.event.start_date ?start ; ns:time.event.end_date ?end .
		ns:m.0boss ns:business.employer.employees ?y . ?y ns:business.employment_tenure.person ?x .
		?y ns:business.employment_tenure.from ?from ; ns:business.employment_tenure.to ?to . `
	for _, filter := range []string{
		"FILTER(?from < ?end) FILTER(?to > ?start) }",
		"FILTER(?end > ?from) FILTER(?start < ?to) }", // the war's dates on the left
	} {
		c, err := ConvertQuery(head+filter, nil)
		require.NoError(t, err, filter)
		var texts []string
		for _, s := range c.Plan.Subgoals {
			texts = append(texts, s.Text)
		}
		assert.Contains(t, strings.Join(texts, " "), "during a specific entity", filter)
	}
	for _, filter := range []string{
		"FILTER(?from > ?end) }",
		"FILTER(?end < ?from) FILTER(?start < ?from) }",
	} {
		_, err := ConvertQuery(head+filter, nil)
		require.Error(t, err, filter)
		assert.Equal(t, "unsupported: FILTER bounding a value only from one side by a given entity's", FailureReason(err), filter)
	}
}

// BenchmarkConvertSamples converts all 1,550 shared samples per iteration
// (loading excluded).
func BenchmarkConvertSamples(b *testing.B) {
	var qs []dataset.Question
	for _, f := range []struct {
		p string
		f dataset.Format
	}{{cwqFile, dataset.CWQ}, {grailQAFile, dataset.GrailQA}} {
		l, err := dataset.LoadFile(context.Background(), realdata.Path(b, f.p), f.f)
		require.NoError(b, err)
		qs = append(qs, l.Questions...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, q := range qs {
			_, _ = Convert(pairOf(q))
		}
	}
	b.ReportMetric(float64(len(qs)), "questions/op")
}
