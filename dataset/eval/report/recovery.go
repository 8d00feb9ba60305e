package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/score"
)

// RecoveryStats counts the judgements the engine revisited
// (kgqa.Recovery): how many answers had at least one recovery, the
// recoveries by kind, and how often the answers that had one hit.
type RecoveryStats struct {
	// Answers counts the result lines read; Recovered those with at
	// least one recovery, RecoveredHits the hits among them.
	Answers       int `json:"answers"`
	Recovered     int `json:"recovered"`
	RecoveredHits int `json:"recovered_hits"`
	// Recoveries counts every recovery; ByKind by kind.
	Recoveries int            `json:"recoveries"`
	ByKind     map[string]int `json:"by_kind,omitempty"`
}

// Add counts the recoveries of one results line.
func (s *RecoveryStats) Add(r eval.Result) {
	s.Answers++
	if len(r.Recoveries) == 0 {
		return
	}
	s.Recovered++
	if r.Hit {
		s.RecoveredHits++
	}
	if s.ByKind == nil {
		s.ByKind = map[string]int{}
	}
	for _, x := range r.Recoveries {
		s.Recoveries++
		s.ByKind[string(x.Kind)]++
	}
}

// Merge adds the counts of o.
func (s *RecoveryStats) Merge(o RecoveryStats) {
	s.Answers += o.Answers
	s.Recovered += o.Recovered
	s.RecoveredHits += o.RecoveredHits
	s.Recoveries += o.Recoveries
	for k, v := range o.ByKind {
		if s.ByKind == nil {
			s.ByKind = map[string]int{}
		}
		s.ByKind[k] += v
	}
}

// CountRecoveries counts the recoveries of rs.
func CountRecoveries(rs []eval.Result) RecoveryStats {
	var s RecoveryStats
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

// Hits1 is Hits@1 of the answers that had a recovery, with its Wilson
// interval.
func (s RecoveryStats) Hits1() score.Interval { return score.Wilson(s.RecoveredHits, s.Recovered) }

// Kinds renders the recoveries by kind, kinds in order ("none" when
// there are none).
func (s RecoveryStats) Kinds() string {
	if len(s.ByKind) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(s.ByKind))
	for k := range s.ByKind {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s %d", k, s.ByKind[k])
	}
	return strings.Join(parts, ", ")
}

// Summary is one line: answers with a recovery, their Hits@1 with its
// interval, and the recoveries by kind.
func (s RecoveryStats) Summary() string {
	if s.Recovered == 0 {
		return fmt.Sprintf("no recovery in %d answers", s.Answers)
	}
	return fmt.Sprintf("%d of %d answers had a recovery (%s); their Hits@1 %s; %d recoveries: %s",
		s.Recovered, s.Answers, pct(ratio(s.Recovered, s.Answers)), WilsonPct(s.Hits1(), s.RecoveredHits), s.Recoveries, s.Kinds())
}

// WilsonPct renders a share with its Wilson interval and counts:
// "93.3% [78.7, 98.2] (28/30)".
func WilsonPct(iv score.Interval, k int) string {
	if iv.N == 0 {
		return "n/a (0/0)"
	}
	return fmt.Sprintf("%s [%.1f, %.1f] (%d/%d)", pct(iv.Mean), 100*iv.Low, 100*iv.High, k, iv.N)
}

// writeRecoveries writes the run's recoveries section.
func writeRecoveries(b *strings.Builder, s RecoveryStats) {
	b.WriteString("\n### Recoveries\n\nJudgements the engine revisited (a backtrack, a verdict asked again, the next relation followed).\n\n")
	if s.Recovered == 0 {
		fmt.Fprintf(b, "None in %d answers.\n", s.Answers)
		return
	}
	fmt.Fprintf(b, "Answers with at least one recovery: %d of %d (%s); Hits@1 of those: %s.\n\n",
		s.Recovered, s.Answers, pct(ratio(s.Recovered, s.Answers)), WilsonPct(s.Hits1(), s.RecoveredHits))
	b.WriteString("| kind | recoveries |\n|---|---:|\n")
	ks := make([]string, 0, len(s.ByKind))
	for k := range s.ByKind {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(b, "| %s | %d |\n", k, s.ByKind[k])
	}
}
