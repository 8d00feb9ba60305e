package finetune

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/parog/parog-go/internal/clip"
)

// MissInvalid is the miss-histogram bucket of questions without a plan.
const MissInvalid = "no plan"

// Summary aggregates the items of a group of questions. Every rate has the
// group's question count as denominator: a missing plan counts against it.
type Summary struct {
	// N is the number of questions.
	N int `json:"n"`
	// Valid counts usable plans (first reply or after the repair turn);
	// ValidFirst counts those valid on the first reply.
	Valid      int `json:"valid"`
	ValidFirst int `json:"valid_first"`
	// Invalid counts replies that never became a valid plan; Errors counts
	// failed calls.
	Invalid int `json:"invalid"`
	Errors  int `json:"errors"`
	// ValidRate is Valid/N, ValidFirstRate ValidFirst/N.
	ValidRate      float64 `json:"valid_rate"`
	ValidFirstRate float64 `json:"valid_first_rate"`
	// CountExact counts plans with exactly the gold number of subgoals.
	CountExact     int     `json:"count_exact"`
	CountExactRate float64 `json:"count_exact_rate"`
	// MissHistogram counts predicted-minus-gold subgoal counts ("-1", "0",
	// "+2", ...) and questions without a plan (MissInvalid).
	MissHistogram map[string]int `json:"miss_histogram"`
	// OpF1 is the mean per-question op-kind F1 (missing plans score 0);
	// OpF1Micro pools the multisets of all questions.
	OpF1      float64 `json:"op_f1"`
	OpF1Micro float64 `json:"op_f1_micro"`
	// GraphMatch counts dependency graphs isomorphic to the gold one.
	GraphMatch     int     `json:"graph_match"`
	GraphMatchRate float64 `json:"graph_match_rate"`
	// MeanLatencyMS is the mean wall time of a planner call.
	MeanLatencyMS float64 `json:"mean_latency_ms"`
}

// Report is the result of EvaluatePlanner.
type Report struct {
	// Model, PlannerURL, Data and DataSHA256 say what was evaluated.
	Model      string `json:"model"`
	PlannerURL string `json:"planner_url"`
	Data       string `json:"data"`
	DataSHA256 string `json:"data_sha256,omitempty"`
	// Overall summarises every question.
	Overall Summary `json:"overall"`
	// ByKind summarises the questions whose gold plan has each kind; a
	// question with several kinds counts in each.
	ByKind map[string]Summary `json:"by_kind"`
	// ByLabel summarises the questions per dataset label.
	ByLabel map[string]Summary `json:"by_label"`
	// Items are the per-question results, in input order.
	Items []Item `json:"items"`
}

func buildReport(opts EvalOptions, items []Item) *Report {
	r := &Report{Model: opts.Model, PlannerURL: opts.PlannerURL, Data: opts.Data, DataSHA256: opts.DataSHA256, Items: items}
	r.Overall = summarise(items)
	kinds, labels := map[string][]Item{}, map[string][]Item{}
	for _, it := range items {
		for _, k := range it.Kinds {
			kinds[k] = append(kinds[k], it)
		}
		if it.Label != "" {
			labels[it.Label] = append(labels[it.Label], it)
		}
	}
	r.ByKind, r.ByLabel = map[string]Summary{}, map[string]Summary{}
	for k, its := range kinds {
		r.ByKind[k] = summarise(its)
	}
	for l, its := range labels {
		r.ByLabel[l] = summarise(its)
	}
	return r
}

func summarise(items []Item) Summary {
	s := Summary{N: len(items), MissHistogram: map[string]int{}}
	var f1, lat float64
	var overlap, npred, ngold int
	for i := range items {
		it := &items[i]
		switch it.Outcome {
		case OutcomeValid:
			s.Valid++
			s.ValidFirst++
		case OutcomeRepaired:
			s.Valid++
		case OutcomeInvalid:
			s.Invalid++
		case OutcomeError:
			s.Errors++
		}
		if miss, ok := it.Miss(); ok {
			s.MissHistogram[missKey(miss)]++
			if miss == 0 {
				s.CountExact++
			}
		} else {
			s.MissHistogram[MissInvalid]++
		}
		if it.GraphMatch {
			s.GraphMatch++
		}
		f1 += it.OpF1
		lat += it.LatencyMS
		overlap, npred, ngold = overlap+it.OpOverlap, npred+it.OpPred, ngold+it.OpGold
	}
	if s.N > 0 {
		n := float64(s.N)
		s.ValidRate, s.ValidFirstRate = float64(s.Valid)/n, float64(s.ValidFirst)/n
		s.CountExactRate, s.GraphMatchRate = float64(s.CountExact)/n, float64(s.GraphMatch)/n
		s.OpF1, s.MeanLatencyMS = f1/n, lat/n
	}
	s.OpF1Micro = F1(overlap, npred, ngold)
	return s
}

func missKey(m int) string {
	if m > 0 {
		return "+" + strconv.Itoa(m)
	}
	return strconv.Itoa(m)
}

// missOrder sorts histogram keys numerically, the no-plan bucket last.
func missOrder(h map[string]int) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, errA := strconv.Atoi(keys[i])
		b, errB := strconv.Atoi(keys[j])
		switch {
		case errA != nil:
			return false
		case errB != nil:
			return true
		}
		return a < b
	})
	return keys
}

// WriteFiles writes the report as PREFIX.json and PREFIX.md (a trailing
// .json or .md on prefix is dropped) and returns both paths.
func (r *Report) WriteFiles(prefix string) (jsonPath, mdPath string, err error) {
	prefix = strings.TrimSuffix(strings.TrimSuffix(prefix, ".json"), ".md")
	jsonPath, mdPath = prefix+".json", prefix+".md"
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", "", fmt.Errorf("finetune: write report: %w", err)
	}
	if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
		return "", "", fmt.Errorf("finetune: write report: %w", err)
	}
	var md strings.Builder
	r.Markdown(&md)
	if err := os.WriteFile(mdPath, []byte(md.String()), 0o644); err != nil {
		return "", "", fmt.Errorf("finetune: write report: %w", err)
	}
	return jsonPath, mdPath, nil
}

// LoadReport reads a report written by WriteFiles.
func LoadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("finetune: load report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("finetune: load report %s: %w", path, err)
	}
	if r.Overall.N == 0 {
		return nil, fmt.Errorf("finetune: load report %s: no questions in it", path)
	}
	return &r, nil
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// Markdown writes the report for people: the summary, the miss histogram,
// the per-kind and per-label tables and the failed questions.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "# Planner evaluation: %s\n\n", r.Model)
	fmt.Fprintf(w, "Planner `%s`, data `%s` (%d questions).\n\n", r.PlannerURL, r.Data, r.Overall.N)
	o := r.Overall
	fmt.Fprintf(w, "| metric | value |\n|---|---|\n")
	fmt.Fprintf(w, "| valid plan | %s (%d/%d) |\n", pct(o.ValidRate), o.Valid, o.N)
	fmt.Fprintf(w, "| valid on first reply | %s (%d/%d) |\n", pct(o.ValidFirstRate), o.ValidFirst, o.N)
	fmt.Fprintf(w, "| invalid after repair / call errors | %d / %d |\n", o.Invalid, o.Errors)
	fmt.Fprintf(w, "| exact subgoal count | %s (%d/%d) |\n", pct(o.CountExactRate), o.CountExact, o.N)
	fmt.Fprintf(w, "| op-kind F1 (mean / pooled) | %.3f / %.3f |\n", o.OpF1, o.OpF1Micro)
	fmt.Fprintf(w, "| dependency graph match | %s (%d/%d) |\n", pct(o.GraphMatchRate), o.GraphMatch, o.N)
	fmt.Fprintf(w, "| mean latency | %.0f ms |\n\n", o.MeanLatencyMS)

	fmt.Fprintf(w, "## Subgoal count: predicted minus gold\n\n| miss | questions |\n|---|---|\n")
	for _, k := range missOrder(o.MissHistogram) {
		fmt.Fprintf(w, "| %s | %d |\n", k, o.MissHistogram[k])
	}
	groupTable(w, "By plan kind", r.ByKind)
	groupTable(w, "By dataset label", r.ByLabel)

	var failed []Item
	for _, it := range r.Items {
		if !it.Valid() || !it.GraphMatch {
			failed = append(failed, it)
		}
	}
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Questions whose graph does not match (%d)\n\n| id | outcome | gold / pred subgoals | op F1 | why |\n|---|---|---|---|---|\n", len(failed))
	for _, it := range failed {
		why := it.Error
		if why == "" {
			why = "different dependency graph"
		}
		fmt.Fprintf(w, "| %s | %s | %d / %d | %.2f | %s |\n", it.ID, it.Outcome, it.GoldSubgoals, it.PredSubgoals, it.OpF1, cell(why))
	}
}

func groupTable(w io.Writer, title string, groups map[string]Summary) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## %s\n\n| group | n | valid | exact count | op F1 | graph match |\n|---|---|---|---|---|---|\n", title)
	for _, k := range sortedKeys(groups) {
		s := groups[k]
		fmt.Fprintf(w, "| %s | %d | %s | %s | %.3f | %s |\n", k, s.N, pct(s.ValidRate), pct(s.CountExactRate), s.OpF1, pct(s.GraphMatchRate))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cell makes text safe inside a markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(clip.Text(s, 160), "|", "\\|")
}

// CompareMarkdown writes two reports side by side: overall metrics and
// per-kind graph match, with the change from a to b. It warns when the
// reports were computed on different data.
func CompareMarkdown(w io.Writer, a, b *Report) {
	fmt.Fprintf(w, "# Planner comparison: %s vs %s\n\n", a.Model, b.Model)
	if a.DataSHA256 != b.DataSHA256 || a.Overall.N != b.Overall.N {
		fmt.Fprintf(w, "**Warning:** the reports were computed on different data (%s, %d questions vs %s, %d questions).\n\n",
			a.Data, a.Overall.N, b.Data, b.Overall.N)
	}
	fmt.Fprintf(w, "| metric | %s | %s | change |\n|---|---|---|---|\n", a.Model, b.Model)
	row := func(name string, x, y float64, rate bool) {
		if rate {
			fmt.Fprintf(w, "| %s | %s | %s | %+.1f pt |\n", name, pct(x), pct(y), 100*(y-x))
			return
		}
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %+.3f |\n", name, x, y, y-x)
	}
	oa, ob := a.Overall, b.Overall
	row("valid plan", oa.ValidRate, ob.ValidRate, true)
	row("valid on first reply", oa.ValidFirstRate, ob.ValidFirstRate, true)
	row("exact subgoal count", oa.CountExactRate, ob.CountExactRate, true)
	row("op-kind F1 (mean)", oa.OpF1, ob.OpF1, false)
	row("op-kind F1 (pooled)", oa.OpF1Micro, ob.OpF1Micro, false)
	row("dependency graph match", oa.GraphMatchRate, ob.GraphMatchRate, true)

	keys := map[string]bool{}
	for k := range a.ByKind {
		keys[k] = true
	}
	for k := range b.ByKind {
		keys[k] = true
	}
	fmt.Fprintf(w, "\n## Dependency graph match by plan kind\n\n| kind | n | %s | %s | change |\n|---|---|---|---|---|\n", a.Model, b.Model)
	for _, k := range sortedKeys(keys) {
		x, y := a.ByKind[k], b.ByKind[k]
		fmt.Fprintf(w, "| %s | %d / %d | %s | %s | %+.1f pt |\n", k, x.N, y.N, pct(x.GraphMatchRate), pct(y.GraphMatchRate), 100*(y.GraphMatchRate-x.GraphMatchRate))
	}
}
