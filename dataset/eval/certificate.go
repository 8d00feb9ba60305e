package eval

import (
	"context"
	"strconv"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/compile"
	"github.com/parog/parog-go/kgqa/kg"
)

// Disagreements are the classes of a certificate that is not equivalent
// to the gold query: it has no query, one of the two queries failed on
// the KG, its answers differ from the gold query's but are exactly the
// question's gold answers (the gold query is narrower or wider than the
// answer list it comes with), or they are a strict subset or superset of
// the gold query's, overlap them, or miss them all.
var Disagreements = []string{"no_certificate", "gold_failed", "certificate_failed", "gold_answers", "subset", "superset", "overlap", "disjoint"}

// equivalent runs the gold query and the certificate's on the engine's KG
// and compares their answer sets: the certificate's ?answer, the gold
// query's first projected variable. It reports nil when the gold query
// gives nothing to compare with.
func (a *EngineAnswerer) equivalent(ctx context.Context, q dataset.Question, c *kgqa.Certificate) (*bool, string) {
	gold := q.SPARQL
	no := false
	if c == nil || c.SPARQL == "" {
		return &no, "no_certificate"
	}
	g := a.eng.Graph()
	if a.goldRewrite != nil {
		gold = a.goldRewrite(gold)
	}
	gr, err := g.Select(ctx, gold)
	if err != nil {
		return &no, "gold_failed"
	}
	cr, err := g.Select(ctx, c.SPARQL)
	if err != nil {
		return &no, "certificate_failed"
	}
	var goldVar string
	if len(gr.Vars) > 0 {
		goldVar = gr.Vars[0]
	}
	want, got := AnswerSet(gr, goldVar), AnswerSet(cr, compile.AnswerVar)
	shared := 0
	for k := range got {
		if want[k] {
			shared++
		}
	}
	switch {
	case shared == len(want) && shared == len(got):
		yes := true
		return &yes, ""
	case sameAsAnswers(got, q.Answers):
		return &no, "gold_answers"
	case shared == len(got) && shared > 0:
		return &no, "subset"
	case shared == len(want) && shared > 0:
		return &no, "superset"
	case shared > 0:
		return &no, "overlap"
	}
	return &no, "disjoint"
}

// sameAsAnswers reports whether got is exactly the gold answers' entity
// ids (only when every gold answer has one).
func sameAsAnswers(got map[string]bool, answers []dataset.Answer) bool {
	if len(answers) == 0 || len(answers) != len(got) {
		return false
	}
	for _, a := range answers {
		if a.ID == "" || !got[a.ID] {
			return false
		}
	}
	return true
}

// AnswerSet keys the values of variable v: an entity by id, a number by
// its value, anything else by its lexical form.
func AnswerSet(r *kg.Results, v string) map[string]bool {
	out := map[string]bool{}
	for _, row := range r.Rows {
		t, ok := row[v]
		if !ok {
			continue
		}
		switch f, err := strconv.ParseFloat(strings.TrimSpace(t.Name), 64); {
		case t.IsEntity():
			out[t.ID] = true
		case err == nil:
			out["#"+strconv.FormatFloat(f, 'g', -1, 64)] = true
		default:
			out["\""+t.Name] = true
		}
	}
	return out
}
