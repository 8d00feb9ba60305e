package dataset

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown renders the report as markdown.
func (rep Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Evaluation report\n\n")
	if rep.Dataset != "" {
		fmt.Fprintf(&b, "Dataset: %s\n\n", rep.Dataset)
	}
	b.WriteString("Hits@1: the top prediction names a gold answer (by id, or by normalised name or alias; no substring matching). ")
	b.WriteString("Intervals are 95%: a t-interval over seeds, and a percentile bootstrap over questions.\n\n")
	if len(rep.Runs) > 1 {
		b.WriteString("## Side by side\n\n")
		b.WriteString("| run | format | questions | Hits@1 | 95% CI (seeds) | 95% CI (bootstrap) | F1 | mean LLM calls | mean tokens | mean time (s) |\n")
		b.WriteString("|---|---|---:|---:|---|---|---:|---:|---:|---:|\n")
		for _, r := range rep.Runs {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %.1f | %.0f | %.1f |\n",
				r.Name, r.Format, r.Questions, pct(r.Hits1.Mean), ci(r.Hits1), ci(r.Hits1Boot), pct(r.F1.Mean),
				r.Efficiency.Calls.Mean, r.Efficiency.Tokens.Mean, r.Efficiency.Seconds.Mean)
		}
		b.WriteString("\n")
	}
	for _, r := range rep.Runs {
		writeRunMarkdown(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("dataset: report: %w", err)
	}
	return nil
}

func writeRunMarkdown(b *strings.Builder, r RunReport) {
	fmt.Fprintf(b, "## %s (%s)\n\n", r.Name, r.Format)
	for _, n := range r.Notes {
		fmt.Fprintf(b, "> Note: %s\n\n", n)
	}
	fmt.Fprintf(b, "Questions with a result: %d", r.Questions)
	if r.Expected > 0 {
		fmt.Fprintf(b, " of %d expected; %d (question, seed) pairs missing, counted as misses", r.Expected, r.Missing)
	}
	b.WriteString(".\n\n")
	fmt.Fprintf(b, "**Hits@1 %s** (95%% CI over %d seed(s): %s; bootstrap over %d questions: %s). **F1 %s** (%s).\n\n",
		pct(r.Hits1.Mean), r.Hits1.N, ci(r.Hits1), r.Hits1Boot.N, ci(r.Hits1Boot), pct(r.F1.Mean), ci(r.F1))
	b.WriteString("| seed | n | hits | Hits@1 | F1 | errors |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Seeds {
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %d |\n", s.Seed, s.N, s.Hits, pct(s.Hits1), pct(s.F1), s.Errors)
	}
	b.WriteString("\n### By question type\n\n| type | n | Hits@1 | F1 |\n|---|---:|---:|---:|\n")
	for _, t := range r.ByType {
		fmt.Fprintf(b, "| %s | %d | %s | %s |\n", t.Type, t.N, pct(t.Hits1), pct(t.F1))
	}
	writeRefinement(b, r.Refinement)
	e := r.Efficiency
	b.WriteString("\n### Efficiency (per question)\n\n| measure | mean | median | max | PoG mean |\n|---|---:|---:|---:|---:|\n")
	row := func(name string, d Dist, ref float64, prec int) {
		refText := "-"
		if ref > 0 {
			refText = fmt.Sprintf("%.*f", prec, ref)
		}
		fmt.Fprintf(b, "| %s | %.*f | %.*f | %.*f | %s |\n", name, prec, d.Mean, prec, d.Median, prec, d.Max, refText)
	}
	row("LLM calls", e.Calls, e.PoGCalls, 1)
	row("tokens", e.Tokens, e.PoGTokens, 0)
	row("input tokens", e.InputTokens, 0, 0)
	row("output tokens", e.OutputTokens, 0, 0)
	row("SPARQL queries", e.SPARQL, 0, 1)
	row("time (s)", e.Seconds, 0, 2)
	b.WriteString("\n### Failures\n\n")
	if len(r.Failures) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	b.WriteString("| reason | count | example |\n|---|---:|---|\n")
	for _, f := range r.Failures {
		fmt.Fprintf(b, "| %s | %d | %s |\n", f.Kind, f.Count, strings.ReplaceAll(oneLineText(f.Example), "|", "\\|"))
	}
	b.WriteString("\n")
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func ci(iv Interval) string {
	if iv.N < 2 {
		return "n/a"
	}
	return fmt.Sprintf("[%.1f, %.1f]", 100*iv.Low, 100*iv.High)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeRefinement writes the self-refinement section.
func writeRefinement(b *strings.Builder, rf RefinementStats) {
	b.WriteString("\n### Self-refinement\n\n")
	switch {
	case rf.Judged == 0 && rf.NotDerivable == 0:
		b.WriteString("No tentative answers recorded.\n")
	case rf.Judged == 0:
		fmt.Fprintf(b, "No tentative answer could be composed; not derivable on %d questions.\n", rf.NotDerivable)
	default:
		b.WriteString("A question's tentative answer is its plan's set logic (find, intersect, union, count) over the subgoals' " +
			"tentative answers, before any retrieval; through a filter, compare or superlative it is not derivable.\n\n")
		fmt.Fprintf(b, "Tentative answer wrong on %d of %d judged questions (%s); refinement fixed %d of them (**%s**",
			rf.TentativeWrong, rf.Judged, pct(ratio(rf.TentativeWrong, rf.Judged)), rf.Fixed, pct(rf.FixRate))
		if rf.PaperFixRate > 0 {
			fmt.Fprintf(b, "; paper: %s", pct(rf.PaperFixRate))
		}
		fmt.Fprintf(b, "). Right tentative answers lost by refinement: %d. Not derivable: %d.\n", rf.Broken, rf.NotDerivable)
	}
	if len(rf.ByType) > 0 && rf.Judged+rf.NotDerivable > 0 {
		b.WriteString("\n| type | judged | not derivable | tentative wrong | fixed | fix rate | broken |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, t := range rf.ByType {
			rate := "-"
			if t.TentativeWrong > 0 {
				rate = pct(ratio(t.Fixed, t.TentativeWrong))
			}
			fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %s | %d |\n", t.Type, t.Judged, t.NotDerivable, t.TentativeWrong, t.Fixed, rate, t.Broken)
		}
	}
	if rf.Subgoals > 0 {
		fmt.Fprintf(b, "\nRefined subgoals: %d; evidence judged misaligned: %d (%s); answer corrected: %d (%s).\n",
			rf.Subgoals, rf.Misaligned, pct(ratio(rf.Misaligned, rf.Subgoals)), rf.Corrected, pct(ratio(rf.Corrected, rf.Subgoals)))
	}
}
