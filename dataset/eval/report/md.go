package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset/eval/score"
)

// WriteMarkdown renders the report as markdown.
func (rep Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Evaluation report\n\n")
	switch {
	case rep.Dataset == "mixed":
		var names []string
		for _, r := range rep.Runs {
			if r.Dataset != "" && !slices.Contains(names, r.Dataset) {
				names = append(names, r.Dataset)
			}
		}
		fmt.Fprintf(&b, "Datasets: mixed (%s); each run is scored on its own.\n\n", strings.Join(names, ", "))
	case rep.Dataset != "":
		fmt.Fprintf(&b, "Dataset: %s\n\n", rep.Dataset)
	}
	b.WriteString("Scoring rules. **strict**: the top prediction names a gold answer (by id, or by normalised name or alias; no substring matching; " +
		"an empty answer is a miss). **pog**: PoG's own evaluation script, reproduced with its defects (substring matching either way, " +
		"an empty answer counts as correct, a row without an answer reuses the previous row's). ")
	fmt.Fprintf(&b, "Headline figures use the **%s** rule. ", rep.Scoring)
	b.WriteString("Intervals are 95%: a t-interval over seeds, and a percentile bootstrap over questions. " +
		"Costs read mean / median / p90 per question.\n\n")
	if len(rep.Runs) > 1 {
		b.WriteString("## Side by side\n\n")
		b.WriteString("| run | format | questions | Hits@1 | strict | pog rule | 95% CI (seeds) | 95% CI (bootstrap) | F1 | LLM calls | tokens | time (s) |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|\n")
		for _, r := range rep.Runs {
			e := r.Efficiency
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				r.Name, r.Format, r.Questions, scoredPct(r, r.Hits1.Mean), rulePct(r, RuleStrict), rulePct(r, RulePoG),
				scoredCI(r, r.Hits1), scoredCI(r, r.Hits1Boot), scoredPct(r, r.F1.Mean),
				triple(e.Calls, 1), triple(e.Tokens, 0), triple(e.Seconds, 1))
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
	if r.Dataset != "" {
		fmt.Fprintf(b, "## %s (%s, %s)\n\n", r.Name, r.Format, r.Dataset)
	} else {
		fmt.Fprintf(b, "## %s (%s)\n\n", r.Name, r.Format)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "> Note: %s\n\n", n)
	}
	if len(r.Prompts) > 0 {
		fmt.Fprintf(b, "Prompt templates: %s.\n\n", strings.Join(r.Prompts, ", "))
	}
	fmt.Fprintf(b, "Questions with a result: %d", r.Questions)
	if r.Expected > 0 {
		fmt.Fprintf(b, " of %d expected; %d (question, seed) pairs missing, counted as misses", r.Expected, r.Missing)
	}
	b.WriteString(".\n\n")
	if !r.Scored {
		b.WriteString("**Hits@1 n/a** (no gold answers given). **F1 n/a**.\n\n")
	} else {
		fmt.Fprintf(b, "**Hits@1 %s** (95%% CI over %d seed(s): %s; bootstrap over %d questions: %s). **F1 %s** (%s).\n\n",
			pct(r.Hits1.Mean), r.Hits1.N, ci(r.Hits1), r.Hits1Boot.N, ci(r.Hits1Boot), pct(r.F1.Mean), ci(r.F1))
	}
	if len(r.Rules) > 0 {
		b.WriteString("By scoring rule:")
		for i, rs := range r.Rules {
			sep := ";"
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(b, "%s %s %s (%d/%d)", sep, rs.Rule, pct(rs.Hits1), rs.Hits, rs.N)
		}
		b.WriteString(".\n\n")
	}
	b.WriteString("| seed | n | hits | Hits@1 | F1 | errors |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Seeds {
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %d |\n", s.Seed, s.N, s.Hits, pct(s.Hits1), pct(s.F1), s.Errors)
	}
	b.WriteString("\n### By question type\n\nHits@1 pools the seeds; its interval is Wilson's 95% score interval over the type's (question, seed) results.\n\n" +
		"| type | n | Hits@1 | 95% CI | F1 | certificate verified | certificate equivalent |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range r.ByType {
		wilson := "n/a"
		if r.Scored && t.N > 0 {
			iv := score.Wilson(int(math.Round(t.Hits1*float64(t.N))), t.N)
			wilson = fmt.Sprintf("[%.1f, %.1f]", 100*iv.Low, 100*iv.High)
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s |\n", t.Type, t.N, scoredPct(r, t.Hits1), wilson, scoredPct(r, t.F1),
			share(t.Certificates.Verified, t.Certificates.FromKG), share(t.Certificates.Equivalent, t.Certificates.Judged))
	}
	writeCertificates(b, r.Certificates)
	writeRefinement(b, r.Refinement)
	writeRecoveries(b, r.Recoveries)
	writeEfficiency(b, r.Efficiency)
	if r.WithoutKG > 0 {
		fmt.Fprintf(b, "\nAnswered without the KG (no topic entity, or no fact found; the model's own knowledge): %d results, %d hits.\n", r.WithoutKG, r.WithoutKGHits)
	}
	writeMisses(b, r)
	b.WriteString("\n### Errors (questions whose run failed)\n\n")
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

// writeMisses counts the (question, seed) pairs that missed, wrong or
// empty answers, errors and missing results alike: what the HTML report's
// "Misses" table lists one by one.
func writeMisses(b *strings.Builder, r RunReport) {
	b.WriteString("\n### Misses\n\n")
	if !r.Scored {
		b.WriteString("n/a (no gold answers given).\n")
		return
	}
	n, hits, errs := 0, 0, 0
	for _, s := range r.Seeds {
		n, hits, errs = n+s.N, hits+s.Hits, errs+s.Errors
	}
	if hits == n {
		b.WriteString("None: every answer names a gold answer.\n")
		return
	}
	fmt.Fprintf(b, "%d of %d answers miss (%d of them errors, %d results missing); the HTML report (--html) lists each with its trace.\n",
		n-hits, n, errs, r.Missing)
}

// share is k of n as a percentage with its counts, or n/a.
func share(k, n int) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s (%d/%d)", pct(ratio(k, n)), k, n)
}

// writeCertificates writes the run's certificate shares and the classes
// of disagreement with the gold queries.
func writeCertificates(b *strings.Builder, c CertificateStats) {
	fmt.Fprintf(b, "\nAnswer certificates: %s of the answers drawn from the KG verified (the query returns the answer); %s of the certificates compared with a gold query equivalent (the same answers on the KG).",
		share(c.Verified, c.FromKG), share(c.Equivalent, c.Judged))
	if len(c.Disagreements) > 0 {
		keys := make([]string, 0, len(c.Disagreements))
		for k := range c.Disagreements {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(" Disagreements:")
		for i, k := range keys {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(b, "%s %s %d", sep, k, c.Disagreements[k])
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// scoredPct is pct, or n/a for a run that could not be scored.
func scoredPct(r RunReport, x float64) string {
	if !r.Scored {
		return "n/a"
	}
	return pct(x)
}

func scoredCI(r RunReport, iv score.Interval) string {
	if !r.Scored {
		return "n/a"
	}
	return ci(iv)
}

// rulePct is the run's Hits@1 under rule, n/a when it was not applied.
func rulePct(r RunReport, rule string) string {
	for _, rs := range r.Rules {
		if rs.Rule == rule {
			return pct(rs.Hits1)
		}
	}
	return "n/a"
}

// triple writes a distribution as mean / median / p90.
func triple(d Dist, prec int) string {
	return fmt.Sprintf("%.*f / %.*f / %.*f", prec, d.Mean, prec, d.Median, prec, d.P90)
}

// writeEfficiency writes the cost table, PoG's figures beside ours.
func writeEfficiency(b *strings.Builder, e Efficiency) {
	b.WriteString("\n### Efficiency (per question)\n\n| measure | mean | median | p90 | max | PoG mean | PoG median | PoG p90 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, d *Dist, ref *Dist, prec int) {
		if d == nil {
			fmt.Fprintf(b, "| %s | n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n", name)
			return
		}
		refText := "n/a | n/a | n/a"
		if ref != nil {
			refText = fmt.Sprintf("%.*f | %.*f | %.*f", prec, ref.Mean, prec, ref.Median, prec, ref.P90)
		}
		fmt.Fprintf(b, "| %s | %.*f | %.*f | %.*f | %.*f | %s |\n", name, prec, d.Mean, prec, d.Median, prec, d.P90, prec, d.Max, refText)
	}
	var calls, tokens, secs *Dist
	if e.PoG != nil {
		calls, tokens, secs = &e.PoG.Calls, &e.PoG.Tokens, &e.PoG.Seconds
	}
	row("LLM calls", &e.Calls, calls, 1)
	row("tokens", &e.Tokens, tokens, 0)
	row("input tokens", &e.InputTokens, nil, 0)
	row("output tokens", &e.OutputTokens, nil, 0)
	row("SPARQL queries", e.SPARQL, nil, 1)
	row("time (s)", &e.Seconds, secs, 2)
	if e.PoG != nil {
		fmt.Fprintf(b, "\nPoG's figures: %s.\n", e.PoG.Source)
	}
}

func ci(iv score.Interval) string {
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
