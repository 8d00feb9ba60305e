package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
)

// certify compiles the answer's executed plan to SPARQL and runs it
// against the KG: the certificate is verified when the query's result
// equals the answer's entities. It never changes the answer; a query that
// cannot be compiled, fails, or disagrees is reported in the certificate.
func (e *Engine) certify(ctx context.Context, a *kgqa.Answer, runErr error) *kgqa.Certificate {
	if runErr != nil {
		return &kgqa.Certificate{Covers: kgqa.CoversNone, Error: "the engine stopped before an answer: " + string(a.Stop)}
	}
	q, covers, err := compile.FromAnswer(a)
	c := &kgqa.Certificate{Covers: covers}
	if err != nil {
		c.Error = err.Error()
		return c
	}
	if c.SPARQL, err = compile.Compile(q, e.g.Dialect()); err != nil {
		c.Error = err.Error()
		return c
	}
	res, err := e.g.Select(ctx, c.SPARQL)
	if err != nil {
		c.Error = "running the query: " + err.Error()
		return c
	}
	got := map[string]bool{}
	for _, row := range res.Rows {
		if t, ok := row[compile.AnswerVar]; ok {
			got[resultKey(t)] = true
		}
	}
	c.Rows = len(got)
	want := map[string]bool{}
	for _, t := range a.Entities {
		want[resultKey(t)] = true
	}
	if missing, extra := setDiff(want, got), setDiff(got, want); len(missing)+len(extra) > 0 {
		if f := a.Final; f != nil && f.Source == "sufficiency" && len(missing) == 0 {
			c.Error = fmt.Sprintf("the question was judged answerable after %s and the model picked %d of the %d results of its query, which states no more", f.After, len(want), len(got))
			return c
		}
		c.Error = fmt.Sprintf("the query's result differs from the answer: %d of the answer's %d missing (%s), %d more (%s)",
			len(missing), len(want), sample(missing), len(extra), sample(extra))
		return c
	}
	c.Verified = true
	return c
}

// resultKey compares a query's term with an answer's: an entity by id, a
// number by its value (a count's "3" and "3"^^xsd:integer), anything
// else by its lexical form.
func resultKey(t kgqa.Term) string {
	if t.IsEntity() {
		return t.ID
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(t.Name), 64); err == nil {
		return "#" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "\"" + t.Name
}

func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// sample lists the first keys, as a reader knows them (no kind marker).
func sample(keys []string) string {
	more := ""
	if len(keys) > 3 {
		keys, more = keys[:3], ", ..."
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.TrimLeft(k, "#\"")
	}
	return strings.Join(out, ", ") + more
}
