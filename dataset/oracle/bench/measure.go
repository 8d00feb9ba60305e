package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/report"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa/prompts"
)

// Report holds the measures of one benchmark.
type Report struct {
	// Name labels the benchmark.
	Name string `json:"name"`
	// Questions is the number of questions measured; Skipped are those
	// the oracle cannot answer (their gold query does not convert).
	Questions int           `json:"questions"`
	Skipped   []oracle.Skip `json:"skipped,omitempty"`
	// Sufficiency is the oracle's sufficiency mode.
	Sufficiency string `json:"sufficiency"`
	// Wording is how the oracle worded its plans' subgoals.
	Wording string `json:"wording"`
	// NoiseKinds are the noise kinds of the robustness runs.
	NoiseKinds []string `json:"noise_kinds"`
	// Ceiling is Hits@1 with the perfect oracle (gold tentative answers
	// included), and every miss.
	Ceiling Ceiling `json:"ceiling"`
	// Evidence is Hits@1 with the perfect oracle giving no tentative
	// answers: what the engine finds in the KG alone, every miss
	// classified.
	Evidence Ceiling `json:"evidence"`
	// Certificates counts the perfect oracle's answer certificates,
	// overall and by question type: carried, verified on the KG,
	// equivalent to the gold query.
	Certificates []ShapeCertificates `json:"certificates,omitempty"`
	// Cost is the mean cost per question, overall first, then by type.
	Cost []Cost `json:"cost"`
	// KG is the KG work of the perfect oracle's run (the ceiling): the
	// queries by kind, their latency at hubs and at ordinary entities, and
	// the cache hit rate.
	KG KGCost `json:"kg"`
	// Robustness is Hits@1 by noise rate and seed, with no tentative
	// answers (which would hide what the noise breaks).
	Robustness []Noisy `json:"robustness"`
	// Refinement measures corrections and keeps.
	Refinement Refinement `json:"refinement"`
}

// Ceiling is the perfect oracle's score.
type Ceiling struct {
	Hits  int     `json:"hits"`
	Total int     `json:"total"`
	Hits1 float64 `json:"hits1"`
	// ByType is Hits@1 by question type (shape).
	ByType map[string]float64 `json:"by_type,omitempty"`
	// Shapes is Hits@1 overall ("all") and by type with Wilson 95%
	// intervals.
	Shapes []ShapeHits `json:"shapes,omitempty"`
	// Recoveries counts the judgements the engine revisited.
	Recoveries report.RecoveryStats `json:"recoveries"`
	// Misses are the questions missed, each with what went wrong.
	Misses []Miss `json:"misses,omitempty"`
}

// Miss is one question the engine missed with a perfect model.
type Miss struct {
	ID         string   `json:"id"`
	Question   string   `json:"question"`
	Type       string   `json:"type,omitempty"`
	Gold       []string `json:"gold"`
	Prediction string   `json:"prediction"`
	// Kind classifies the miss from the run: "error: <kind>", "relation
	// not offered", "gold not in evidence", "wrong answer chosen".
	Kind string `json:"kind"`
	// Notes are the oracle's notes on the question.
	Notes []string `json:"notes,omitempty"`
	// Error is the engine's error text, if any.
	Error string `json:"error,omitempty"`
}

// Cost is the mean cost per question of one question type.
type Cost struct {
	Type             string  `json:"type"`
	Questions        int     `json:"questions"`
	Calls            float64 `json:"llm_calls"`
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
	// RelationsTokens is the part of PromptTokens spent on relations
	// prompts (choosing the relations to explore), read from the traces'
	// cost by stage.
	RelationsTokens float64 `json:"relations_prompt_tokens"`
	SPARQL          float64 `json:"sparql_queries"`
	Facts           float64 `json:"facts_shown"`
}

// Noisy is one robustness run.
type Noisy struct {
	Noise float64 `json:"noise"`
	Seed  int     `json:"seed"`
	Hits1 float64 `json:"hits1"`
	// ByType is Hits@1 by question type (shape).
	ByType map[string]float64 `json:"by_type,omitempty"`
	// Shapes is Hits@1 overall ("all") and by type with Wilson 95%
	// intervals.
	Shapes []ShapeHits `json:"shapes,omitempty"`
	// Kinds are the failures by noise kind: of the rows whose question a
	// kind touched, those that missed.
	Kinds []KindFailures `json:"kinds,omitempty"`
	// Recoveries counts the judgements the engine revisited.
	Recoveries report.RecoveryStats `json:"recoveries"`
	// Rows is the number of results rows written; Errors the rows that
	// failed; Crashes the rows whose failure was a panic.
	Rows     int            `json:"rows"`
	Expected int            `json:"expected"`
	Errors   int            `json:"errors"`
	Crashes  int            `json:"crashes"`
	Injected map[string]int `json:"injected,omitempty"`
}

// Refinement is what refinement did with wrong and with right tentative
// answers.
type Refinement struct {
	// WrongJudged is the number of questions whose (wrong) tentative
	// answer was judged; Fixed those answered right all the same.
	WrongJudged int     `json:"wrong_judged"`
	Fixed       int     `json:"fixed"`
	FixRate     float64 `json:"fix_rate"`
	// GoldJudged is the number of questions lacking gold evidence whose
	// right tentative answer was judged; Kept those answered right.
	GoldJudged int     `json:"gold_judged"`
	Kept       int     `json:"kept"`
	KeptRate   float64 `json:"kept_rate"`
}

// Bench runs the measures: the ceiling and cost with the perfect oracle,
// robustness under noise, and refinement with wrong (and, on Missing,
// right) tentative answers.
func Bench(ctx context.Context, o BenchOptions) (*Report, error) {
	qs := Labelled(o.Questions)
	_, skipped := oracle.New(qs)
	suf, err := oracle.ParseSufficiency(o.Sufficiency)
	if err != nil {
		return nil, err
	}
	wording, err := oracle.ParseWording(o.Wording)
	if err != nil {
		return nil, err
	}
	kinds := o.NoiseKinds
	if len(kinds) == 0 {
		kinds = oracle.FormatKinds
	}
	rep := &Report{Name: o.Name, Questions: len(qs), Skipped: skipped, Sufficiency: suf, Wording: wording, NoiseKinds: kinds}
	evidence := &Pass{}
	if !o.NoiseOnly {
		ceil, err := runOnce(ctx, o, "ceiling", qs, oracle.Policy{Kind: "gold"}, oracle.Noise{}, []int{1})
		if err != nil {
			return nil, err
		}
		rep.Ceiling = ceiling(ceil, skipped)
		rep.Certificates = certificates(ceil.Results)
		rep.Cost = costs(ceil)
		rep.KG = kgCost(ceil.Results, o.HubRelations)
		if evidence, err = runOnce(ctx, o, "evidence", qs, oracle.Policy{Kind: "none"}, oracle.Noise{}, []int{1}); err != nil {
			return nil, err
		}
		rep.Evidence = ceiling(evidence, skipped)
	}
	for _, rate := range o.Noise {
		for _, seed := range o.Seeds {
			run := evidence // the oracle ignores the seed without noise
			if rate > 0 {
				name := fmt.Sprintf("noise-%g-seed-%d", rate, seed)
				if run, err = runOnce(ctx, o, name, qs, oracle.Policy{Kind: "none"}, oracle.Noise{Rate: rate, Seed: int64(seed), Kinds: kinds}, []int{seed}); err != nil {
					return nil, err
				}
			}
			rep.Robustness = append(rep.Robustness, noisy(run, rate, seed))
		}
	}
	if o.NoiseOnly {
		return rep, nil
	}
	wrong, err := runOnce(ctx, o, "tentative-wrong", qs, oracle.Policy{Kind: "wrong"}, oracle.Noise{}, []int{1})
	if err != nil {
		return nil, err
	}
	rep.Refinement.WrongJudged, rep.Refinement.Fixed = judged(wrong.Results, false)
	rep.Refinement.FixRate = ratio(rep.Refinement.Fixed, rep.Refinement.WrongJudged)
	if len(o.Missing) > 0 {
		kept, err := runOnce(ctx, o, "tentative-gold-missing", Labelled(o.Missing), oracle.Policy{Kind: "gold"}, oracle.Noise{}, []int{1})
		if err != nil {
			return nil, err
		}
		rep.Refinement.GoldJudged, rep.Refinement.Kept = judged(kept.Results, true)
		rep.Refinement.KeptRate = ratio(rep.Refinement.Kept, rep.Refinement.GoldJudged)
	}
	return rep, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// judged counts the rows whose tentative answer was judged right (or
// wrong) and, of those, the rows answered right.
func judged(rs []eval.Result, right bool) (n, hit int) {
	for _, r := range rs {
		if r.Error != "" || r.TentativeHit == nil || *r.TentativeHit != right {
			continue
		}
		n++
		if r.Hit {
			hit++
		}
	}
	return n, hit
}

func ceiling(run *Pass, skipped []oracle.Skip) Ceiling {
	c := Ceiling{Total: len(run.Results)}
	skip := map[string]string{}
	for _, s := range skipped {
		skip[s.ID] = s.Reason
	}
	for _, r := range run.Results {
		if r.Hit {
			c.Hits++
			continue
		}
		st := run.PerQuestion[r.ID]
		m := Miss{ID: r.ID, Question: r.Question, Type: r.Type, Gold: r.Gold, Prediction: r.Prediction, Notes: st.Notes, Error: r.Error}
		switch {
		case skip[r.ID] != "":
			m.Kind = "no gold plan: " + skip[r.ID]
		case r.Error != "":
			m.Kind = "error: " + r.ErrorKind
		case hasNote(st.Notes, "not offered"):
			m.Kind = "relation not offered"
		case hasNote(st.Notes, "gold answer not among"):
			m.Kind = "gold not in evidence"
		default:
			m.Kind = "wrong answer chosen"
		}
		c.Misses = append(c.Misses, m)
	}
	c.Hits1, c.ByType = ratio(c.Hits, c.Total), byType(run.Results)
	c.Shapes, c.Recoveries = shapeHits(run.Results), report.CountRecoveries(run.Results)
	return c
}

func hasNote(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// costs averages the cost of the rows, overall and by type.
func costs(run *Pass) []Cost {
	by := map[string]*Cost{}
	all := &Cost{Type: "all"}
	for _, r := range run.Results {
		c := by[r.Type]
		if c == nil {
			c = &Cost{Type: r.Type}
			by[r.Type] = c
		}
		for _, x := range []*Cost{all, c} {
			x.Questions++
			x.Calls += float64(r.CallNum)
			x.PromptTokens += float64(r.InputToken)
			x.CompletionTokens += float64(r.OutputToken)
			x.RelationsTokens += float64(relationsTokens(r.Trace))
			x.SPARQL += float64(r.SPARQLQueries)
			x.Facts += float64(run.PerQuestion[r.ID].Facts)
		}
	}
	out := []Cost{*all}
	for _, c := range by {
		out = append(out, *c)
	}
	sort.Slice(out[1:], func(i, j int) bool { return out[1+i].Type < out[1+j].Type })
	for i := range out {
		n := math.Max(1, float64(out[i].Questions))
		out[i].Calls /= n
		out[i].PromptTokens /= n
		out[i].CompletionTokens /= n
		out[i].RelationsTokens /= n
		out[i].SPARQL /= n
		out[i].Facts /= n
	}
	return out
}

// relationsTokens reads the prompt tokens of a trace's relations-stage
// calls (0 when the row has no trace).
func relationsTokens(trace json.RawMessage) int {
	var t struct {
		Usage struct {
			LLM struct {
				ByStage map[string]struct {
					PromptTokens int `json:"prompt_tokens"`
				} `json:"by_stage"`
			} `json:"llm"`
		} `json:"usage"`
	}
	if len(trace) == 0 || json.Unmarshal(trace, &t) != nil {
		return 0
	}
	return t.Usage.LLM.ByStage[prompts.Relations].PromptTokens
}

func noisy(run *Pass, rate float64, seed int) Noisy {
	n := Noisy{Noise: rate, Seed: seed, Hits1: hits(run.Results), ByType: byType(run.Results), Rows: len(run.Results), Expected: run.Expected, Injected: run.Oracle.Noisy,
		Shapes: shapeHits(run.Results), Kinds: kindFailures(run.Results, run.PerQuestion), Recoveries: report.CountRecoveries(run.Results)}
	for _, r := range run.Results {
		if r.Error != "" {
			n.Errors++
		}
		if r.ErrorKind == "panic" {
			n.Crashes++
		}
	}
	return n
}

// byType is Hits@1 by question type.
func byType(rs []eval.Result) map[string]float64 {
	by := map[string][]eval.Result{}
	for _, r := range rs {
		by[r.Type] = append(by[r.Type], r)
	}
	out := map[string]float64{}
	for t, xs := range by {
		out[t] = hits(xs)
	}
	return out
}

// JSON renders the report.
func (r *Report) JSON() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}
