package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/internal/clip"
)

// Diff compares two runs question by question: the content of
// `parog eval diff`.
type Diff struct {
	// A and B name the runs (file names); deltas are B minus A.
	A string `json:"a"`
	B string `json:"b"`
	// Paired counts the (question, seed) pairs present in both runs; OnlyA
	// and OnlyB those present in one only (left out of the comparison).
	Paired int `json:"paired"`
	OnlyA  int `json:"only_a"`
	OnlyB  int `json:"only_b"`
	// Overall compares all paired results; ByType one question type each.
	Overall DiffRow   `json:"overall"`
	ByType  []DiffRow `json:"by_type"`
	// Fixed are the pairs A missed and B hit; Broken those A hit and B
	// missed; both in id order.
	Fixed  []Flip `json:"fixed"`
	Broken []Flip `json:"broken"`
}

// DiffRow is the paired comparison of Hits@1 on a set of results.
type DiffRow struct {
	// Type is the question type ("all" for the overall row).
	Type string `json:"type"`
	// N is the number of pairs; HitsA and HitsB the hits of each run.
	N     int `json:"n"`
	HitsA int `json:"hits_a"`
	HitsB int `json:"hits_b"`
	// Hits1A, Hits1B and Delta (B - A) are rates over N.
	Hits1A float64 `json:"hits1_a"`
	Hits1B float64 `json:"hits1_b"`
	Delta  float64 `json:"delta"`
	// Fixed (A miss, B hit) and Broken (A hit, B miss) are the discordant
	// pairs McNemar's test rests on.
	Fixed  int `json:"fixed"`
	Broken int `json:"broken"`
	// PValue is McNemar's exact two-sided p-value (1 with no discordant
	// pair).
	PValue float64 `json:"p_value"`
}

// Flip is a question whose outcome differs between the runs, with both
// traces.
type Flip struct {
	// ID, Seed, Question, Type and Gold describe the question.
	ID       string   `json:"id"`
	Seed     string   `json:"seed"`
	Question string   `json:"question"`
	Type     string   `json:"type,omitempty"`
	Gold     []string `json:"gold,omitempty"`
	// PredictionA and PredictionB are the top predictions; ErrorA and
	// ErrorB the failures, if any.
	PredictionA string `json:"prediction_a"`
	PredictionB string `json:"prediction_b"`
	ErrorA      string `json:"error_a,omitempty"`
	ErrorB      string `json:"error_b,omitempty"`
	// TraceA and TraceB are the engine's traces of the question in each
	// run (absent for PoG files).
	TraceA json.RawMessage `json:"trace_a,omitempty"`
	TraceB json.RawMessage `json:"trace_b,omitempty"`
}

// CompareRuns pairs the results of a and b by (question id, seed) and
// compares their Hits@1.
func CompareRuns(a, b ResultSet) Diff {
	d := Diff{A: a.Name, B: b.Name}
	inB := make(map[eval.Key]eval.Result, len(b.Results))
	for _, r := range b.Results {
		inB[r.KeyOf()] = r
	}
	rows := map[string]*DiffRow{}
	all := &DiffRow{Type: "all"}
	seen := map[eval.Key]bool{}
	for _, ra := range a.Results {
		k := ra.KeyOf()
		rb, ok := inB[k]
		if !ok {
			d.OnlyA++
			continue
		}
		seen[k] = true
		d.Paired++
		t := cmp.Or(ra.Type, rb.Type)
		if t == "" {
			t = "(none)"
		}
		if rows[t] == nil {
			rows[t] = &DiffRow{Type: t}
		}
		for _, row := range []*DiffRow{all, rows[t]} {
			row.add(ra.Hit, rb.Hit)
		}
		switch {
		case !ra.Hit && rb.Hit:
			d.Fixed = append(d.Fixed, flip(ra, rb))
		case ra.Hit && !rb.Hit:
			d.Broken = append(d.Broken, flip(ra, rb))
		}
	}
	d.OnlyB = len(b.Results) - len(seen)
	d.Overall = all.finish()
	for _, row := range rows {
		d.ByType = append(d.ByType, row.finish())
	}
	sort.Slice(d.ByType, func(i, j int) bool { return d.ByType[i].Type < d.ByType[j].Type })
	for _, fs := range [][]Flip{d.Fixed, d.Broken} {
		sort.Slice(fs, func(i, j int) bool { return fs[i].ID+"\x00"+fs[i].Seed < fs[j].ID+"\x00"+fs[j].Seed })
	}
	return d
}

func (row *DiffRow) add(a, b bool) {
	row.N++
	if a {
		row.HitsA++
	}
	if b {
		row.HitsB++
	}
	switch {
	case !a && b:
		row.Fixed++
	case a && !b:
		row.Broken++
	}
}

func (row *DiffRow) finish() DiffRow {
	row.Hits1A, row.Hits1B = ratio(row.HitsA, row.N), ratio(row.HitsB, row.N)
	row.Delta = row.Hits1B - row.Hits1A
	row.PValue = McNemar(row.Fixed, row.Broken)
	return *row
}

func flip(a, b eval.Result) Flip {
	return Flip{
		ID: a.ID, Seed: eval.SeedLabel(a.Seed), Question: cmp.Or(a.Question, b.Question), Type: cmp.Or(a.Type, b.Type),
		Gold: a.Gold, PredictionA: a.Prediction, PredictionB: b.Prediction, ErrorA: a.Error, ErrorB: b.Error,
		TraceA: a.Trace, TraceB: b.Trace,
	}
}

// McNemar is the exact two-sided p-value of McNemar's test for b and c
// discordant pairs: twice the binomial(b+c, 1/2) probability of a split at
// least as uneven, capped at 1.
func McNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	lnHalf := float64(n) * math.Log(0.5)
	var p float64
	for i := 0; i <= k; i++ {
		p += math.Exp(lnChoose(n, i) + lnHalf)
	}
	return math.Min(1, 2*p)
}

func lnChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// WriteMarkdown renders the comparison; at most maxFlips flipped
// questions are listed in each direction (all when maxFlips <= 0), each
// with its traces folded away.
func (d Diff) WriteMarkdown(w io.Writer, maxFlips int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Comparison: %s (A) vs %s (B)\n\n", d.A, d.B)
	fmt.Fprintf(&b, "Paired (question, seed) results: %d; only in A: %d; only in B: %d. ", d.Paired, d.OnlyA, d.OnlyB)
	b.WriteString("Delta is B minus A; p is McNemar's exact two-sided test on the discordant pairs.\n\n")
	b.WriteString("| type | n | Hits@1 A | Hits@1 B | delta | fixed (A miss, B hit) | broken (A hit, B miss) | p |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range append(append([]DiffRow(nil), d.ByType...), d.Overall) {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %+.1f | %d | %d | %.3g |\n",
			r.Type, r.N, pct(r.Hits1A), pct(r.Hits1B), 100*r.Delta, r.Fixed, r.Broken, r.PValue)
	}
	writeFlips(&b, "Fixed in B (A missed, B hit)", d.Fixed, maxFlips)
	writeFlips(&b, "Broken in B (A hit, B missed)", d.Broken, maxFlips)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("dataset: diff: %w", err)
	}
	return nil
}

func writeFlips(b *strings.Builder, title string, fs []Flip, maxFlips int) {
	fmt.Fprintf(b, "\n## %s: %d\n\n", title, len(fs))
	for i, f := range fs {
		if maxFlips > 0 && i == maxFlips {
			fmt.Fprintf(b, "... and %d more (all are in the JSON output).\n", len(fs)-maxFlips)
			break
		}
		fmt.Fprintf(b, "- **%s** (seed %s, %s): %s gold %q; A %q%s; B %q%s\n", f.ID, f.Seed, cmp.Or(f.Type, "(none)"),
			oneLineText(f.Question), strings.Join(f.Gold, "; "), f.PredictionA, errNote(f.ErrorA), f.PredictionB, errNote(f.ErrorB))
		for _, tr := range []struct {
			name  string
			trace json.RawMessage
		}{{"A", f.TraceA}, {"B", f.TraceB}} {
			if len(tr.trace) > 0 {
				fmt.Fprintf(b, "  <details><summary>trace %s</summary>\n\n  ```json\n  %s\n  ```\n  </details>\n", tr.name, clip.Text(string(tr.trace), 4000))
			}
		}
	}
}

func errNote(e string) string {
	if e == "" {
		return ""
	}
	return " (error: " + clip.Text(oneLineText(e), 120) + ")"
}
