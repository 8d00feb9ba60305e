package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/kg/adapters"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/lqt"
)

// EngineAnswerer answers benchmark questions with the PARoG engine over
// one KG and one LLM client. A seed given to Answer goes to the engine as
// kgqa.Request.Seed, which sends it as the sampling seed of every LLM call
// of that question in place of the role's configured one. Safe for
// concurrent use.
type EngineAnswerer struct {
	graph  kg.Graph
	ownsKG bool
	client *llm.Client
	eng    *kgqa.Engine
}

var _ Answerer = (*EngineAnswerer)(nil)

// NewAnswerer answers with a ready engine; Close leaves the engine's KG
// and model client open.
func NewAnswerer(eng *kgqa.Engine) *EngineAnswerer { return &EngineAnswerer{eng: eng} }

// NewEngineAnswerer opens the KG of cfg and builds the LLM client and the
// engine; llmOpts go to the LLM client (an HTTP client with a rate limit,
// for instance). When g is not nil it is used instead of opening cfg.KG,
// and Close leaves it open.
func NewEngineAnswerer(ctx context.Context, cfg config.Config, g kg.Graph, llmOpts ...llm.Option) (*EngineAnswerer, error) {
	a := &EngineAnswerer{graph: g}
	if g == nil {
		var err error
		if a.graph, err = kg.Open(ctx, cfg.KG, "", adapters.Open); err != nil {
			return nil, fmt.Errorf("dataset: engine: %w", err)
		}
		a.ownsKG = true
	}
	client, err := llm.New(cfg.LLM, llmOpts...)
	if err != nil {
		_ = a.Close()
		return nil, fmt.Errorf("dataset: engine: %w", err)
	}
	a.client, a.eng = client, kgqa.New(a.graph, client, cfg.Engine, kgqa.WithNeighborLimit(cfg.KG.NeighborLimit), lqt.FromConfig(cfg.Planner, client, os.LookupEnv))
	return a, nil
}

// Answer asks the engine q's question with q's topic entities, sampling
// with seed when it is not nil.
func (a *EngineAnswerer) Answer(ctx context.Context, q Question, seed *int) (Prediction, error) {
	req := kgqa.Request{Question: q.Text, Seed: seed}
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
	return PredictionFromAnswer(ans), err
}

// Close closes the LLM client and, when it opened it, the KG.
func (a *EngineAnswerer) Close() error {
	var errs []error
	if a.client != nil {
		errs = append(errs, a.client.Close())
	}
	if a.ownsKG && a.graph != nil {
		errs = append(errs, a.graph.Close())
	}
	return errors.Join(errs...)
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
	}
	for _, t := range ans.Entities {
		p.Entities = append(p.Entities, PredEntity{ID: t.ID, Name: t.Name, Datatype: t.Datatype})
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
