// Package harvest turns the engine's own verified runs into planner
// training data: from eval results it keeps the questions answered right
// whose certificate (the SPARQL query compiled from the executed plan) the
// engine ran and verified, and writes each as a <question, SPARQL> pair in
// the WebQSP or CWQ format, which sparql2plan converts like the published
// benchmarks. It never harvests from a dev or test split.
package harvest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/sft"
	"github.com/parog/parog-go/sparql2plan"
)

// Match says when a row's answer matches the gold.
type Match string

// The answer matches.
const (
	// MatchExact keeps rows whose answer set is the gold set (F1 = 1):
	// the certificate then returns exactly the gold answers.
	MatchExact Match = "exact"
	// MatchHit keeps rows whose top answer is a gold answer (Hits@1).
	MatchHit Match = "hit"
)

// Options configure Harvest.
type Options struct {
	// Split is the benchmark split the results were run on; only train
	// is harvested.
	Split string
	// Format is the output format: dataset.WebQSP or dataset.CWQ.
	Format dataset.Format
	// Match says when an answer matches the gold (default MatchExact).
	Match Match
	// Partial also keeps certificates that cover the answer partially
	// (some sets are the model's stated entities, a VALUES clause).
	Partial bool
}

// Stats count what Harvest kept and why it dropped the rest.
type Stats struct {
	// Rows read and Kept.
	Rows int `json:"rows"`
	Kept int `json:"kept"`
	// Dropped counts the rows left out, by reason.
	Dropped map[string]int `json:"dropped"`
}

// ErrSplit is returned for results of a dev or test split.
var ErrSplit = errors.New("harvest: only a train split is harvested")

// Harvest writes the kept rows of results to w in opts.Format.
func Harvest(w io.Writer, results []eval.Result, opts Options) (*Stats, error) {
	if err := CheckSplit(opts.Split); err != nil {
		return nil, err
	}
	if opts.Match == "" {
		opts.Match = MatchExact
	}
	if opts.Match != MatchExact && opts.Match != MatchHit {
		return nil, fmt.Errorf("harvest: match %q: want exact or hit", opts.Match)
	}
	st := &Stats{Dropped: map[string]int{}}
	var kept []pair
	for _, r := range results {
		st.Rows++
		p, why := keep(r, opts)
		if why != "" {
			st.Dropped[why]++
			continue
		}
		kept = append(kept, p)
	}
	st.Kept = len(kept)
	var out any
	switch opts.Format {
	case dataset.WebQSP:
		out = webqsp(kept)
	case dataset.CWQ:
		out = cwq(kept)
	default:
		return nil, fmt.Errorf("harvest: format %q: want webqsp or cwq", opts.Format)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("harvest: write: %w", err)
	}
	return st, nil
}

// CheckSplit refuses every split but train: dev and test questions are
// for evaluation only, and a planner trained on them would be measured on
// what it was taught.
func CheckSplit(split string) error {
	switch split {
	case sft.SourceTrain:
		return nil
	case sft.SourceDev, sft.SourceTest:
		return fmt.Errorf("%w: these results come from the %s split, which is for evaluation only", ErrSplit, split)
	}
	return fmt.Errorf("%w: split %q is not train, dev or test", ErrSplit, split)
}

// pair is one harvested question.
type pair struct {
	id, question, typ, sparql string
	topics                    []kgqa.Topic
	answers                   []kgqa.Term
}

// keep returns the pair of r, or why r is left out.
func keep(r eval.Result, opts Options) (pair, string) {
	switch {
	case r.Error != "":
		return pair{}, "failed"
	case r.CertificateVerified == nil || r.CertificateSPARQL == "":
		return pair{}, "no certificate"
	case !*r.CertificateVerified:
		return pair{}, "certificate not verified"
	case r.CertificateCovers != string(kgqa.CoversAll) && !(opts.Partial && r.CertificateCovers == string(kgqa.CoversPartial)):
		return pair{}, "certificate covers " + orNone(r.CertificateCovers)
	case !r.Hit:
		return pair{}, "wrong answer"
	case opts.Match == MatchExact && r.F1 < 1:
		return pair{}, "answer set not the gold set"
	}
	// Only a pair sparql2plan turns into a plan is training data: an
	// engine-only construct (any edge of a mediator, alternative paths
	// the trace kept) has no plan.
	if _, err := sparql2plan.ConvertQuery(r.CertificateSPARQL, nil); err != nil {
		return pair{}, "certificate does not convert to a plan: " + sparql2plan.FailureReason(err)
	}
	p := pair{id: r.ID, question: r.Question, typ: r.Type, sparql: r.CertificateSPARQL}
	if len(r.Trace) > 0 {
		var a kgqa.Answer
		if err := json.Unmarshal(r.Trace, &a); err != nil {
			return pair{}, "unreadable trace"
		}
		p.topics, p.answers = a.Topics, a.Entities
	}
	if len(p.answers) == 0 {
		for _, e := range r.Entities {
			p.answers = append(p.answers, kgqa.Term{ID: e.ID, Name: e.Name, Datatype: e.Datatype})
		}
	}
	return p, ""
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// webqsp writes pairs as a WebQSP file: one parse per question, its
// topic entity the first the engine used.
func webqsp(ps []pair) any {
	out := struct {
		Questions []dataset.WebQSPRecord `json:"Questions"`
	}{Questions: []dataset.WebQSPRecord{}}
	for _, p := range ps {
		parse := dataset.WebQSPParse{ParseID: p.id + ".P0", Sparql: p.sparql, Answers: []dataset.WebQSPAnswer{}}
		if len(p.topics) > 0 {
			parse.TopicEntityMid, parse.TopicEntityName = p.topics[0].ID, p.topics[0].Name
		}
		for _, t := range p.answers {
			if t.IsEntity() {
				parse.Answers = append(parse.Answers, dataset.WebQSPAnswer{AnswerType: "Entity", AnswerArgument: t.ID, EntityName: t.Name})
			} else {
				parse.Answers = append(parse.Answers, dataset.WebQSPAnswer{AnswerType: "Value", AnswerArgument: t.Name})
			}
		}
		out.Questions = append(out.Questions, dataset.WebQSPRecord{QuestionID: p.id, RawQuestion: p.question,
			ProcessedQuestion: strings.ToLower(p.question), Parses: []dataset.WebQSPParse{parse}})
	}
	return out
}

// cwq writes pairs as a CWQ file.
func cwq(ps []pair) any {
	out := []dataset.CWQRecord{}
	for _, p := range ps {
		topics := map[string]string{}
		for _, t := range p.topics {
			topics[t.ID] = t.Name
		}
		te, _ := json.Marshal(topics) // a map of strings always encodes
		r := dataset.CWQRecord{ID: p.id, Question: p.question, SPARQL: p.sparql, Type: p.typ, TopicEntity: te}
		for _, t := range p.answers {
			if t.IsEntity() {
				r.Answers = append(r.Answers, dataset.CWQAnswer{Answer: t.Name, AnswerID: t.ID, Aliases: []string{}})
			} else {
				r.Answers = append(r.Answers, dataset.CWQAnswer{Answer: t.Name, Aliases: []string{}})
			}
		}
		out = append(out, r)
	}
	return out
}
