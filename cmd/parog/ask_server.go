package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/kg"
)

// askServer asks a running `parog serve` instead of a local engine; the
// bearer key, if any, comes from PAROG_API_KEY. It prints what the local
// path prints; a question that ran out of time prints its partial trace.
func askServer(ctx context.Context, env *Env, serverURL, question string, topics []string, asJSON, asSPARQL bool) error {
	var opts []api.ClientOption
	if key, ok := env.Getenv("PAROG_API_KEY"); ok && key != "" {
		opts = append(opts, api.WithAPIKey(key))
	}
	c, err := api.NewClient(serverURL, opts...)
	if err != nil {
		return usageError("--server: %v", err)
	}
	resp, askErr := c.Ask(ctx, api.AskRequest{Question: question, TopicEntities: topics})
	if askErr != nil {
		ae, ok := askErr.(*api.Error)
		if !ok || ae.Partial == nil {
			return askErr
		}
		resp = ae.Partial
	}
	switch {
	case asSPARQL:
		if err := printCertificate(env.Stdout, resp.EngineAnswer()); err != nil {
			return err
		}
	case asJSON:
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(resp); err != nil {
			return err
		}
	default:
		a := resp.EngineAnswer()
		printTrace(env.Stdout, dialectOf(topics, a.Topics), a)
	}
	return askErr
}

// dialectOf guesses the server's dialect from the entity ids, for
// rendering relation names only.
func dialectOf(ids []string, topics []kgqa.Topic) kg.Dialect {
	for _, t := range topics {
		ids = append(ids, t.ID)
	}
	for _, id := range ids {
		if strings.HasPrefix(id, "Q") {
			return kg.Wikidata(kg.DialectOptions{})
		}
	}
	return kg.Freebase(kg.DialectOptions{})
}
