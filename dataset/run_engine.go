package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/llm"
)

// EngineAnswerer answers benchmark questions with the PARoG engine over
// one KG. The engine sends each role's configured sampling seed, so a seed
// given to Answer gets an engine of its own whose LLM client has that seed
// set on every role (built on first use, sharing the KG). Safe for
// concurrent use.
type EngineAnswerer struct {
	cfg     config.Config
	graph   kg.Graph
	ownsKG  bool
	llmOpts []llm.Option

	mu      sync.Mutex
	engines map[int]*seededEngine
}

type seededEngine struct {
	eng    *kgqa.Engine
	client *llm.Client
}

var _ Answerer = (*EngineAnswerer)(nil)

// NewEngineAnswerer opens the KG of cfg and prepares engines; llmOpts go to
// every LLM client (an HTTP client with a rate limit, for instance). When
// g is not nil it is used instead of opening cfg.KG, and Close leaves it
// open.
func NewEngineAnswerer(ctx context.Context, cfg config.Config, g kg.Graph, llmOpts ...llm.Option) (*EngineAnswerer, error) {
	a := &EngineAnswerer{cfg: cfg, graph: g, llmOpts: llmOpts, engines: map[int]*seededEngine{}}
	if g == nil {
		var err error
		if a.graph, err = kg.Open(ctx, cfg.KG, ""); err != nil {
			return nil, fmt.Errorf("dataset: engine: %w", err)
		}
		a.ownsKG = true
	}
	if _, err := a.engine(nil); err != nil {
		_ = a.Close()
		return nil, err
	}
	return a, nil
}

func (a *EngineAnswerer) engine(seed *int) (*seededEngine, error) {
	k := NoSeed
	if seed != nil {
		k = *seed
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.engines[k]; ok {
		return e, nil
	}
	lc := a.cfg.LLM
	if seed != nil {
		for _, ep := range []*config.Endpoint{&lc.Planner, &lc.Reasoner} {
			s := *seed
			ep.Seed = &s
		}
	}
	client, err := llm.New(lc, a.llmOpts...)
	if err != nil {
		return nil, fmt.Errorf("dataset: engine: %w", err)
	}
	e := &seededEngine{eng: kgqa.New(a.graph, client, a.cfg.Engine), client: client}
	a.engines[k] = e
	return e, nil
}

// Answer asks the engine q's question with q's topic entities.
func (a *EngineAnswerer) Answer(ctx context.Context, q Question, seed *int) (Prediction, error) {
	e, err := a.engine(seed)
	if err != nil {
		return Prediction{}, err
	}
	req := kgqa.Request{Question: q.Text, Seed: seed}
	for _, t := range q.TopicEntities {
		req.TopicEntities = append(req.TopicEntities, t.ID)
	}
	ans, err := e.eng.Ask(ctx, req)
	if ans == nil {
		if err == nil {
			err = errors.New("dataset: engine returned no answer")
		}
		return Prediction{}, err
	}
	return PredictionFromAnswer(ans), err
}

// Close closes the LLM clients and, when it opened it, the KG.
func (a *EngineAnswerer) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for _, e := range a.engines {
		errs = append(errs, e.client.Close())
	}
	if a.ownsKG && a.graph != nil {
		errs = append(errs, a.graph.Close())
	}
	return errors.Join(errs...)
}

// PredictionFromAnswer turns an engine answer into a Prediction: the
// answer terms, the answer subgoal's tentative answer, one Verdict per
// subgoal, the plan, the whole answer as the trace, and the usage.
func PredictionFromAnswer(ans *kgqa.Answer) Prediction {
	p := Prediction{
		Text:          ans.Text,
		LLMCalls:      ans.Usage.LLM.Calls,
		InputTokens:   ans.Usage.LLM.PromptTokens,
		OutputTokens:  ans.Usage.LLM.CompletionTokens,
		SPARQLQueries: ans.Usage.SPARQLQueries,
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
		v := Verdict{Subgoal: s.ID, Answer: s.ID == answerID, Corrected: s.Corrected, Final: s.Result.Text}
		if s.Tentative != nil {
			v.Tentative = s.Tentative.Answer
		}
		if s.Verdict != nil {
			aligned := s.Verdict.Aligned
			v.Aligned = &aligned
		}
		if v.Answer && s.Tentative != nil {
			p.Tentative, p.TentativeNames = s.Tentative.Answer, s.Tentative.Names
		}
		p.Verdicts = append(p.Verdicts, v)
	}
	p.Trace, _ = json.Marshal(ans)
	return p
}
