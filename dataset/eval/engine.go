package eval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine"
)

// EngineAnswerer answers benchmark questions with a ready PARoG engine
// (built by the program's one wiring path, over its KG and model
// clients). A seed given to Answer goes to the engine as
// kgqa.Request.Seed, which sends it as the sampling seed of every LLM call
// of that question in place of the role's configured one. Safe for
// concurrent use.
type EngineAnswerer struct {
	eng         *engine.Engine
	goldRewrite func(string) string
}

// AnswererOption configures an EngineAnswerer.
type AnswererOption func(*EngineAnswerer)

// WithGoldRewrite turns a gold query into what the KG runs before it is
// compared with an answer's certificate (sparql2plan.Normalize: the
// dialect rewrites the embedded store needs).
func WithGoldRewrite(f func(string) string) AnswererOption {
	return func(a *EngineAnswerer) { a.goldRewrite = f }
}

var _ Answerer = (*EngineAnswerer)(nil)

// NewAnswerer answers with eng; whoever built eng closes its KG and model
// client.
func NewAnswerer(eng *engine.Engine, opts ...AnswererOption) *EngineAnswerer {
	a := &EngineAnswerer{eng: eng}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Answer asks the engine q's question with q's topic entities, sampling
// with seed when it is not nil.
func (a *EngineAnswerer) Answer(ctx context.Context, q dataset.Question, seed *int) (Prediction, error) {
	req := engine.Request{Question: q.Text, Seed: seed}
	for _, t := range q.TopicEntities {
		req.TopicEntities = append(req.TopicEntities, t.ID)
	}
	ans, err := a.eng.Ask(ctx, req)
	if ans == nil {
		if err == nil {
			err = errors.New("dataset: engine returned no answer")
		}
		return Prediction{}, err
	}
	p := PredictionFromAnswer(ans)
	if err == nil && q.SPARQL != "" {
		p.CertificateEquivalent, p.CertificateDisagreement = a.equivalent(ctx, q, ans.Certificate)
	}
	return p, err
}

// PredictionFromAnswer turns an engine answer into a Prediction: the
// answer terms, the question's composed tentative answer
// (kgqa.Answer.TentativeAnswer: its parsed names, never the model's raw
// text), one SubgoalVerdict per subgoal, the plan, the whole answer as the
// trace, and the usage.
func PredictionFromAnswer(ans *kgqa.Answer) Prediction {
	p := Prediction{
		Text:              ans.Text,
		LLMCalls:          ans.Usage.LLM.Calls,
		InputTokens:       ans.Usage.LLM.PromptTokens,
		OutputTokens:      ans.Usage.LLM.CompletionTokens,
		SPARQLQueries:     ans.Usage.SPARQLQueries,
		AnsweredWithoutKG: ans.AnsweredWithoutKG,
		Certificate:       ans.Certificate,
		Recoveries:        ans.Recoveries,
	}
	for _, t := range ans.Entities {
		p.Entities = append(p.Entities, score.PredEntity{ID: t.ID, Name: t.Name, Datatype: t.Datatype})
	}
	answerID := ""
	if ans.Plan != nil {
		answerID = ans.Plan.AnswerID()
		p.Plan, _ = json.Marshal(ans.Plan)
	}
	for _, s := range ans.Subgoals {
		v := SubgoalVerdict{Subgoal: s.ID, Answer: s.ID == answerID, Corrected: s.Corrected, Final: s.Result.Text}
		if s.Tentative != nil {
			v.Tentative = s.Tentative.Answer
		}
		if s.Verdict != nil {
			aligned := s.Verdict.Aligned
			v.Aligned = &aligned
		}
		p.Verdicts = append(p.Verdicts, v)
	}
	if ta := ans.TentativeAnswer; ta != nil {
		if ta.Derivable {
			p.TentativeJudged = true
			p.TentativeNames = append([]string{}, ta.Names...)
			p.Tentative = strings.Join(ta.Names, "; ")
		} else {
			p.TentativeNotDerivable = ta.Reason
		}
	}
	p.Trace, _ = json.Marshal(ans)
	return p
}
