package sparql2plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/sft"
)

// PaperShares is the distribution of the paper's 74,802 SFT samples by
// question type, in percent.
var PaperShares = map[kgqa.Kind]float64{
	kgqa.KindComposition: 29.68,
	kgqa.KindConjunction: 35.78,
	kgqa.KindSuperlative: 4.83,
	kgqa.KindComparative: 4.49,
	kgqa.KindLinear:      25.22,
}

// Stats summarises a conversion run.
type Stats struct {
	// Input counts questions read (well-formed records).
	Input int `json:"input"`
	// Malformed counts input records skipped by the loader.
	Malformed int `json:"malformed"`
	// Converted counts questions whose SPARQL became a plan.
	Converted int `json:"converted"`
	// Written counts records written this run.
	Written int `json:"written"`
	// Records counts the records in the output file after the run: those
	// an earlier run wrote and this run's. Renderings and the teacher
	// figures count the same records, so a resumed run reports on the
	// whole file.
	Records int `json:"records"`
	// Resumed counts input questions whose record an earlier run wrote;
	// they are converted again for the figures above, not written again.
	Resumed int `json:"resumed"`
	// Duplicates counts records dropped as duplicates.
	Duplicates int `json:"duplicates"`
	// Kinds counts plans containing each kind (a plan may count for
	// several).
	Kinds map[kgqa.Kind]int `json:"kinds"`
	// PrimaryKinds counts each plan once, by its primary type (see
	// PrimaryKind): the five types of PaperShares, comparable with them.
	PrimaryKinds map[kgqa.Kind]int `json:"primary_kinds"`
	// PrimaryByLabel cross-tabulates the dataset's own label (CWQ
	// compositionality_type, GrailQA function) against the primary type.
	PrimaryByLabel map[string]map[kgqa.Kind]int `json:"primary_by_label"`
	// Subgoals is a histogram of subgoals per plan.
	Subgoals map[int]int `json:"subgoals"`
	// LabelChecked and LabelAgreed count label comparisons.
	LabelChecked int `json:"label_checked"`
	LabelAgreed  int `json:"label_agreed"`
	// LabelByType counts agreement per dataset label: [checked, agreed].
	LabelByType map[string][2]int `json:"label_by_type"`
	// PrimaryChecked and PrimaryAgreed count the questions whose label is
	// a question type (CWQ's compositionality_type) and those whose plan's
	// primary type (PrimaryKind) is that type. Label agreement counts
	// containment: a composition plan with a conjunction inside agrees
	// with "conjunction"; this does not.
	PrimaryChecked int `json:"primary_checked"`
	PrimaryAgreed  int `json:"primary_agreed"`
	// PrimaryByType counts primary-type agreement per label: [checked,
	// agreed].
	PrimaryByType map[string][2]int `json:"primary_by_type"`
	// Failures counts conversion failures by reason.
	Failures map[string]int `json:"failures"`
	// Rules counts normalisation rules applied.
	Rules map[Rule]int `json:"rules"`
	// Renderings counts records by rendering used.
	Renderings map[string]int `json:"renderings"`
	// TeacherFailures counts teacher errors (template kept).
	TeacherFailures int `json:"teacher_failures"`
	// Inconsistent counts teacher renderings dropped because their
	// back-translation consistency was below the threshold.
	Inconsistent int `json:"inconsistent"`
	// MinConsistency is the threshold that was applied.
	MinConsistency float64 `json:"min_consistency"`
	// MeanConsistency is the mean back-translation F1 of teacher records.
	MeanConsistency float64 `json:"mean_consistency"`
	consistencySum  float64
	consistencyN    int
}

// NewStats returns empty stats.
func NewStats() *Stats {
	return &Stats{Kinds: map[kgqa.Kind]int{}, PrimaryKinds: map[kgqa.Kind]int{}, Subgoals: map[int]int{},
		PrimaryByLabel: map[string]map[kgqa.Kind]int{}, LabelByType: map[string][2]int{}, PrimaryByType: map[string][2]int{}, Failures: map[string]int{}, Rules: map[Rule]int{}, Renderings: map[string]int{}}
}

// AddConversion counts a converted question.
func (s *Stats) AddConversion(c *Conversion, label string, agree, checked bool) {
	s.Converted++
	for _, k := range c.Kinds {
		s.Kinds[k]++
	}
	pk := PrimaryKind(c.Plan)
	s.PrimaryKinds[pk]++
	if label != "" {
		if s.PrimaryByLabel[label] == nil {
			s.PrimaryByLabel[label] = map[kgqa.Kind]int{}
		}
		s.PrimaryByLabel[label][pk]++
		if _, ok := PaperShares[kgqa.Kind(label)]; ok {
			s.PrimaryChecked++
			v := s.PrimaryByType[label]
			v[0]++
			if pk == kgqa.Kind(label) {
				s.PrimaryAgreed++
				v[1]++
			}
			s.PrimaryByType[label] = v
		}
	}
	s.Subgoals[len(c.Plan.Subgoals)]++
	for _, r := range c.Rules {
		s.Rules[r]++
	}
	if checked {
		s.LabelChecked++
		v := s.LabelByType[label]
		v[0]++
		if agree {
			s.LabelAgreed++
			v[1]++
		}
		s.LabelByType[label] = v
	}
}

// AddRecord counts a written record.
func (s *Stats) AddRecord(r *sft.Record) {
	s.Written++
	s.addFileRecord(r)
}

// addFileRecord counts a record of the output file, written by this run
// or an earlier one.
func (s *Stats) addFileRecord(r *sft.Record) {
	s.Records++
	s.Renderings[r.Rendering]++
	if r.Renderings.TeacherError != "" {
		s.TeacherFailures++
	}
	if r.Consistency != nil {
		s.consistencySum += *r.Consistency
		s.consistencyN++
		s.MeanConsistency = s.consistencySum / float64(s.consistencyN)
	}
}

// AddFailure counts a failed conversion.
func (s *Stats) AddFailure(err error) { s.Failures[FailureReason(err)]++ }

// Rate returns a/b as a fraction (0 when b is 0).
func Rate(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Markdown renders the report for humans.
func (s *Stats) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sparql2plan report\n\n")
	fmt.Fprintf(&b, "| | count |\n|---|---|\n| input questions | %d |\n| malformed records | %d |\n| converted | %d (%.2f%%) |\n| records written | %d |\n| records in the output file | %d |\n| resumed (already in output) | %d |\n| duplicates dropped | %d |\n\n",
		s.Input, s.Malformed, s.Converted, 100*Rate(s.Converted, s.Input), s.Written, s.Records, s.Resumed, s.Duplicates)
	s.typesMarkdown(&b)
	fmt.Fprintf(&b, "\n## Subgoals per question\n\n| subgoals | questions |\n|---|---|\n")
	for _, n := range sortedInts(s.Subgoals) {
		fmt.Fprintf(&b, "| %d | %d |\n", n, s.Subgoals[n])
	}
	fmt.Fprintf(&b, "\n## Label agreement\n\nContainment (the plan contains the labelled kind): %d of %d (%.2f%%).\n", s.LabelAgreed, s.LabelChecked, 100*Rate(s.LabelAgreed, s.LabelChecked))
	fmt.Fprintf(&b, "Primary type (the plan's primary type is the label): %d of %d (%.2f%%).\n\n", s.PrimaryAgreed, s.PrimaryChecked, 100*Rate(s.PrimaryAgreed, s.PrimaryChecked))
	fmt.Fprintf(&b, "| label | checked | contains | rate | primary type checked | primary type agreed | rate |\n|---|---|---|---|---|---|---|\n")
	for _, l := range sortedKeys(s.LabelByType) {
		v, p := s.LabelByType[l], s.PrimaryByType[l]
		fmt.Fprintf(&b, "| %s | %d | %d | %.2f%% | %d | %d | %.2f%% |\n", l, v[0], v[1], 100*Rate(v[1], v[0]), p[0], p[1], 100*Rate(p[1], p[0]))
	}
	fmt.Fprintf(&b, "\n## Failures by reason\n\n| reason | count |\n|---|---|\n")
	for _, r := range sortedKeys(s.Failures) {
		fmt.Fprintf(&b, "| %s | %d |\n", r, s.Failures[r])
	}
	fmt.Fprintf(&b, "\n## Rendering\n\n")
	for _, r := range sortedKeys(s.Renderings) {
		fmt.Fprintf(&b, "- %s: %d\n", r, s.Renderings[r])
	}
	fmt.Fprintf(&b, "- teacher failures (template kept): %d\n- mean back-translation consistency (token F1): %.3f\n", s.TeacherFailures, s.MeanConsistency)
	fmt.Fprintf(&b, "- dropped for back-translation consistency below %.2f: %d\n", s.MinConsistency, s.Inconsistent)
	return b.String()
}

// typesMarkdown writes the type tables: primary types next to the paper's
// shares (like with like: one type per question, five types), then the
// kinds plans contain (a plan counts for several; not comparable with the
// paper), then dataset labels against primary types.
func (s *Stats) typesMarkdown(b *strings.Builder) {
	fmt.Fprintf(b, "## Question types\n\nOne primary type per question (see PrimaryKind: read from the operation that produces the answer; "+
		"a multi-hop chain from one topic entity is linear; a count takes the type of what it counts), next to the paper's shares of its SFT data "+
		"(WebQSP, CWQ and GrailQA training questions: other questions than these, so the mix may differ).\n\n")
	fmt.Fprintf(b, "| type | questions | share | paper share |\n|---|---|---|---|\n")
	for _, k := range PaperKinds {
		fmt.Fprintf(b, "| %s | %d | %.2f%% | %.2f%% |\n", k, s.PrimaryKinds[k], 100*Rate(s.PrimaryKinds[k], s.Converted), PaperShares[k])
	}
	fmt.Fprintf(b, "\nOperation kinds the plans contain (a plan counts once per kind it contains; not comparable with the paper's shares):\n\n| kind | plans |\n|---|---|\n")
	for _, k := range []kgqa.Kind{kgqa.KindComposition, kgqa.KindConjunction, kgqa.KindSuperlative, kgqa.KindComparative, kgqa.KindCount, kgqa.KindLinear} {
		fmt.Fprintf(b, "| %s | %d |\n", k, s.Kinds[k])
	}
	if len(s.PrimaryByLabel) == 0 {
		return
	}
	fmt.Fprintf(b, "\nDataset label against primary type:\n\n| label |")
	for _, k := range PaperKinds {
		fmt.Fprintf(b, " %s |", k)
	}
	fmt.Fprintf(b, "\n|---|%s\n", strings.Repeat("---|", len(PaperKinds)))
	for _, l := range sortedKeys(s.PrimaryByLabel) {
		fmt.Fprintf(b, "| %s |", l)
		for _, k := range PaperKinds {
			fmt.Fprintf(b, " %d |", s.PrimaryByLabel[l][k])
		}
		b.WriteString("\n")
	}
}

func sortedInts(m map[int]int) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
