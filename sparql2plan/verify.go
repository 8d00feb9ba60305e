package sparql2plan

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Executor runs a SELECT on a KG and returns the keys of its first
// projected variable's values (an entity by id, a number by its value,
// anything else by its lexical form).
type Executor func(ctx context.Context, query string) (map[string]bool, error)

// VerifyOptions configures Verify.
type VerifyOptions struct {
	// Questions are the benchmark's questions, as the caller loaded them,
	// and Format the name of its format, for the report.
	Questions []Pair
	Format    string
	// Exec, when set, runs the gold query (after Normalize) and the
	// compiled one and compares their answers.
	Exec Executor
	// Progress, when set, is told the total and each question checked.
	Progress Progress
}

// Cause counts the questions one mismatch class holds, with a few ids.
type Cause struct {
	// Count is the number of questions.
	Count int `json:"count"`
	// Examples are the first question ids.
	Examples []string `json:"examples"`
}

// VerifyStats are the figures of a Verify run.
type VerifyStats struct {
	// Format is the benchmark format.
	Format string `json:"format"`
	// Input questions, Converted to a plan, Compiled back to SPARQL.
	Input     int `json:"input"`
	Converted int `json:"converted"`
	Compiled  int `json:"compiled"`
	// SameAlgebra is the number of compiled queries that are the gold
	// query's algebra after normalising.
	SameAlgebra int `json:"same_algebra"`
	// AlgebraCauses group the questions that are not the same algebra
	// (not converted, no compiled query, or a different one) by cause.
	AlgebraCauses map[string]*Cause `json:"algebra_causes"`
	// Executed counts questions whose two queries both ran on the KG;
	// SameAnswers of them returned the same answers, SameNonEmpty the
	// same non-empty answers (both empty says nothing on a slice).
	Executed     int `json:"executed"`
	SameAnswers  int `json:"same_answers"`
	SameNonEmpty int `json:"same_non_empty"`
	// AnswerCauses group the compiled questions whose answers differ or
	// that did not run.
	AnswerCauses map[string]*Cause `json:"answer_causes,omitempty"`
}

func (s *VerifyStats) add(m map[string]*Cause, cause, id string) {
	c := m[cause]
	if c == nil {
		c = &Cause{}
		m[cause] = c
	}
	c.Count++
	if len(c.Examples) < 3 {
		c.Examples = append(c.Examples, id)
	}
}

// Verify converts every question of a benchmark, compiles each plan
// back to SPARQL and checks it against the gold query: (a) the same
// algebra after normalising, and (b) with opts.Exec, the same answers on
// the KG.
func Verify(ctx context.Context, opts VerifyOptions) (*VerifyStats, error) {
	st := &VerifyStats{Format: opts.Format, AlgebraCauses: map[string]*Cause{}, AnswerCauses: map[string]*Cause{}}
	if opts.Progress != nil {
		opts.Progress.Start(len(opts.Questions))
	}
	for _, q := range opts.Questions {
		if err := ctx.Err(); err != nil {
			return st, fmt.Errorf("sparql2plan: verify: %w", err)
		}
		err := st.question(ctx, q, opts.Exec)
		if opts.Progress != nil {
			opts.Progress.Done()
		}
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

func (st *VerifyStats) question(ctx context.Context, q Pair, exec Executor) error {
	st.Input++
	c, err := Convert(q)
	if err != nil {
		st.add(st.AlgebraCauses, "not converted: "+FailureReason(err), q.ID)
		return nil
	}
	st.Converted++
	compiled, err := CompilePlan(c.Steps)
	if err != nil {
		st.add(st.AlgebraCauses, "not compiled: "+compileReason(err), q.ID)
		return nil
	}
	st.Compiled++
	if why := SameAlgebra(q.SPARQL, compiled); why != "" {
		st.add(st.AlgebraCauses, why, q.ID)
	} else {
		st.SameAlgebra++
	}
	if exec == nil {
		return nil
	}
	gold, _ := Normalize(q.SPARQL)
	want, err := exec(ctx, gold)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		st.add(st.AnswerCauses, "gold query failed", q.ID)
		return nil
	}
	got, err := exec(ctx, compiled)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		st.add(st.AnswerCauses, "compiled query failed", q.ID)
		return nil
	}
	st.Executed++
	if cause := answerDiff(want, got); cause != "" {
		st.add(st.AnswerCauses, cause, q.ID)
		return nil
	}
	st.SameAnswers++
	if len(want) > 0 {
		st.SameNonEmpty++
	}
	return nil
}

// answerDiff classifies two answer sets: "" when equal, else whether the
// compiled query's are a subset, a superset, overlap or miss them.
func answerDiff(want, got map[string]bool) string {
	shared := 0
	for k := range got {
		if want[k] {
			shared++
		}
	}
	switch {
	case shared == len(want) && shared == len(got):
		return ""
	case len(got) == 0:
		return "compiled returns nothing"
	case len(want) == 0:
		return "gold returns nothing"
	case shared == len(got):
		return "compiled returns a subset"
	case shared == len(want):
		return "compiled returns a superset"
	case shared > 0:
		return "answers overlap"
	}
	return "answers disjoint"
}

// compileReason keeps the class of a compile error: the step and node
// names and quoted values dropped.
func compileReason(err error) string {
	msg := err.Error()
	if errors.Is(err, ErrNotCompilable) {
		_, msg, _ = strings.Cut(msg, "not compilable: ")
	} else if i := strings.Index(msg, "compile: "); i >= 0 {
		msg = msg[i+len("compile: "):]
	}
	if i := strings.IndexAny(msg, "\"("); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

// Markdown renders the figures and the mismatch classes.
func (st *VerifyStats) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sparql2plan --verify: %s\n\n", st.Format)
	fmt.Fprintf(&b, "| | count | share of input |\n|---|---|---|\n")
	for _, r := range []struct {
		name string
		n    int
	}{{"input questions", st.Input}, {"converted", st.Converted}, {"compiled back to SPARQL", st.Compiled}, {"converted and equivalent (same algebra)", st.SameAlgebra}} {
		fmt.Fprintf(&b, "| %s | %d | %.2f%% |\n", r.name, r.n, 100*Rate(r.n, st.Input))
	}
	if st.Executed > 0 || len(st.AnswerCauses) > 0 {
		fmt.Fprintf(&b, "| both queries ran on the KG | %d | |\n| same answers | %d (%.2f%% of those run) | |\n| same non-empty answers | %d | |\n",
			st.Executed, st.SameAnswers, 100*Rate(st.SameAnswers, st.Executed), st.SameNonEmpty)
	}
	causes := func(title string, m map[string]*Cause) {
		if len(m) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n| cause | questions | examples |\n|---|---|---|\n", title)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return m[keys[i]].Count > m[keys[j]].Count || m[keys[i]].Count == m[keys[j]].Count && keys[i] < keys[j]
		})
		for _, k := range keys {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", k, m[k].Count, strings.Join(m[k].Examples, ", "))
		}
	}
	causes("Not the same algebra, by cause", st.AlgebraCauses)
	causes("Different answers on the KG, by cause", st.AnswerCauses)
	return b.String()
}
