package report

import (
	"sort"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/internal/clip"
)

// PoGReleased are the cost distributions of PoG's released GPT-3.5 result
// files (PoG_<dataset>_gpt-3.5-turbo-0125.jsonl), by dataset; a test
// recomputes them from those files. A report uses them only when no PoG
// file is among its runs, and names them as its source.
var PoGReleased = map[string]PoGReference{
	"cwq": {Source: "PoG_cwq_gpt-3.5-turbo-0125.jsonl (released; 3,531 questions)",
		Calls:   Dist{Mean: 13.82, Median: 9, P90: 28},
		Tokens:  Dist{Mean: 8441.3, Median: 5443, P90: 17798},
		Seconds: Dist{Mean: 34.31, Median: 15.06, P90: 54.08}},
	"webqsp": {Source: "PoG_webqsp_gpt-3.5-turbo-0125.jsonl (released; 1,639 questions)",
		Calls:   Dist{Mean: 9.03, Median: 5, P90: 17},
		Tokens:  Dist{Mean: 5517.7, Median: 3561, P90: 9501},
		Seconds: Dist{Mean: 16.85, Median: 8.61, P90: 33.02}},
	"grailqa": {Source: "PoG_grailqa_gpt-3.5-turbo-0125.jsonl (released; 1,000 questions)",
		Calls:   Dist{Mean: 6.5, Median: 4, P90: 11},
		Tokens:  Dist{Mean: 3595.4, Median: 2291.5, P90: 6399.2},
		Seconds: Dist{Mean: 11.58, Median: 7.12, P90: 24.75}},
}

// PoGReference is PoG's cost per question, shown beside ours.
type PoGReference struct {
	// Source names where the figures come from: a PoG file of the report,
	// or PoG's released file for the dataset.
	Source string `json:"source"`
	// Calls, Tokens and Seconds are PoG's per-question distributions
	// (Max is 0 when not recorded).
	Calls   Dist `json:"llm_calls"`
	Tokens  Dist `json:"tokens"`
	Seconds Dist `json:"seconds"`
}

// Efficiency holds the cost distributions per question.
type Efficiency struct {
	// N is the number of result lines measured.
	N int `json:"n"`
	// Calls, Tokens, InputTokens, OutputTokens and Seconds are
	// per-question distributions.
	Calls        Dist `json:"llm_calls"`
	Tokens       Dist `json:"tokens"`
	InputTokens  Dist `json:"input_tokens"`
	OutputTokens Dist `json:"output_tokens"`
	Seconds      Dist `json:"seconds"`
	// SPARQL is the distribution of SPARQL queries per question; nil when
	// the file does not record them (PoG's).
	SPARQL *Dist `json:"sparql_queries,omitempty"`
	// PoG is PoG's cost for the same dataset, for comparison; nil when
	// unknown.
	PoG *PoGReference `json:"pog,omitempty"`
}

// Dist summarises a distribution.
type Dist struct {
	// Mean, Median, P90 (90th percentile, linear interpolation) and Max.
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Max    float64 `json:"max"`
}

// pogReference is PoG's cost for the report: from the first PoG file among
// the runs, else PoG's released figures for the dataset.
func pogReference(runs []ResultSet, dataset string) *PoGReference {
	for _, run := range runs {
		if run.Format == "pog" {
			e := efficiency(run.Results, false)
			return &PoGReference{Source: run.Name, Calls: e.Calls, Tokens: e.Tokens, Seconds: e.Seconds}
		}
	}
	if r, ok := PoGReleased[dataset]; ok {
		return &r
	}
	return nil
}

// efficiency summarises cost; withSPARQL is false for files that do not
// record SPARQL queries.
func efficiency(rs []eval.Result, withSPARQL bool) Efficiency {
	e := Efficiency{N: len(rs)}
	var calls, tok, in, out, sq, sec []float64
	for _, r := range rs {
		calls = append(calls, float64(r.CallNum))
		tok = append(tok, float64(r.TotalToken))
		in = append(in, float64(r.InputToken))
		out = append(out, float64(r.OutputToken))
		sq = append(sq, float64(r.SPARQLQueries))
		sec = append(sec, r.Time)
	}
	e.Calls, e.Tokens, e.InputTokens = dist(calls), dist(tok), dist(in)
	e.OutputTokens, e.Seconds = dist(out), dist(sec)
	if withSPARQL {
		d := dist(sq)
		e.SPARQL = &d
	}
	return e
}

func dist(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	return Dist{Mean: score.Mean(c), Median: score.Percentile(c, 0.5), P90: score.Percentile(c, 0.9), Max: c[len(c)-1]}
}

func failures(rs []eval.Result) []FailureCount {
	idx := map[string]int{}
	var out []FailureCount
	for _, r := range rs {
		if r.Error == "" {
			continue
		}
		k := r.ErrorKind
		if k == "" {
			k = "other"
		}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, FailureCount{Kind: k, Example: clip.Text(r.Error, 200)})
		}
		out[i].Count++
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}
