package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/kg"
)

// Prediction is what an Answerer returns for one question.
type Prediction struct {
	// Text is the final answer in words.
	Text string
	// Entities is the ranked answer set (entities or literals).
	Entities []score.PredEntity
	// Tentative is the question's parametric answer in words, before
	// retrieval; TentativeNames the names it gives, when the answerer
	// extracted them (else Tentative is read as free text).
	Tentative      string
	TentativeNames []string
	// TentativeJudged says TentativeNames is the answerer's composed
	// question-level tentative answer (kgqa.TentativeAnswer): it is scored
	// even when it names nothing (a miss), and Tentative is not read.
	TentativeJudged bool
	// TentativeNotDerivable, when set, says why the question has no
	// tentative answer (its plan orders or filters by values, which
	// tentative answers do not give).
	TentativeNotDerivable string
	// AnsweredWithoutKG says the answer came from the model's knowledge
	// alone (no topic entity or no fact found).
	AnsweredWithoutKG bool
	// Verdicts are the per-subgoal refinement outcomes.
	Verdicts []SubgoalVerdict
	// Recoveries are the judgements the engine revisited.
	Recoveries []kgqa.Recovery
	// Plan and Trace are JSON documents kept verbatim in the results.
	Plan  json.RawMessage
	Trace json.RawMessage
	// LLMCalls, InputTokens and OutputTokens are the question's LLM cost.
	LLMCalls     int
	InputTokens  int
	OutputTokens int
	// SPARQLQueries is the number of SPARQL queries sent.
	SPARQLQueries int64
	// Certificate is the answer's certificate (nil when the answerer
	// gives none).
	Certificate *kgqa.Certificate
	// CertificateEquivalent says whether the certificate's answers on
	// the KG equal the gold query's (nil when either is missing);
	// CertificateDisagreement classifies a difference.
	CertificateEquivalent   *bool
	CertificateDisagreement string
}

// Answerer answers one benchmark question. seed is passed to the LLM
// sampling (nil: the configured default). Implementations must be safe for
// concurrent use. A returned error marks the question failed; the
// prediction may still carry the cost and trace of the partial work.
type Answerer interface {
	Answer(ctx context.Context, q dataset.Question, seed *int) (Prediction, error)
}

// AnswerFunc adapts a function to Answerer.
type AnswerFunc func(ctx context.Context, q dataset.Question, seed *int) (Prediction, error)

// Answer calls f.
func (f AnswerFunc) Answer(ctx context.Context, q dataset.Question, seed *int) (Prediction, error) {
	return f(ctx, q, seed)
}

// Progress is the running state of a Run, passed to RunOptions.OnResult.
type Progress struct {
	// Done and Total count questions of this run (skipped ones excluded).
	Done, Total int
	// Hits and Errors count among Done.
	Hits, Errors int
}

// RunOptions tunes Run.
type RunOptions struct {
	// Concurrency is the number of questions in flight (default 1).
	Concurrency int
	// Seeds are run one after another for every question; empty runs once
	// with no seed.
	Seeds []int
	// Scorer scores the predictions.
	Scorer score.Scorer
	// Done holds keys already finished (from PrepareResume); they are
	// skipped.
	Done map[Key]bool
	// Timeout bounds one question (0: none). A question that runs past it
	// is recorded as failed with kind "timeout".
	Timeout time.Duration
	// OnResult, when set, is called after each result is written, from one
	// goroutine at a time.
	OnResult func(Result, Progress)
	// Logf, when set, receives diagnostics (a recovered panic's stack).
	Logf func(format string, args ...any)
}

// Summary is the outcome of a Run.
type Summary struct {
	// Total is the number of (question, seed) pairs selected.
	Total int `json:"total"`
	// Skipped were already finished.
	Skipped int `json:"skipped"`
	// Ran were answered and written in this run.
	Ran int `json:"ran"`
	// Hits among Ran.
	Hits int `json:"hits"`
	// Errors among Ran (panics included).
	Errors int `json:"errors"`
	// Panics among Errors.
	Panics int `json:"panics"`
	// Elapsed is the wall time of the run.
	Elapsed time.Duration `json:"elapsed_ns"`
}

type job struct {
	q    *dataset.Question
	seed *int
}

// Run answers every selected (question, seed) pair not in opts.Done with
// bounded concurrency and appends one line per pair to w as it finishes. A
// failing or panicking question is recorded as a miss with its error, and
// the run goes on. When ctx is canceled no new question starts, and the
// questions in flight are not recorded (they run again on resume); Run
// then returns ctx's error. A write error stops the run.
func Run(ctx context.Context, ans Answerer, qs []dataset.Question, w *ResultWriter, opts RunOptions) (Summary, error) {
	start := time.Now()
	jobs, sum := selectJobs(qs, opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := answerAll(ctx, ans, jobs, opts)
	var werr error
	prog := Progress{Total: len(jobs)}
	for r := range out {
		if werr != nil {
			continue
		}
		if err := w.Write(&r); err != nil {
			werr = err
			cancel()
			continue
		}
		sum.count(r)
		prog.Done, prog.Hits, prog.Errors = sum.Ran, sum.Hits, sum.Errors
		if opts.OnResult != nil {
			opts.OnResult(r, prog)
		}
	}
	sum.Elapsed = time.Since(start)
	if werr != nil {
		return sum, werr
	}
	return sum, context.Cause(ctx)
}

// selectJobs pairs every question with every seed (one nil seed when none
// is given) and leaves out the pairs opts.Done holds.
func selectJobs(qs []dataset.Question, opts RunOptions) ([]job, Summary) {
	seeds := []*int{nil}
	if len(opts.Seeds) > 0 {
		seeds = seeds[:0]
		for i := range opts.Seeds {
			seeds = append(seeds, &opts.Seeds[i])
		}
	}
	var jobs []job
	var sum Summary
	for _, s := range seeds {
		for i := range qs {
			sum.Total++
			if opts.Done[MakeKey(qs[i].ID, s)] {
				sum.Skipped++
				continue
			}
			jobs = append(jobs, job{q: &qs[i], seed: s})
		}
	}
	return jobs, sum
}

// Pending counts the (question, seed) pairs Run would answer: every pair
// of qs and seeds (one unseeded run when seeds is empty) not in done.
func Pending(qs []dataset.Question, seeds []int, done map[Key]bool) int {
	jobs, _ := selectJobs(qs, RunOptions{Seeds: seeds, Done: done})
	return len(jobs)
}

// answerAll answers jobs on opts.Concurrency goroutines and sends each
// result on the returned channel, which is closed when every worker has
// ended. Once ctx is canceled no job starts and the ones in flight send
// nothing, so they run again on resume.
func answerAll(ctx context.Context, ans Answerer, jobs []job, opts RunOptions) <-chan Result {
	feed := make(chan job)
	out := make(chan Result)
	var wg sync.WaitGroup
	for range min(max(opts.Concurrency, 1), max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range feed {
				r, panicked := answerOne(ctx, ans, j, opts)
				if ctx.Err() != nil {
					continue // canceled: leave it for the resumed run
				}
				if panicked {
					r.ErrorKind = "panic"
				}
				select {
				case out <- r:
				case <-ctx.Done():
				}
			}
		})
	}
	go func() {
		defer close(feed)
		for _, j := range jobs {
			select {
			case feed <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	return out
}

// count adds one written result to the summary.
func (s *Summary) count(r Result) {
	s.Ran++
	if r.Hit {
		s.Hits++
	}
	if r.Error != "" {
		s.Errors++
		if r.ErrorKind == "panic" {
			s.Panics++
		}
	}
}

// answerOne runs one question, recovering a panic into a failed result.
func answerOne(ctx context.Context, ans Answerer, j job, opts RunOptions) (res Result, panicked bool) {
	q := j.q
	res = Result{Question: q.Text, ID: q.ID, Seed: j.seed, Type: q.Label, Gold: q.GoldNames(), Entities: []score.PredEntity{}}
	if q.Source == dataset.WebQSP {
		res.RawQuestion = q.Text
	}
	start := time.Now()
	defer func() {
		res.Time = time.Since(start).Seconds()
		if v := recover(); v != nil {
			panicked = true
			res.Error = fmt.Sprintf("panic: %v", v)
			res.Hit, res.F1 = false, 0
			if opts.Logf != nil {
				opts.Logf("question %s (seed %s) panicked: %v\n%s", q.ID, SeedLabel(j.seed), v, debug.Stack())
			}
		}
	}()
	qctx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	p, err := ans.Answer(qctx, *q, j.seed)
	Fill(&res, q, p, opts.Scorer)
	if err != nil {
		res.Error = err.Error()
		res.ErrorKind = ErrorKind(err)
		res.Hit, res.F1 = false, 0
	}
	return res, false
}

// Fill copies a prediction into a result and scores it with s against q's
// gold answers.
func Fill(res *Result, q *dataset.Question, p Prediction, s score.Scorer) {
	res.Results = p.Text
	res.CallNum = p.LLMCalls
	res.InputToken, res.OutputToken = p.InputTokens, p.OutputTokens
	res.TotalToken = p.InputTokens + p.OutputTokens
	res.SPARQLQueries = p.SPARQLQueries
	res.Plan, res.Trace, res.Verdicts = p.Plan, p.Trace, p.Verdicts
	res.Recoveries = p.Recoveries
	pred := score.PredictedSet(p.Entities, p.Text)
	if pred != nil {
		res.Entities = pred
	}
	sc := s.Score(*q, pred)
	res.Hit, res.F1, res.Prediction = sc.Hit, sc.F1, sc.Top
	if score.ToGRuleFormats[q.Source] {
		hit := score.ToGHit(*q, p.Text)
		res.ToGHit = &hit
	}
	res.Tentative = p.Tentative
	res.TentativeNotDerivable = p.TentativeNotDerivable
	res.AnsweredWithoutKG = p.AnsweredWithoutKG
	if c := p.Certificate; c != nil {
		verified := c.Verified
		res.CertificateVerified, res.CertificateCovers = &verified, string(c.Covers)
		res.CertificateSPARQL = c.SPARQL
	}
	res.CertificateEquivalent, res.CertificateDisagreement = p.CertificateEquivalent, p.CertificateDisagreement
	if p.TentativeJudged {
		res.TentativeNames = nonAnswersDropped(p.TentativeNames)
	}
	if tentative := tentativeSet(p); len(tentative) > 0 || p.TentativeJudged {
		hit := s.Score(*q, tentative).Hit
		res.TentativeHit = &hit
	}
}

// nonAnswersDropped returns names without the non-answers ("unknown",
// "none", ...), never nil.
func nonAnswersDropped(names []string) []string {
	out := []string{}
	for _, n := range names {
		if !score.IsNonAnswer(n) {
			out = append(out, n)
		}
	}
	return out
}

func tentativeSet(p Prediction) []score.PredEntity {
	var out []score.PredEntity
	for _, n := range p.TentativeNames {
		if !score.IsNonAnswer(n) {
			out = append(out, score.PredEntity{Name: n})
		}
	}
	if len(out) == 0 && !p.TentativeJudged {
		for _, it := range score.AnswerItems(p.Tentative) {
			out = append(out, score.PredEntity{Name: it})
		}
	}
	return out
}

// ErrorKind classifies a question's error for the failure report: timeout,
// canceled, llm_unavailable, llm_schema, llm_rejected, llm_not_configured,
// kg_unavailable, kg_bad_response, kg_invalid_id, invalid_plan, or other.
// ("panic" is set by Run for recovered panics.)
func ErrorKind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, kgqa.ErrModelNotConfigured):
		return "llm_not_configured"
	case errors.Is(err, kgqa.ErrSchema):
		return "llm_schema"
	case errors.Is(err, kgqa.ErrModelRejected):
		return "llm_rejected"
	case errors.Is(err, kgqa.ErrModelUnavailable):
		return "llm_unavailable"
	case errors.Is(err, kg.ErrUnavailable):
		return "kg_unavailable"
	case errors.Is(err, kg.ErrBadResponse), errors.Is(err, kg.ErrTooLarge), errors.Is(err, kg.ErrQuery):
		return "kg_bad_response"
	case errors.Is(err, kg.ErrInvalidID):
		return "kg_invalid_id"
	case errors.Is(err, kgqa.ErrInvalidPlan), strings.Contains(err.Error(), "invalid plan"):
		return "invalid_plan"
	}
	return "other"
}
