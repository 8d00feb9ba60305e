package bench

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/report"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/dataset/oracle"
)

// ShapeHits is Hits@1 on one question type (shape), with its Wilson 95%
// interval.
type ShapeHits struct {
	// Type is the question type ("all" for every row).
	Type string `json:"type"`
	// Hits counts the rows that hit, of Rows.
	Hits int `json:"hits"`
	Rows int `json:"rows"`
	// Hits1 is Hits/Rows with its Wilson interval.
	Hits1 score.Interval `json:"hits1"`
}

// KindFailures is what became of the answers one noise kind touched: the
// oracle corrupted at least one of its replies about the question.
type KindFailures struct {
	// Kind is the noise kind.
	Kind string `json:"kind"`
	// Touched counts the (question, seed) rows the kind touched; Failed
	// those of them that missed.
	Touched int `json:"touched"`
	Failed  int `json:"failed"`
	// Share is Failed/Touched with its Wilson interval.
	Share score.Interval `json:"share"`
}

// NoisePool pools the robustness runs of one noise rate over their seeds:
// each (question, seed) row counts once.
type NoisePool struct {
	Noise float64 `json:"noise"`
	Seeds []int   `json:"seeds"`
	// Shapes is Hits@1 overall ("all") first, then by type.
	Shapes []ShapeHits `json:"shapes"`
	// Kinds are the failures by noise kind, in kind order.
	Kinds []KindFailures `json:"kinds,omitempty"`
	// Recoveries counts the judgements the engine revisited.
	Recoveries report.RecoveryStats `json:"recoveries"`
}

// shapeHits counts Hits@1 overall, then by type in type order.
func shapeHits(rs []eval.Result) []ShapeHits {
	out := countByType(rs, func(t string) *ShapeHits { return &ShapeHits{Type: t} }, func(x *ShapeHits, r eval.Result) {
		x.Rows++
		if r.Hit {
			x.Hits++
		}
	})
	for i := range out {
		out[i].Hits1 = score.Wilson(out[i].Hits, out[i].Rows)
	}
	return out
}

// countByType counts rs into one T overall and one per type (rows without a
// type under "(none)"), overall first, then the types in order: newT
// makes a type's T, add counts a row into one.
func countByType[T any](rs []eval.Result, newT func(typ string) *T, add func(*T, eval.Result)) []T {
	all := newT("all")
	by := map[string]*T{}
	var types []string
	for _, r := range rs {
		t := r.Type
		if t == "" {
			t = "(none)"
		}
		x := by[t]
		if x == nil {
			x = newT(t)
			by[t] = x
			types = append(types, t)
		}
		add(all, r)
		add(x, r)
	}
	sort.Strings(types)
	out := []T{*all}
	for _, t := range types {
		out = append(out, *by[t])
	}
	return out
}

// kindFailures counts, for each noise kind the oracle applied to a
// question's replies, the rows it touched and those that missed.
func kindFailures(rs []eval.Result, per map[string]oracle.QuestionStats) []KindFailures {
	by := map[string]*KindFailures{}
	for _, r := range rs {
		for k := range per[r.ID].Noisy {
			f := by[k]
			if f == nil {
				f = &KindFailures{Kind: k}
				by[k] = f
			}
			f.Touched++
			if !r.Hit {
				f.Failed++
			}
		}
	}
	return sortedKinds(by)
}

func sortedKinds(by map[string]*KindFailures) []KindFailures {
	out := make([]KindFailures, 0, len(by))
	for _, f := range by {
		f.Share = score.Wilson(f.Failed, f.Touched)
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// Pooled pools the robustness runs per noise rate over their seeds, in
// rate order; the rate 0 pools nothing new (the evidence run) and is left
// out.
func (r *Report) Pooled() []NoisePool {
	by := map[float64]*NoisePool{}
	shapes := map[float64]map[string]*ShapeHits{}
	kinds := map[float64]map[string]*KindFailures{}
	for _, n := range r.Robustness {
		if n.Noise == 0 {
			continue
		}
		p := by[n.Noise]
		if p == nil {
			p = &NoisePool{Noise: n.Noise}
			by[n.Noise], shapes[n.Noise], kinds[n.Noise] = p, map[string]*ShapeHits{}, map[string]*KindFailures{}
		}
		p.Seeds = append(p.Seeds, n.Seed)
		p.Recoveries.Merge(n.Recoveries)
		for _, s := range n.Shapes {
			x := shapes[n.Noise][s.Type]
			if x == nil {
				x = &ShapeHits{Type: s.Type}
				shapes[n.Noise][s.Type] = x
			}
			x.Hits, x.Rows = x.Hits+s.Hits, x.Rows+s.Rows
		}
		for _, k := range n.Kinds {
			x := kinds[n.Noise][k.Kind]
			if x == nil {
				x = &KindFailures{Kind: k.Kind}
				kinds[n.Noise][k.Kind] = x
			}
			x.Touched, x.Failed = x.Touched+k.Touched, x.Failed+k.Failed
		}
	}
	var out []NoisePool
	for rate, p := range by {
		for _, s := range shapes[rate] {
			s.Hits1 = score.Wilson(s.Hits, s.Rows)
			p.Shapes = append(p.Shapes, *s)
		}
		sort.Slice(p.Shapes, func(i, j int) bool {
			a, b := p.Shapes[i].Type, p.Shapes[j].Type
			switch {
			case a == "all":
				return b != "all"
			case b == "all":
				return false
			}
			return a < b
		})
		p.Kinds = sortedKinds(kinds[rate])
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Noise < out[j].Noise })
	return out
}

// wilson renders an interval as "[lo, hi]" in percent.
func wilson(iv score.Interval) string {
	if iv.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("[%.1f, %.1f]", 100*iv.Low, 100*iv.High)
}

// shapesLine renders Hits@1 by type with intervals, "all" left out.
func shapesLine(ss []ShapeHits) string {
	var parts []string
	for _, s := range ss {
		if s.Type != "all" {
			parts = append(parts, fmt.Sprintf("%s %s", s.Type, report.WilsonPct(s.Hits1, s.Hits)))
		}
	}
	return strings.Join(parts, "; ")
}

// pooledMarkdown writes, per noise rate, Hits@1 pooled over the seeds by
// shape and the failures by noise kind, each with its interval.
func (r *Report) pooledMarkdown(b *strings.Builder) {
	for _, p := range r.Pooled() {
		seeds := make([]string, len(p.Seeds))
		for i, s := range p.Seeds {
			seeds[i] = fmt.Sprint(s)
		}
		fmt.Fprintf(b, "\n### Noise %g, seeds %s pooled\n\nEach (question, seed) result counts once; intervals are Wilson 95%% score intervals.\n\n", p.Noise, strings.Join(seeds, ", "))
		b.WriteString("| shape | hits | results | Hits@1 | 95% CI |\n|---|---:|---:|---:|---:|\n")
		for _, s := range p.Shapes {
			fmt.Fprintf(b, "| %s | %d | %d | %.1f%% | %s |\n", s.Type, s.Hits, s.Rows, 100*s.Hits1.Mean, wilson(s.Hits1))
		}
		b.WriteString("\nFailures by noise kind: of the results whose question a kind touched (the oracle corrupted at least one reply about it), how many missed.\n\n")
		b.WriteString("| noise kind | touched | failed | share failed | 95% CI |\n|---|---:|---:|---:|---:|\n")
		for _, k := range p.Kinds {
			fmt.Fprintf(b, "| %s | %d | %d | %.1f%% | %s |\n", k.Kind, k.Touched, k.Failed, 100*k.Share.Mean, wilson(k.Share))
		}
		fmt.Fprintf(b, "\nRecoveries: %s.\n", p.Recoveries.Summary())
	}
}
