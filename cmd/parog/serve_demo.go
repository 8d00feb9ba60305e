package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/dataset/oracle"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/server"
)

// demoModelLabel is how the log, /readyz and the viewer name the scripted
// demo model, so that nobody takes its answers for a language model's.
const demoModelLabel = "scripted demo model: answers the demo questions"

// demoModel is the oracle over the demo graph's questions, served on a
// loopback port for a serve run that has no model configured.
type demoModel struct {
	// Endpoint points a model role at it.
	Endpoint config.Endpoint
	// Questions are the questions it answers, in file order.
	Questions []server.DemoQuestion

	srv *http.Server
	wg  sync.WaitGroup
}

// wantsDemoModel reports whether serve stands the scripted demo model in
// for a language model: no reasoner is configured and the KG is the demo
// graph, whose questions are the only ones it can answer.
func wantsDemoModel(cfg config.Config) bool {
	return cfg.LLM.Reasoner.BaseURL == "" && cfg.LLM.Planner.BaseURL == "" &&
		cfg.KG.Backend == "embedded" && cfg.KG.Dir == "" && slices.Equal(cfg.KG.Files, []string{config.DemoGraph})
}

// startDemoModel serves the oracle (gold plans and answers, no noise) on
// the demo questions at a free loopback port.
func startDemoModel(ctx context.Context, env *Env) (*demoModel, error) {
	qs, err := loadQuestions(ctx, env, dataset.Demo, "")
	if err != nil {
		return nil, err
	}
	m, _ := oracle.New(qs)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve: demo model: %w", err)
	}
	d := &demoModel{srv: &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(env.Stderr, "parog serve: demo model: %v\n", err)
		}
	}()
	ep := config.Default().LLM.Reasoner
	ep.BaseURL, ep.Model = "http://"+ln.Addr().String()+"/v1", oracle.ModelID
	d.Endpoint = ep
	for _, q := range qs {
		d.Questions = append(d.Questions, server.DemoQuestion{ID: q.ID, Question: q.Text})
	}
	return d, nil
}

// Close stops the demo model's server.
func (d *demoModel) Close() error {
	err := d.srv.Close()
	d.wg.Wait()
	return err
}
