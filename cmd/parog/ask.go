package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/engine"
	"github.com/parog/parog-go/kgqa/kg"
	"github.com/parog/parog-go/kgqa/prompts"
	"github.com/parog/parog-go/kgqa/retrieval"
)

func runAsk(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "ask", `--config FILE [--topic ID ...] [--json | --sparql] [--server URL] "QUESTION"`)
	cf := addConfigFlags(fs)
	cf.addTraceFlags(fs)
	var topics multiFlag
	fs.Var(&topics, "topic", "topic entity `ID` to start from (repeatable); without it entities are linked from the question")
	asJSON := fs.Bool("json", false, "print the answer and its whole trace as JSON")
	asSPARQL := fs.Bool("sparql", false, "print only the answer's certificate: the SPARQL query that reproduces it (exit 1 when it has none)")
	cacheFlags := addLLMCacheFlags(fs)
	serverURL := fs.String("server", "", "ask a running parog serve at `URL` instead of a local engine (bearer key from PAROG_API_KEY)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return usageError(`want exactly one question, quoted: parog ask --config FILE "What country borders France?"`)
	}
	if *asJSON && *asSPARQL {
		return usageError("--json and --sparql print different things: give one")
	}
	if *serverURL != "" {
		return askServer(ctx, env, *serverURL, pos[0], topics, *asJSON, *asSPARQL)
	}
	cfg, err := cf.load(env)
	if err != nil {
		return err
	}
	if cfg.LLM.Reasoner.BaseURL == "" {
		return errNoReasoner
	}
	cache, err := cacheFlags.open()
	if err != nil {
		return err
	}
	defer func() { _ = closeCache(cache, env.Stderr) }()
	a, err := openApp(ctx, cfg, env, withLLM(cacheOptions(cache)...))
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	a.shareCalls(cache)
	eng := a.Engine
	ans, askErr := eng.Ask(ctx, engine.Request{Question: pos[0], TopicEntities: topics})
	switch {
	case *asSPARQL:
		if err := printCertificate(env.Stdout, ans); err != nil {
			return err
		}
	case *asJSON:
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ans); err != nil {
			return err
		}
	default:
		printTrace(env.Stdout, a.Graph.Dialect(), ans)
	}
	return askErr
}

// errNoCertificate is the error of ask --sparql on an answer with no
// query.
var errNoCertificate = errors.New("ask: the answer has no certificate query")

// printCertificate writes only the certificate's query.
func printCertificate(w io.Writer, a *kgqa.Answer) error {
	if a == nil || a.Certificate == nil || a.Certificate.SPARQL == "" {
		if a != nil && a.Certificate != nil && a.Certificate.Error != "" {
			return fmt.Errorf("%w: %s", errNoCertificate, a.Certificate.Error)
		}
		return errNoCertificate
	}
	_, err := io.WriteString(w, a.Certificate.SPARQL)
	return err
}

// printTrace writes the answer and a readable account of how it was found.
func printTrace(w io.Writer, d kg.Dialect, a *kgqa.Answer) {
	if a.Text != "" {
		fmt.Fprintf(w, "Answer: %s\n", a.Text)
	} else {
		fmt.Fprintln(w, "Answer: (none)")
	}
	for _, e := range a.Entities {
		fmt.Fprintf(w, "  - %s\n", prompts.Term(e))
	}
	if c := a.Certificate; c != nil {
		state := "not verified"
		if c.Verified {
			state = "verified"
		}
		fmt.Fprintf(w, "Certificate: %s, covers %s (--sparql prints the query)", state, c.Covers)
		if c.Error != "" {
			fmt.Fprintf(w, ": %s", c.Error)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nPlan (%s", a.PlanInfo.Source)
	if a.PlanInfo.Note != "" {
		fmt.Fprintf(w, "; %s", a.PlanInfo.Note)
	}
	if t := a.PlanInfo.Tree; t != nil {
		fmt.Fprintf(w, "; logical query tree by %s: %d atomic queries, %d of %d pairs asked, %d known unrelated, cost %.2f (depth %d, balance %d, %s sim %.2f)",
			t.Method, t.Atoms, t.PairCalls, t.Pairs, t.CachedUnrelated, t.Cost, t.Depth, t.Balance, t.Similarity, t.Sim)
		if t.Note != "" {
			fmt.Fprintf(w, "; %s", t.Note)
		}
	}
	fmt.Fprintln(w, "):")
	if a.Plan != nil {
		for _, s := range a.Plan.Subgoals {
			needs := ""
			if len(s.Needs) > 0 {
				needs = " <- " + strings.Join(s.Needs, ",")
			}
			fmt.Fprintf(w, "  %s [%s%s] %s\n", s.ID, s.Op, needs, s.Text)
		}
	}
	if rp := a.RetrievalPlan; rp != nil {
		fmt.Fprintf(w, "\nRoute: %s (%s)", rp.Route, rp.Reasons["route"])
		if len(rp.Categories) > 0 {
			fmt.Fprintf(w, "; categories %s", joinCategories(rp.Categories))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "\nTopic entities:")
	for _, t := range a.Topics {
		fmt.Fprintf(w, " %s [%s]", t.Name, t.ID)
	}
	fmt.Fprintln(w)
	for _, m := range a.Mentions {
		if m.Status != "resolved" {
			fmt.Fprintf(w, "  mention %q: %s (%d candidates)\n", m.Text, m.Status, len(m.Candidates))
		}
	}
	for _, s := range a.Subgoals {
		printSubgoal(w, d, s)
	}
	fmt.Fprintf(w, "\nStopped: %s", a.Stop)
	if a.Error != "" {
		fmt.Fprintf(w, " (%s)", a.Error)
	}
	u := a.Usage
	fmt.Fprintf(w, "\nCost: %d LLM calls (%d tokens; critical path %d calls), %d SPARQL queries, %d cache hits, %d ms\n",
		u.LLM.Calls, u.LLM.TotalTokens, u.CriticalPathCalls, u.SPARQLQueries, u.CacheHits, u.WallMS)
}

func printSubgoal(w io.Writer, d kg.Dialect, s *kgqa.SubgoalRecord) {
	fmt.Fprintf(w, "\n%s [%s] %s: %s\n", s.ID, s.Op, s.Status, s.Text)
	if p := s.Retrieval; p != nil {
		fmt.Fprintf(w, "  pack: width %d, depth %d, %d relations, %d/%d facts per pair/prompt, truncate %v, tentative %v, prune %s",
			p.Width, p.Depth, p.Relations, p.FactsPerPair, p.FactsPerPrompt, p.TruncateNeighbors, p.Tentative, p.Prune)
		if why := ruleReasons(p.Reasons); why != "" {
			fmt.Fprintf(w, " (%s)", why)
		}
		fmt.Fprintln(w)
	}
	if s.Tentative != nil {
		fmt.Fprintf(w, "  tentative: %s\n", s.Tentative.Answer)
	}
	for _, r := range s.Rounds {
		fmt.Fprintf(w, "  explored %d anchor(s) at depth %d: %d relations offered", len(r.Anchors), r.Depth, r.Offered)
		if r.Cut != nil {
			fmt.Fprintf(w, " (the %d most relevant of %d, ranked by %s)", r.Cut.Shown, r.Cut.Available, r.Cut.Method)
		}
		fmt.Fprint(w, ", kept")
		for _, c := range r.Chosen {
			fmt.Fprintf(w, " %s (%s)", d.Readable(c.ID), c.Dir)
		}
		if r.ChosenBy == "lexical_fallback" {
			fmt.Fprint(w, " (by word overlap: the model named none of the offered)")
		}
		if r.ChosenBy == "plan_attribute" {
			fmt.Fprintf(w, " (over the model's choice: %s)", r.Fallback)
		}
		for _, x := range r.Rejected {
			fmt.Fprintf(w, "; rejected %s (%s): %s", x.ID, x.Dir, x.Reason)
		}
		fmt.Fprintf(w, "; %d facts", len(r.Facts))
		if len(r.Capped) > 0 {
			fmt.Fprintf(w, " (%d queries hit their limit of %d facts: the KG may hold more)", len(r.Capped), r.Capped[0].Limit)
		}
		fmt.Fprintln(w)
	}
	if x := s.Expansion; x != nil {
		fmt.Fprintf(w, "  completed with %d member(s) the prompt had no room for, along %s\n", x.Added, strings.Join(x.Relations, ", "))
	}
	if v := s.Verdict; v != nil {
		fmt.Fprintf(w, "  refinement: aligned=%v kept_tentative=%v", v.Aligned, v.KeptTentative)
		if v.Reason != "" {
			fmt.Fprintf(w, " (%s)", v.Reason)
		}
		fmt.Fprintln(w)
		for _, f := range v.UsedFacts {
			fmt.Fprintf(w, "    %s\n", prompts.Fact(d, f))
		}
	}
	if s.SetOp != nil {
		fmt.Fprintf(w, "  set logic: %s over %v\n", s.SetOp.Method, s.SetOp.Inputs)
	}
	if s.Status == "done" {
		fmt.Fprintf(w, "  result (%s): %s", s.Result.Source, s.Result.Text)
		if s.Corrected {
			fmt.Fprint(w, "  [corrected the tentative answer]")
		}
		if s.Result.Capped {
			fmt.Fprint(w, "  [may be incomplete: capped by the KG's neighbour limit]")
		}
		fmt.Fprintln(w)
	} else if s.Error != "" {
		fmt.Fprintf(w, "  %s\n", s.Error)
	}
}

func joinCategories(cs []retrieval.Category) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// ruleReasons lists the pack's parameters a rule set (not the engine's
// budget), as "param: reason", in a fixed order.
func ruleReasons(reasons map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(reasons)) {
		if r := reasons[k]; r != retrieval.ReasonEngineBudget {
			out = append(out, k+": "+r)
		}
	}
	return strings.Join(out, "; ")
}
