package bench

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset/eval/report"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/dataset/oracle"
)

// PoG's released GPT-3.5 results on WebQSP: mean LLM calls and tokens per
// question (../shared/data/pog), the reference the cost is compared with.
const (
	PoGWebQSPCalls  = 9.03
	PoGWebQSPTokens = 5518
)

// NoiseMean is the mean Hits@1 over seeds at one noise rate.
type NoiseMean struct {
	Noise, Mean, Min, Max float64
	Runs                  int
}

// ByNoise averages the robustness runs per noise rate, in rate order.
func (r *Report) ByNoise() []NoiseMean {
	by := map[float64]*NoiseMean{}
	for _, n := range r.Robustness {
		m := by[n.Noise]
		if m == nil {
			m = &NoiseMean{Noise: n.Noise, Min: n.Hits1, Max: n.Hits1}
			by[n.Noise] = m
		}
		m.Mean += n.Hits1
		m.Runs++
		m.Min, m.Max = min(m.Min, n.Hits1), max(m.Max, n.Hits1)
	}
	var out []NoiseMean
	for _, m := range by {
		m.Mean /= float64(m.Runs)
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Noise < out[j].Noise })
	return out
}

// Markdown renders the report for reading.
func (r *Report) Markdown() string {
	var b strings.Builder
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	fmt.Fprintf(&b, "# Oracle benchmark: %s\n\n%d questions", r.Name, r.Questions)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, " (%d without a gold plan: sparql2plan cannot convert their query)", len(r.Skipped))
	}
	fmt.Fprintf(&b, ". Sufficiency %s; subgoals worded from %s; noise kinds %s.\n\n", r.Sufficiency, wordingLabel(r.Wording), strings.Join(r.NoiseKinds, ", "))
	misses(&b, "Ceiling (perfect oracle, gold tentative answers)", r.Ceiling)
	misses(&b, "Ceiling from evidence alone (perfect oracle, no tentative answers)", r.Evidence)
	certificatesMarkdown(&b, r.Certificates)
	fmt.Fprintf(&b, "## Cost per question (perfect oracle)\n\nPoG with GPT-3.5 on WebQSP: %.2f calls, %d tokens.\n\n", PoGWebQSPCalls, PoGWebQSPTokens)
	b.WriteString("| type | questions | LLM calls | prompt tokens | of which relations prompts | completion tokens | total tokens | SPARQL queries | facts shown |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Cost {
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |\n", c.Type, c.Questions, c.Calls, c.PromptTokens, c.RelationsTokens, c.CompletionTokens, c.PromptTokens+c.CompletionTokens, c.SPARQL, c.Facts)
	}
	b.WriteString("\n")
	r.KG.markdown(&b)
	b.WriteString("## Robustness (Hits@1 by noise rate, no tentative answers)\n\n| noise | mean | min | max | runs |\n|---|---|---|---|---|\n")
	for _, m := range r.ByNoise() {
		fmt.Fprintf(&b, "| %g | %s | %s | %s | %d |\n", m.Noise, pct(m.Mean), pct(m.Min), pct(m.Max), m.Runs)
	}
	b.WriteString("\n| noise | seed | Hits@1 | 95% CI | by type | rows/expected | errors | crashes | errors injected |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range r.Robustness {
		fmt.Fprintf(&b, "| %g | %d | %s | %s | %s | %d/%d | %d | %d | %s |\n", n.Noise, n.Seed, pct(n.Hits1), overall(n.Shapes), typeHits(n.ByType), n.Rows, n.Expected, n.Errors, n.Crashes, injected(n.Injected))
	}
	r.pooledMarkdown(&b)
	rf := r.Refinement
	fmt.Fprintf(&b, "\n## Refinement\n\nWrong tentative answers corrected from evidence: %s (%d/%d).\n", pct(rf.FixRate), rf.Fixed, rf.WrongJudged)
	if rf.GoldJudged > 0 {
		fmt.Fprintf(&b, "Right tentative answers kept where the KG lacks the evidence: %s (%d/%d).\n", pct(rf.KeptRate), rf.Kept, rf.GoldJudged)
	}
	return b.String()
}

// misses writes a ceiling's score and its misses, counted by kind.
func misses(b *strings.Builder, title string, c Ceiling) {
	fmt.Fprintf(b, "## %s\n\nHits@1 %s; by type (Wilson 95%% intervals): %s.\n\nRecoveries: %s.\n\n", title,
		report.WilsonPct(score.Wilson(c.Hits, c.Total), c.Hits), shapesLine(c.Shapes), c.Recoveries.Summary())
	if len(c.Misses) == 0 {
		return
	}
	kinds := map[string]int{}
	for _, m := range c.Misses {
		kinds[m.Kind]++
	}
	fmt.Fprintf(b, "Misses by kind: %s.\n\n", injected(kinds))
	b.WriteString("| id | type | kind | gold | prediction | notes |\n|---|---|---|---|---|---|\n")
	for _, m := range c.Misses {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", m.ID, m.Type, m.Kind, cell(strings.Join(m.Gold, "; ")), cell(m.Prediction), cell(strings.Join(m.Notes, "; ")+" "+m.Error))
	}
	b.WriteString("\n")
}

// wordingLabel says where the oracle's subgoal texts come from.
func wordingLabel(w string) string {
	if w == oracle.WordingQuestion {
		return "the question's own words (--wording question)"
	}
	return "the gold plan, naming its relations (--wording gold)"
}

// overall is the Wilson interval of the "all" row of shapes.
func overall(ss []ShapeHits) string {
	for _, s := range ss {
		if s.Type == "all" {
			return wilson(s.Hits1)
		}
	}
	return "n/a"
}

// typeHits renders Hits@1 by type, types in order.
func typeHits(m map[string]float64) string {
	return byKey(m, func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) })
}

func cell(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "|", "/"))
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

func injected(m map[string]int) string {
	return byKey(m, func(v int) string { return fmt.Sprint(v) })
}

// byKey renders each key of m with its value as f shows it, keys in order.
func byKey[V any](m map[string]V, f func(V) string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, k+" "+f(m[k]))
	}
	return strings.Join(parts, ", ")
}

// SVG plots Hits@1 against the noise rate: each run as a dot, the mean
// over seeds as a line.
func (r *Report) SVG() string {
	const w, h, left, right, top, bottom = 480.0, 320.0, 56.0, 20.0, 36.0, 44.0
	ms := r.ByNoise()
	// The axis spans the rates measured: a sweep to 0.2 fills the plot
	// rather than its left half.
	maxX := 0.0
	for _, m := range ms {
		maxX = max(maxX, m.Noise)
	}
	if maxX == 0 {
		maxX = 1
	}
	x := func(v float64) float64 { return left + v/maxX*(w-left-right) }
	y := func(v float64) float64 { return h - bottom - v*(h-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="20" text-anchor="middle">Hits@1 under noise (%s)</text>`+"\n", w/2, esc(r.Name))
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%.0f%%</text>`+"\n", left, y(t), w-right, y(t), left-6, y(t)+4, 100*t)
	}
	for _, m := range ms {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", x(m.Noise), h-bottom+18, m.Noise)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">noise rate</text>`+"\n", (left+w-right)/2, h-8)
	var pts []string
	for _, m := range ms {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(m.Noise), y(m.Mean)))
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="%s"/>`+"\n", strings.Join(pts, " "))
	for _, n := range r.Robustness {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#1f77b4" fill-opacity="0.5"><title>noise %g seed %d: %.1f%%</title></circle>`+"\n", x(n.Noise), y(n.Hits1), n.Noise, n.Seed, 100*n.Hits1)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
