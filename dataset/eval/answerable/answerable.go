package answerable

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa/kg"
)

// Coverage says how much of a question's gold answer set its gold query
// returns on a KG.
type Coverage string

// The coverages, from best to worst.
const (
	// Exact: the query returns exactly the gold answers.
	Exact Coverage = "exact"
	// Superset: every gold answer comes back, and more.
	Superset Coverage = "superset"
	// Partial: some gold answers come back, not all.
	Partial Coverage = "partial"
	// None: no gold answer comes back (or the question has none).
	None Coverage = "none"
	// Failed: the KG could not run the query.
	Failed Coverage = "failed"
)

// Coverages lists the coverages from best to worst.
var Coverages = []Coverage{Exact, Superset, Partial, None, Failed}

func (v Coverage) rank() int {
	for i, w := range Coverages {
		if w == v {
			return len(Coverages) - i
		}
	}
	return 0
}

// AtLeast reports whether v is as good as w or better.
func (v Coverage) AtLeast(w Coverage) bool { return v.rank() >= w.rank() }

// ParseCoverage returns the Coverage named s.
func ParseCoverage(s string) (Coverage, error) {
	for _, v := range Coverages {
		if string(v) == strings.ToLower(strings.TrimSpace(s)) {
			return v, nil
		}
	}
	return "", fmt.Errorf("dataset: unknown coverage %q (want exact, superset, partial, none or failed)", s)
}

// Selector runs a raw SELECT on a KG (kg.Graph is one).
type Selector interface {
	Select(ctx context.Context, query string) (*kg.Results, error)
}

// Options configure Answerable.
type Options struct {
	// Format is the input's format.
	Format dataset.Format
	// Keep is the worst coverage written to the output (default Superset:
	// every gold answer comes back).
	Keep Coverage
	// Parallel is how many queries run at once (default 4).
	Parallel int
	// Progress, when set, is called after each question.
	Progress func(done int)
	// Rewrite, when set, turns a gold query into what the KG runs (such
	// as Virtuoso's dialect into standard SPARQL for the embedded store).
	Rewrite func(query string) string
}

// Result is one question's outcome.
type Result struct {
	// ID is the question's id.
	ID string `json:"id"`
	// Coverage is the best coverage over the question's gold queries.
	Coverage Coverage `json:"coverage"`
	// Gold is the number of gold answers, Returned the number of values the
	// query returned, Matched the gold answers among them.
	Gold     int `json:"gold"`
	Returned int `json:"returned"`
	Matched  int `json:"matched"`
	// Reason says why a query failed or why nothing matched.
	Reason string `json:"reason,omitempty"`
	// Parse is the 0-based index of the WebQSP parse the coverage is for.
	// A kept question is written with that parse first, since tools read
	// the first parse's SPARQL (the loader, sparql2plan).
	Parse int `json:"parse,omitempty"`
}

// Report is what Answerable found.
type Report struct {
	// Format is the input format.
	Format dataset.Format `json:"format"`
	// Questions is the number of well-formed questions read.
	Questions int `json:"questions"`
	// Counts holds the number of questions per coverage.
	Counts map[Coverage]int `json:"counts"`
	// Keep is the worst coverage written; Written how many were.
	Keep    Coverage `json:"keep"`
	Written int      `json:"written"`
	// Failures counts failed questions by reason.
	Failures map[string]int `json:"failures,omitempty"`
	// Skipped are the malformed input records.
	Skipped []dataset.Skipped `json:"skipped,omitempty"`
	// Results has one entry per question, in input order.
	Results []Result `json:"results"`
}

type answerableItem struct {
	q   dataset.Question
	raw json.RawMessage
	res Result
}

// Run runs each question's gold SPARQL from in on g and writes the
// questions whose coverage is at least o.Keep to out, in the input's own
// format and order.
func Run(ctx context.Context, g Selector, in io.Reader, out io.Writer, o Options) (*Report, error) {
	if o.Keep == "" {
		o.Keep = Superset
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	rep := &Report{Format: o.Format, Keep: o.Keep, Counts: map[Coverage]int{}, Failures: map[string]int{}}
	var items []*answerableItem
	err := dataset.DecodeRecords(ctx, in, o.Format, func(q dataset.Question, raw json.RawMessage) error {
		items = append(items, &answerableItem{q: q, raw: append(json.RawMessage(nil), raw...)})
		return nil
	}, func(s dataset.Skipped) { rep.Skipped = append(rep.Skipped, s) })
	if err != nil {
		return nil, err
	}
	if err := judgeAll(ctx, g, items, o); err != nil {
		return nil, err
	}
	var kept []json.RawMessage
	for _, it := range items {
		rep.Questions++
		rep.Counts[it.res.Coverage]++
		if it.res.Coverage == Failed {
			rep.Failures[failureClass(it.res.Reason)]++
		}
		rep.Results = append(rep.Results, it.res)
		if it.res.Coverage.AtLeast(o.Keep) {
			raw, err := parseFirst(it.raw, it.res.Parse)
			if err != nil {
				return nil, err
			}
			kept = append(kept, raw)
		}
	}
	rep.Written = len(kept)
	if err := writeRecords(out, o.Format, kept); err != nil {
		return nil, err
	}
	return rep, nil
}

func judgeAll(ctx context.Context, g Selector, items []*answerableItem, o Options) error {
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(o.Parallel)
	var mu sync.Mutex
	done := 0
	for _, it := range items {
		eg.Go(func() error {
			res, err := judge(ctx, g, it.q, it.raw, o.Rewrite)
			if err != nil {
				return err
			}
			it.res = res
			if o.Progress != nil {
				mu.Lock()
				done++
				o.Progress(done)
				mu.Unlock()
			}
			return nil
		})
	}
	return eg.Wait()
}

// goldQuery is one gold SPARQL with the answers it should return.
type goldQuery struct {
	sparql  string
	answers []dataset.Answer
}

// goldQueries lists a question's gold queries: every WebQSP parse with its
// own answers, or the one query of the other formats.
func goldQueries(q dataset.Question, raw json.RawMessage) []goldQuery {
	if q.Source == dataset.WebQSP {
		var r dataset.WebQSPRecord
		if json.Unmarshal(raw, &r) == nil && len(r.Parses) > 0 {
			var gs []goldQuery
			for _, p := range r.Parses {
				g := goldQuery{sparql: p.Sparql}
				for _, a := range p.Answers {
					if a.AnswerType == "Entity" {
						mid, _ := dataset.NormalizeMID(a.AnswerArgument)
						g.answers = append(g.answers, dataset.Answer{ID: mid})
						continue
					}
					g.answers = append(g.answers, dataset.Answer{Name: a.AnswerArgument})
				}
				gs = append(gs, g)
			}
			return gs
		}
	}
	if q.SPARQL == "" && len(q.TopicEntities) > 0 && neighbourhoodHops[q.Source] > 0 {
		return []goldQuery{{sparql: neighbourhoodQuery(q.TopicEntities, neighbourhoodHops[q.Source]), answers: q.Answers}}
	}
	return []goldQuery{{sparql: q.SPARQL, answers: q.Answers}}
}

// neighbourhoodHops gives, for the formats whose files hold no gold query
// (ToG's WebQuestions and SimpleQuestions: answers are names), how far
// from the topic entities the answers must lie: one hop for
// SimpleQuestions (one relation by construction), two for WebQuestions
// (one relation, or two through a mediator node).
var neighbourhoodHops = map[dataset.Format]int{dataset.SimpleQuestions: 1, dataset.WebQuestions: 2}

// neighbourhoodQuery lists the names of the entities, and the literals,
// within hops of the topic entities (Freebase), as the stand-in gold
// query of a question with answer names only: "superset" then means every
// gold name is within reach. The ids are Freebase MIDs checked by the
// loader (dataset.NormalizeMID), so they are safe to write in the query.
func neighbourhoodQuery(topics []dataset.Entity, hops int) string {
	var values []string
	for _, t := range topics {
		if id, ok := dataset.NormalizeMID(t.ID); ok {
			values = append(values, "ns:"+id)
		}
	}
	two := ""
	if hops > 1 {
		two = ` UNION { ?t ?p ?m . ?m ?q ?v }`
	}
	return "PREFIX ns: <" + dataset.FreebaseNS + ">\nSELECT DISTINCT ?x WHERE { VALUES ?t { " + strings.Join(values, " ") + " } " +
		"{ { ?t ?p ?v }" + two + " } " +
		"{ ?v ns:type.object.name ?x } UNION { BIND(?v AS ?x) FILTER(isLiteral(?v)) } } LIMIT 100000"
}

// judge runs the question's gold queries and keeps the best coverage; a
// context error stops the whole run rather than failing one question.
func judge(ctx context.Context, g Selector, q dataset.Question, raw json.RawMessage, rewrite func(string) string) (Result, error) {
	best := Result{ID: q.ID, Coverage: Failed, Reason: "no gold SPARQL"}
	for i, gq := range goldQueries(q, raw) {
		if strings.TrimSpace(gq.sparql) == "" {
			continue
		}
		query := gq.sparql
		if rewrite != nil {
			query = rewrite(query)
		}
		res, err := g.Select(ctx, query)
		if err != nil {
			if ctx.Err() != nil {
				return best, fmt.Errorf("dataset: answerable: %w", ctx.Err())
			}
			if best.Coverage == Failed {
				best.Reason = oneLine(err.Error())
			}
			continue
		}
		r := compareAnswers(q.ID, gq.answers, res)
		r.Parse = i
		if r.Coverage.rank() > best.Coverage.rank() || best.Coverage == Failed {
			best = r
		}
	}
	return best, nil
}

// parseFirst moves WebQSP parse i of raw to the front; other records, and
// i == 0, are returned unchanged.
func parseFirst(raw json.RawMessage, i int) (json.RawMessage, error) {
	if i == 0 {
		return raw, nil
	}
	var rec map[string]json.RawMessage
	var parses []json.RawMessage
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("dataset: answerable: %w", err)
	}
	if err := json.Unmarshal(rec["Parses"], &parses); err != nil || i >= len(parses) {
		return nil, fmt.Errorf("dataset: answerable: parse %d of a record: %v", i, err)
	}
	parses = append(append([]json.RawMessage{parses[i]}, parses[:i]...), parses[i+1:]...)
	b, err := json.Marshal(parses)
	if err != nil {
		return nil, fmt.Errorf("dataset: answerable: %w", err)
	}
	rec["Parses"] = b
	if raw, err = json.Marshal(rec); err != nil {
		return nil, fmt.Errorf("dataset: answerable: %w", err)
	}
	return raw, nil
}

// compareAnswers sets the coverage of one query's results against gold.
func compareAnswers(id string, gold []dataset.Answer, res *kg.Results) Result {
	goldKeys := map[string]bool{}
	for _, a := range gold {
		goldKeys[answerKey(a.ID, a.Name)] = true
	}
	got := map[string]bool{}
	if len(res.Vars) > 0 {
		for _, row := range res.Rows {
			if t, ok := row[res.Vars[0]]; ok {
				got[answerKey(t.ID, t.Name)] = true
			}
		}
	}
	matched := 0
	for k := range goldKeys {
		if got[k] {
			matched++
		}
	}
	r := Result{ID: id, Gold: len(goldKeys), Returned: len(got), Matched: matched}
	switch {
	case len(goldKeys) == 0:
		r.Coverage, r.Reason = None, "no gold answers"
	case matched == len(goldKeys) && len(got) == matched:
		r.Coverage = Exact
	case matched == len(goldKeys):
		r.Coverage = Superset
	case matched > 0:
		r.Coverage = Partial
	case len(got) == 0:
		r.Coverage, r.Reason = None, "no results"
	default:
		r.Coverage, r.Reason = None, "no gold answer among the results"
	}
	return r
}

// answerKey identifies an answer: an entity by id, a literal by its
// normalised lexical form.
func answerKey(id, lexical string) string {
	if id != "" {
		return "e:" + id
	}
	return "l:" + naming.Canonical(lexical)
}

// failureClass shortens a failure reason to group like failures.
func failureClass(reason string) string {
	if len(reason) > 120 {
		reason = reason[:120] + "..."
	}
	return reason
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeRecords writes records in format f: WebQSP's {"Questions": [...]}
// envelope or a JSON array.
func writeRecords(w io.Writer, f dataset.Format, records []json.RawMessage) error {
	var b strings.Builder
	if f == dataset.WebQSP {
		b.WriteString("{\"Questions\": ")
	}
	b.WriteString("[")
	for i, r := range records {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		b.Write(r)
	}
	b.WriteString("\n]")
	if f == dataset.WebQSP {
		b.WriteString("}")
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("dataset: answerable: write: %w", err)
	}
	return nil
}

// File is Answerable from the file in to the file out, written
// only when complete.
func File(ctx context.Context, g Selector, in, out string, o Options) (*Report, error) {
	fh, err := os.Open(in)
	if err != nil {
		return nil, fmt.Errorf("dataset: answerable: %w", err)
	}
	defer fh.Close()
	tmp := out + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("dataset: answerable: %w", err)
	}
	rep, err := Run(ctx, g, fh, w, o)
	if cerr := w.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("dataset: answerable: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("%w (file %s)", err, in)
	}
	if err := os.Rename(tmp, out); err != nil {
		return nil, fmt.Errorf("dataset: answerable: %w", err)
	}
	return rep, nil
}
