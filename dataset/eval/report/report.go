package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/pogrule"
	"github.com/parog/parog-go/dataset/eval/score"
)

// PaperFixRates are the PARoG paper's shares of wrong tentative answers
// that refinement corrected, by dataset.
var PaperFixRates = map[string]float64{"webqsp": 0.734, "cwq": 0.624, "grailqa": 0.771}

// ResultSet is one results file read for a report.
type ResultSet struct {
	// Name labels the run (the file name).
	Name string `json:"name"`
	// Format is "parog" (our results) or "pog" (PoG's fields only).
	Format string `json:"format"`
	// Results are the latest line per (id, seed).
	Results []eval.Result `json:"-"`
	// Notes are remarks found while reading (torn line, unmatched PoG
	// questions).
	Notes []string `json:"notes,omitempty"`
	// Unscored is true when no gold answers were given for a PoG file: its
	// Hits@1 is unknown, not zero.
	Unscored bool `json:"unscored,omitempty"`
	// Dataset is the benchmark the run is of, from its file name or its
	// question ids ("" when neither says).
	Dataset string `json:"dataset,omitempty"`
	// Chains are PoG's reasoning chains by question text (PoG files only).
	Chains map[string]json.RawMessage `json:"-"`
}

// The scoring rules a report can apply.
const (
	// RuleStrict is this package's rule (see Scorer and NamesMatch).
	RuleStrict = "strict"
	// RulePoG is PoG's evaluation script, defects included (see PoGRule).
	RulePoG = "pog"
	// RuleToG is Think-on-Graph's evaluation script (score.ToGHit), for
	// the benchmarks it scores.
	RuleToG = "tog"
)

// ReportOptions tunes BuildReport.
type ReportOptions struct {
	// Dataset names the benchmark for the reference figures ("cwq",
	// "webqsp", "grailqa"); empty guesses from the question ids.
	Dataset string
	// Questions, when set, are the questions the runs should cover: the
	// denominator of Hits@1 (a question missing from a run counts as a
	// miss), and the gold answers used to rescore our results.
	Questions []dataset.Question
	// Scorer rescores results when Questions is set.
	Scorer score.Scorer
	// BootstrapRounds is the number of bootstrap resamples (default 2000).
	BootstrapRounds int
	// Scoring is the rule behind the headline Hits@1, per type figures and
	// intervals: RuleStrict (default) or RulePoG. Both rules' counts are
	// reported in RunReport.Rules whenever they can be computed.
	Scoring string
	// PoG are the gold names of PoG's rule, by question text; nil leaves
	// that rule out.
	PoG pogrule.PoGGold
}

// Report is the content of `parog eval report`.
type Report struct {
	// Dataset is the benchmark the reference figures are for.
	Dataset string `json:"dataset,omitempty"`
	// Scoring is the rule behind the headline figures (RuleStrict or
	// RulePoG).
	Scoring string `json:"scoring"`
	// Runs holds one section per results file.
	Runs []RunReport `json:"runs"`
}

// RunReport is the report of one run.
type RunReport struct {
	// Name, Format and Dataset repeat the ResultSet's.
	Name    string `json:"name"`
	Format  string `json:"format"`
	Dataset string `json:"dataset,omitempty"`
	// Questions is the number of distinct questions with a result.
	Questions int `json:"questions"`
	// Scored is false when the run's answers could not be scored (a PoG
	// file without gold answers): its Hits@1, F1 and per-type figures are
	// then n/a, not zero.
	Scored bool `json:"scored"`
	// Rules holds Hits@1 under each scoring rule that could be applied
	// (pooled over seeds).
	Rules []RuleScore `json:"rules,omitempty"`
	// Expected is the number of questions the run should cover (0 when
	// unknown); Missing counts (question, seed) pairs without a result.
	Expected int `json:"expected,omitempty"`
	Missing  int `json:"missing,omitempty"`
	// Seeds has one row per seed.
	Seeds []SeedReport `json:"seeds"`
	// Hits1 is the mean Hits@1 over seeds with its t-interval; Hits1Boot
	// the same mean with a bootstrap interval over questions.
	Hits1     score.Interval `json:"hits1"`
	Hits1Boot score.Interval `json:"hits1_bootstrap"`
	// F1 is the mean answer-set F1 over seeds with its t-interval.
	F1 score.Interval `json:"f1"`
	// ByType breaks results down by the dataset's type label (pooled over
	// seeds).
	ByType []TypeReport `json:"by_type,omitempty"`
	// Refinement holds the self-refinement statistics.
	Refinement RefinementStats `json:"refinement"`
	// Certificates counts the answer certificates of all lines.
	Certificates CertificateStats `json:"certificates"`
	// Recoveries counts the judgements the engine revisited.
	Recoveries RecoveryStats `json:"recoveries"`
	// Efficiency holds cost distributions.
	Efficiency Efficiency `json:"efficiency"`
	// Failures counts the questions whose run failed (an error), by
	// reason; wrong answers are not failures but misses (Seeds: N - Hits).
	Failures []FailureCount `json:"failures,omitempty"`
	// WithoutKG counts result lines answered from the model's knowledge
	// alone (no topic entity, or no fact found), and WithoutKGHits the
	// hits among them: answers the KG played no part in.
	WithoutKG     int `json:"without_kg,omitempty"`
	WithoutKGHits int `json:"without_kg_hits,omitempty"`
	// Notes repeat the ResultSet's notes.
	Notes []string `json:"notes,omitempty"`
	// Prompts names the prompt template sets that answered, from the
	// traces: "builtin", or "dir:" and a digest (prompts.dir); more than
	// one when the run was resumed with other templates.
	Prompts []string `json:"prompts,omitempty"`
}

// RuleScore is Hits@1 under one scoring rule.
type RuleScore struct {
	// Rule is RuleStrict or RulePoG.
	Rule string `json:"rule"`
	// N counts result lines and missing (question, seed) pairs; Hits
	// those scored a hit.
	N    int `json:"n"`
	Hits int `json:"hits"`
	// Hits1 is Hits/N.
	Hits1 float64 `json:"hits1"`
}

// SeedReport is the result of one seed.
type SeedReport struct {
	// Seed is the seed ("-" for none).
	Seed string `json:"seed"`
	// N is the denominator: answered questions plus missing ones.
	N int `json:"n"`
	// Hits, Errors count questions.
	Hits   int `json:"hits"`
	Errors int `json:"errors"`
	// Hits1 and F1 are means over N.
	Hits1 float64 `json:"hits1"`
	F1    float64 `json:"f1"`
}

// TypeReport is the result on one question type.
type TypeReport struct {
	// Type is the label ("(none)" when absent).
	Type string `json:"type"`
	// N counts result lines (questions × seeds).
	N int `json:"n"`
	// Hits1 and F1 are means.
	Hits1 float64 `json:"hits1"`
	F1    float64 `json:"f1"`
	// Certificates counts the lines' answer certificates.
	Certificates CertificateStats `json:"certificates"`
}

// CertificateStats counts answer certificates: of the lines whose answer
// came from the KG (coverage all or partial), how many were verified
// (their query, run on the KG, returned the answer); of the lines with
// gold SPARQL, how many certificates return the gold query's answers,
// with the others classified (eval.Disagreements).
type CertificateStats struct {
	// FromKG counts lines whose certificate covers all or part of the
	// answer; Verified those of them that were verified.
	FromKG   int `json:"from_kg"`
	Verified int `json:"verified"`
	// Judged counts lines compared with the gold query; Equivalent those
	// whose answers agree.
	Judged     int `json:"judged"`
	Equivalent int `json:"equivalent"`
	// Disagreements counts the others by class.
	Disagreements map[string]int `json:"disagreements,omitempty"`
}

// Add counts the certificate of one results line.
func (c *CertificateStats) Add(r eval.Result) {
	if r.CertificateCovers == "all" || r.CertificateCovers == "partial" {
		c.FromKG++
		if r.CertificateVerified != nil && *r.CertificateVerified {
			c.Verified++
		}
	}
	if r.CertificateEquivalent != nil {
		c.Judged++
		if *r.CertificateEquivalent {
			c.Equivalent++
		} else {
			if c.Disagreements == nil {
				c.Disagreements = map[string]int{}
			}
			c.Disagreements[r.CertificateDisagreement]++
		}
	}
}

// RefinementStats says how self-refinement changed answers. Question
// level: the question's tentative (parametric) answer, composed by the
// plan's set logic from the subgoals' tentative answers (see
// kgqa.TentativeAnswer), scored like the final one, against the final
// answer. Subgoal level: the refiner's verdicts.
type RefinementStats struct {
	// Judged counts questions with a scored tentative answer and no error.
	Judged int `json:"judged"`
	// NotDerivable counts questions without error whose tentative answer
	// could not be composed (a filter, compare or superlative in the
	// plan, or a subgoal that never got one).
	NotDerivable int `json:"not_derivable"`
	// TentativeWrong counts those whose tentative answer was a miss;
	// Fixed those of them whose final answer is a hit; FixRate is
	// Fixed/TentativeWrong.
	TentativeWrong int     `json:"tentative_wrong"`
	Fixed          int     `json:"fixed"`
	FixRate        float64 `json:"fix_rate"`
	// Broken counts questions whose tentative answer was right and final
	// answer wrong.
	Broken int `json:"broken"`
	// PaperFixRate is the paper's figure for the dataset (0 unknown).
	PaperFixRate float64 `json:"paper_fix_rate,omitempty"`
	// Subgoals counts refined subgoals; Misaligned those where the
	// evidence was judged not to fit; Corrected those whose answer changed.
	Subgoals   int `json:"subgoals"`
	Misaligned int `json:"misaligned"`
	Corrected  int `json:"corrected"`
	// ByType breaks the question-level counts down by question type.
	ByType []RefinementByType `json:"by_type,omitempty"`
}

// RefinementByType holds the question-level refinement counts of one
// question type (see RefinementStats).
type RefinementByType struct {
	// Type is the label ("(none)" when absent).
	Type string `json:"type"`
	// Judged, NotDerivable, TentativeWrong, Fixed and Broken count result
	// lines of the type as in RefinementStats.
	Judged         int `json:"judged"`
	NotDerivable   int `json:"not_derivable"`
	TentativeWrong int `json:"tentative_wrong"`
	Fixed          int `json:"fixed"`
	Broken         int `json:"broken"`
}

// FailureCount is the number of failed questions of one kind.
type FailureCount struct {
	// Kind is the error kind ("other" when unclassified).
	Kind string `json:"kind"`
	// Count of result lines.
	Count int `json:"count"`
	// Example is one error text of the kind.
	Example string `json:"example"`
}

// BuildReport computes the report of runs.
func BuildReport(runs []ResultSet, opts ReportOptions) Report {
	rep := Report{Dataset: opts.Dataset, Scoring: opts.Scoring}
	if common := commonDataset(runs); rep.Dataset == "" || common == "mixed" {
		// Runs of different datasets are labelled each with its own; the
		// page is not titled after one of them.
		rep.Dataset = common
	}
	if rep.Scoring == "" {
		rep.Scoring = RuleStrict
	}
	if opts.BootstrapRounds <= 0 {
		opts.BootstrapRounds = 2000
	}
	byID := map[string]*dataset.Question{}
	for i := range opts.Questions {
		byID[opts.Questions[i].ID] = &opts.Questions[i]
	}
	ref := pogReference(runs, rep.Dataset)
	for _, run := range runs {
		results := run.Results
		ropts, ds := opts, rep.Dataset
		if run.Dataset != "" && ds == "mixed" {
			ds = run.Dataset
		}
		if len(opts.Questions) > 0 && opts.Dataset != "" && run.Dataset != "" && run.Dataset != opts.Dataset {
			// The expected questions and gold answers are another
			// dataset's: this run is scored on its own lines, not as
			// missing every one of those questions.
			ropts.Questions = nil
			run.Notes = append(slices.Clip(run.Notes), fmt.Sprintf("a %s run: not scored against the %s questions given (--input); its own results are scored as written", run.Dataset, opts.Dataset))
		} else if len(byID) > 0 && run.Format == "parog" {
			results = rescore(results, byID, opts.Scorer)
			results = scorePoGRule(results, opts.PoG)
		}
		rules := ruleScores(results, run, len(questionUniverse(results, ropts.Questions))*max(1, seedCount(results)))
		if rep.Scoring == RulePoG {
			results = withPoGHits(results)
		}
		rr := buildRun(run, results, ropts, ds)
		rr.Rules = rules
		rr.Dataset = run.Dataset
		rr.Prompts = promptSets(run.Results)
		rr.Efficiency.PoG = ref
		rep.Runs = append(rep.Runs, rr)
	}
	return rep
}

// scorePoGRule sets PoGHit on our results: PoG's matching of the top
// prediction against PoG's gold names for the question text.
func scorePoGRule(rs []eval.Result, gold pogrule.PoGGold) []eval.Result {
	if gold == nil {
		return rs
	}
	rule := &pogrule.PoGRule{Gold: gold}
	for i := range rs {
		if hit, err := rule.ScorePrediction(rs[i].Question, rs[i].Prediction); err == nil {
			rs[i].PoGHit = &hit
		}
	}
	return rs
}

// withPoGHits copies rs with Hit taken from PoGHit (a miss when unset).
func withPoGHits(rs []eval.Result) []eval.Result {
	out := make([]eval.Result, len(rs))
	for i, r := range rs {
		out[i] = r
		out[i].Hit = r.PoGHit != nil && *r.PoGHit
	}
	return out
}

// ruleScores counts hits under each rule that applies to the run; n is
// the denominator (expected questions times seeds, or the lines).
func ruleScores(rs []eval.Result, run ResultSet, n int) []RuleScore {
	n = max(n, len(rs))
	var out []RuleScore
	if !run.Unscored {
		out = append(out, countRule(RuleStrict, rs, n, func(r eval.Result) bool { return r.Hit }))
	}
	for _, r := range rs {
		if r.PoGHit != nil {
			out = append(out, countRule(RulePoG, rs, n, func(r eval.Result) bool { return r.PoGHit != nil && *r.PoGHit }))
			break
		}
	}
	for _, r := range rs {
		if r.ToGHit != nil {
			out = append(out, countRule(RuleToG, rs, n, func(r eval.Result) bool { return r.ToGHit != nil && *r.ToGHit }))
			break
		}
	}
	return out
}

func countRule(rule string, rs []eval.Result, n int, hit func(eval.Result) bool) RuleScore {
	sc := RuleScore{Rule: rule, N: n}
	for _, r := range rs {
		if hit(r) {
			sc.Hits++
		}
	}
	sc.Hits1 = ratio(sc.Hits, n)
	return sc
}

func seedCount(rs []eval.Result) int {
	seeds := map[string]bool{}
	for _, r := range rs {
		seeds[eval.SeedLabel(r.Seed)] = true
	}
	return len(seeds)
}

// Rescore scores a run of ours again against g's questions (matched by
// id); a PoG run, scored when it was read, is returned as it is.
func Rescore(run ResultSet, g Gold) ResultSet {
	if run.Format != "parog" || len(g.Questions) == 0 {
		return run
	}
	byID := make(map[string]*dataset.Question, len(g.Questions))
	for i := range g.Questions {
		byID[g.Questions[i].ID] = &g.Questions[i]
	}
	run.Results = rescore(run.Results, byID, g.Scorer)
	return run
}

// rescore scores our results again against the given gold questions (an
// alias file may have been added since the run).
func rescore(rs []eval.Result, byID map[string]*dataset.Question, s score.Scorer) []eval.Result {
	out := make([]eval.Result, len(rs))
	for i, r := range rs {
		out[i] = r
		q, ok := byID[r.ID]
		if !ok || r.Error != "" {
			continue
		}
		sc := s.Score(*q, r.Entities)
		out[i].Hit, out[i].F1 = sc.Hit, sc.F1
		switch {
		case r.TentativeHit != nil && r.TentativeNames != nil:
			pred := make([]score.PredEntity, 0, len(r.TentativeNames))
			for _, n := range r.TentativeNames {
				pred = append(pred, score.PredEntity{Name: n})
			}
			h := s.Score(*q, pred).Hit
			out[i].TentativeHit = &h
		case r.TentativeHit != nil && r.Tentative != "":
			h := s.TextHit(*q, r.Tentative)
			out[i].TentativeHit = &h
		}
	}
	return out
}

func buildRun(run ResultSet, rs []eval.Result, opts ReportOptions, dataset string) RunReport {
	rr := RunReport{Name: run.Name, Format: run.Format, Notes: run.Notes, Expected: len(opts.Questions), Scored: !run.Unscored}
	bySeed := map[string][]eval.Result{}
	var seedOrder []string
	ids := map[string]bool{}
	for _, r := range rs {
		s := eval.SeedLabel(r.Seed)
		if _, ok := bySeed[s]; !ok {
			seedOrder = append(seedOrder, s)
		}
		bySeed[s] = append(bySeed[s], r)
		ids[r.ID] = true
	}
	rr.Questions = len(ids)
	sortSeeds(seedOrder)
	universe := questionUniverse(rs, opts.Questions)
	var hits, f1s []float64
	perQ := make(map[string]float64, len(universe))
	for _, s := range seedOrder {
		sr := seedReport(s, bySeed[s], len(universe))
		rr.Missing += sr.N - len(bySeed[s])
		rr.Seeds = append(rr.Seeds, sr)
		hits = append(hits, sr.Hits1)
		f1s = append(f1s, sr.F1)
		for _, r := range bySeed[s] {
			if r.Hit {
				perQ[r.ID] += 1 / float64(len(seedOrder))
			}
		}
	}
	qs := make([]float64, 0, len(universe))
	for _, id := range universe {
		qs = append(qs, perQ[id])
	}
	rr.Hits1 = score.TInterval(hits)
	rr.Hits1Boot = score.Bootstrap(qs, opts.BootstrapRounds)
	rr.F1 = score.TInterval(f1s)
	rr.ByType = typeReports(rs)
	rr.Refinement = refinementStats(rs)
	for _, r := range rs {
		rr.Certificates.Add(r)
		rr.Recoveries.Add(r)
	}
	rr.Refinement.PaperFixRate = PaperFixRates[dataset]
	rr.Efficiency = efficiency(rs, run.Format != "pog")
	rr.Failures = failures(rs)
	for _, r := range rs {
		if r.AnsweredWithoutKG {
			rr.WithoutKG++
			if r.Hit {
				rr.WithoutKGHits++
			}
		}
	}
	return rr
}

// questionUniverse is the denominator's question ids: the expected
// questions when known, else every id with a result.
func questionUniverse(rs []eval.Result, expected []dataset.Question) []string {
	var out []string
	seen := map[string]bool{}
	if len(expected) > 0 {
		for _, q := range expected {
			if !seen[q.ID] {
				seen[q.ID] = true
				out = append(out, q.ID)
			}
		}
		return out
	}
	for _, r := range rs {
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r.ID)
		}
	}
	return out
}

func seedReport(seed string, rs []eval.Result, universe int) SeedReport {
	sr := SeedReport{Seed: seed, N: max(universe, len(rs))}
	var f1 float64
	for _, r := range rs {
		if r.Hit {
			sr.Hits++
		}
		if r.Error != "" {
			sr.Errors++
		}
		f1 += r.F1
	}
	if sr.N > 0 {
		sr.Hits1 = float64(sr.Hits) / float64(sr.N)
		sr.F1 = f1 / float64(sr.N)
	}
	return sr
}

func sortSeeds(s []string) {
	sort.SliceStable(s, func(i, j int) bool {
		if len(s[i]) != len(s[j]) {
			return len(s[i]) < len(s[j])
		}
		return s[i] < s[j]
	})
}

func typeReports(rs []eval.Result) []TypeReport {
	idx := map[string]int{}
	var out []TypeReport
	for _, r := range rs {
		t := r.Type
		if t == "" {
			t = "(none)"
		}
		i, ok := idx[t]
		if !ok {
			i = len(out)
			idx[t] = i
			out = append(out, TypeReport{Type: t})
		}
		out[i].N++
		if r.Hit {
			out[i].Hits1++
		}
		out[i].F1 += r.F1
		out[i].Certificates.Add(r)
	}
	for i := range out {
		out[i].Hits1 /= float64(out[i].N)
		out[i].F1 /= float64(out[i].N)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

func refinementStats(rs []eval.Result) RefinementStats {
	var st RefinementStats
	idx := map[string]int{}
	row := func(t string) *RefinementByType {
		if t == "" {
			t = "(none)"
		}
		i, ok := idx[t]
		if !ok {
			i = len(st.ByType)
			idx[t] = i
			st.ByType = append(st.ByType, RefinementByType{Type: t})
		}
		return &st.ByType[i]
	}
	for _, r := range rs {
		for _, v := range r.Verdicts {
			if v.Aligned == nil {
				continue
			}
			st.Subgoals++
			if !*v.Aligned {
				st.Misaligned++
			}
			if v.Corrected {
				st.Corrected++
			}
		}
		if r.Error != "" {
			continue
		}
		if r.TentativeHit == nil {
			if r.TentativeNotDerivable != "" {
				st.NotDerivable++
				row(r.Type).NotDerivable++
			}
			continue
		}
		st.Judged++
		tr := row(r.Type)
		tr.Judged++
		switch {
		case !*r.TentativeHit:
			st.TentativeWrong++
			tr.TentativeWrong++
			if r.Hit {
				st.Fixed++
				tr.Fixed++
			}
		case !r.Hit:
			st.Broken++
			tr.Broken++
		}
	}
	sort.Slice(st.ByType, func(i, j int) bool { return st.ByType[i].Type < st.ByType[j].Type })
	if st.TentativeWrong > 0 {
		st.FixRate = float64(st.Fixed) / float64(st.TentativeWrong)
	}
	return st
}

// GuessDataset names the benchmark from the question ids of runs: GrailQA
// ids are numbers, CWQ ids are WebQSP ids with a "_" suffix, WebQSP ids
// start with "WebQ", demo ids with "demo". Mixed or unknown gives "".
func GuessDataset(runs []ResultSet) string {
	guess := ""
	for _, run := range runs {
		for _, r := range run.Results {
			g := guessID(r.ID)
			if guess == "" {
				guess = g
			} else if g != guess {
				return ""
			}
		}
	}
	return guess
}

func guessID(id string) string {
	switch {
	case id == "":
		return ""
	case strings.HasPrefix(id, "demo"):
		return "demo"
	case strings.HasPrefix(id, "webquestions-"):
		return "webquestions"
	case strings.HasPrefix(id, "simplequestions-"):
		return "simplequestions"
	case strings.HasPrefix(id, "qald-"):
		return "qald"
	case strings.HasPrefix(id, "WebQ") && strings.Contains(id, "_"):
		return "cwq"
	case strings.HasPrefix(id, "WebQ"):
		return "webqsp"
	case strings.Trim(id, "0123456789") == "":
		return "grailqa"
	}
	return "?"
}

// promptSets lists, sorted, the prompt template sets named by the traces
// of rs (none for rows without a trace, such as PoG's).
func promptSets(rs []eval.Result) []string {
	seen := map[string]bool{}
	for _, r := range rs {
		var tr struct {
			Prompts string `json:"prompts"`
		}
		if len(r.Trace) == 0 || json.Unmarshal(r.Trace, &tr) != nil || tr.Prompts == "" {
			continue
		}
		seen[tr.Prompts] = true
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// commonDataset is the dataset every run that names one agrees on: "" when
// none does, "mixed" when they differ (CheckMixed refuses that unless
// asked).
func commonDataset(runs []ResultSet) string {
	found := ""
	for _, r := range runs {
		switch {
		case r.Dataset == "":
		case found == "":
			found = r.Dataset
		case found != r.Dataset:
			return "mixed"
		}
	}
	if found == "" {
		if g := GuessDataset(runs); g != "?" {
			return g
		}
	}
	return found
}

// CheckMixed refuses runs of different datasets (their Hits@1 are not
// comparable, and PoG's reference figures are per dataset), naming each
// run's; allowMixed lets them through, and each run is then labelled with
// its dataset.
func CheckMixed(runs []ResultSet, allowMixed bool) error {
	if allowMixed || commonDataset(runs) != "mixed" {
		return nil
	}
	var parts []string
	for _, r := range runs {
		ds := r.Dataset
		if ds == "" {
			ds = "unknown"
		}
		parts = append(parts, r.Name+" ("+ds+")")
	}
	return fmt.Errorf("dataset: report: the runs are of different datasets: %s; give --allow-mixed to report them together", strings.Join(parts, ", "))
}
